package dev.ember.cli;

import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code ember example [name]}: lists the programs in examples/ or runs one. */
final class ExampleCommand {
    private ExampleCommand() {}

    static final Map<String, String> EXAMPLES = new LinkedHashMap<>();

    static {
        EXAMPLES.put("QuickStart", "tensors: creation, broadcasting, promotion, views, reductions, errors");
        EXAMPLES.put("CompileAndExplain", "Ember.compile: cache, recompile, explain, fullgraph's error");
        EXAMPLES.put("TrustButVerify", "compiled against eager with a float64 reference in every inductor mode; the op that made a NaN");
        EXAMPLES.put("hooks", "module forward hooks traced into the graph: an activation log that never recompiles, a hook that clips the output");
        EXAMPLES.put("toolkit", "the power user's tools: stances, an errorOnGraphBreak region, a printed graph parsed back and run, the bytecode debugger");
        EXAMPLES.put("dynamic-shapes", "a batch size that changes on every call: two compiles, the symbolic graph and its guards, export with a dynamic batch");
        EXAMPLES.put("sequence-lstm", "an LSTM sequence classifier trained compiled (forward and backward), with gradient clipping and torch.nn.init");
        EXAMPLES.put("export", "Ember.export: a model as one ATen graph with its signature, saved to one file, loaded and run [file]");
        EXAMPLES.put("train-mlp", "a compiled MLP trained on Fashion-MNIST with AdamW: progress, loss, accuracy, images/s [epochs, default 3]");
        EXAMPLES.put("train-cnn", "a compiled Conv-BatchNorm-ReLU network trained on Fashion-MNIST [epochs, default 2]");
    }

    /** {@code train-mlp} → {@code TrainMlp}, {@code export} → {@code Export}; class names stay as they are. */
    static String className(String name) {
        StringBuilder sb = new StringBuilder();
        for (String part : name.split("-")) sb.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
        return sb.toString();
    }

    static int run(String[] args, PrintStream out) throws Exception {
        if (args.length == 0) {
            out.println("examples (source in examples/src/main/java/dev/ember/examples/):");
            EXAMPLES.forEach((name, what) -> out.printf("  %-20s %s%n", name, what));
            out.println("run one: ./ember example <name> [arguments]");
            return 0;
        }
        if (!EXAMPLES.containsKey(args[0])) {
            throw new IllegalArgumentException("no example '" + args[0] + "'; examples: " + String.join(", ", EXAMPLES.keySet()));
        }
        PrintStream saved = System.out;
        System.setOut(out);
        try {
            String[] rest = java.util.Arrays.copyOfRange(args, 1, args.length);
            Class.forName("dev.ember.examples." + className(args[0])).getMethod("main", String[].class).invoke(null, (Object) rest);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception ex ? ex : e;
        } finally {
            System.setOut(saved);
        }
        return 0;
    }
}
