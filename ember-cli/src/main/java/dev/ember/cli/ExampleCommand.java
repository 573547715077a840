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
    }

    static int run(String[] args, PrintStream out) throws Exception {
        if (args.length == 0) {
            out.println("examples (source in examples/src/main/java/dev/ember/examples/):");
            EXAMPLES.forEach((name, what) -> out.printf("  %-20s %s%n", name, what));
            out.println("run one: ./ember example <name>");
            return 0;
        }
        if (args.length > 1) throw new IllegalArgumentException("takes one example name, got " + String.join(" ", args));
        if (!EXAMPLES.containsKey(args[0])) {
            throw new IllegalArgumentException("no example '" + args[0] + "'; examples: " + String.join(", ", EXAMPLES.keySet()));
        }
        PrintStream saved = System.out;
        System.setOut(out);
        try {
            Class.forName("dev.ember.examples." + args[0]).getMethod("main", String[].class).invoke(null, (Object) new String[0]);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception ex ? ex : e;
        } finally {
            System.setOut(saved);
        }
        return 0;
    }
}
