package dev.ember.debug.fuzz;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A generated tensor program: parameters, statements, returned variables, and the seed that made
 * it; {@code training}, in the model family, how the training configurations train the modules it
 * holds (null: their parameters stay frozen). {@link #source} prints it as the Java class a user
 * would write; that text is what is compiled, captured, compared and, on a failure, written as the repro.
 */
public record Program(long seed, List<Input> inputs, List<ScalarInput> scalars, List<Stmt> body, List<Var> returns, Training training) {
    /**
     * How the modules' parameters are trained ({@link ProgramModules}): {@code optimizer}, Java source
     * of an expression that builds the optimizer of a list named {@code parameters}, and the number of
     * steps of the training loop ({@code +steps} configurations).
     */
    public record Training(String optimizer, int steps) {
        public Training {
            if (steps < 1) throw new IllegalArgumentException("a training loop takes at least one step, got " + steps);
        }
    }

    /** A program whose modules, if it holds any, stay frozen. */
    public Program(long seed, List<Input> inputs, List<ScalarInput> scalars, List<Stmt> body, List<Var> returns) {
        this(seed, inputs, scalars, body, returns, null);
    }

    public Program {
        inputs = List.copyOf(inputs);
        scalars = List.copyOf(scalars);
        body = List.copyOf(body);
        returns = List.copyOf(returns);
        if (inputs.isEmpty()) throw new IllegalArgumentException("a program takes at least one tensor");
        if (inputs.size() + scalars.size() > 5) {
            throw new IllegalArgumentException("a program takes 1 to 5 parameters (Fn1…Fn5), got " + inputs.size() + " tensors and " + scalars.size() + " numbers");
        }
        if (returns.isEmpty()) throw new IllegalArgumentException("a program returns at least one tensor");
    }

    /** The same program with another body and returned values (what the shrinker makes). */
    Program with(List<Input> newInputs, List<Stmt> newBody, List<Var> newReturns) {
        return new Program(seed, newInputs, scalars, newBody, newReturns, training);
    }

    /** The same program without number parameter {@code i} (what the shrinker makes of one nothing reads). */
    Program withoutScalar(int i) {
        List<ScalarInput> rest = new java.util.ArrayList<>(scalars);
        rest.remove(i);
        return new Program(seed, inputs, rest, body, returns, training);
    }

    /** The name of the class {@link #source} declares when none is given. */
    public String className() { return "FuzzProgram_" + Long.toUnsignedString(seed); }

    /** The Java type of {@code run}'s result. */
    String resultType() { return returns.size() == 1 ? "Tensor" : "List<Tensor>"; }

    /** {@code Fn2<Tensor, Tensor, Tensor>}. */
    String fnType() {
        StringBuilder args = new StringBuilder("Tensor, ".repeat(inputs.size()));
        for (ScalarInput s : scalars) args.append(s.boxedType()).append(", ");
        return "Fn" + (inputs.size() + scalars.size()) + "<" + args + resultType() + ">";
    }

    /**
     * The class: {@code run} (the program), {@code fn()} (it as the serializable function
     * {@code Ember.compile} takes) and {@code inputs()} (fresh arguments on every call: the same
     * values, layouts and aliasing each time, so each run starts from equal inputs).
     */
    public String source(String className) {
        return source(className, "");
    }

    /** {@link #source(String)} with {@code extra} members (a repro's {@code main}) before the closing brace. */
    String source(String className, String extra) {
        StringBuilder sb = new StringBuilder();
        sb.append("import dev.ember.*;\nimport dev.ember.nn.F;\nimport dev.ember.tensor.*;\nimport java.util.List;\n\n");
        sb.append("public final class ").append(className).append(" {\n");
        for (Stmt s : body) {
            if (s.member() == null) continue;
            for (String line : s.member().split("\n")) sb.append("    ").append(line).append('\n');
            sb.append('\n');
        }
        String params = java.util.stream.Stream.concat(inputs.stream().map(i -> "Tensor " + i.param().name()),
                scalars.stream().map(n -> n.javaType() + " " + n.name())).collect(Collectors.joining(", "));
        sb.append("    public static ").append(resultType()).append(" run(").append(params).append(") {\n");
        for (Stmt s : body) for (String line : s.java().split("\n")) sb.append("        ").append(line).append('\n');
        String ret = returns.size() == 1 ? returns.getFirst().name()
                : "List.of(" + returns.stream().map(Var::name).collect(Collectors.joining(", ")) + ")";
        sb.append("        return ").append(ret).append(";\n    }\n\n");
        sb.append("    public static ").append(fnType()).append(" fn() { return ").append(className).append("::run; }\n\n");
        sb.append("    /** ");
        sb.append(inputs.stream().map(i -> i.param().toString() + (i.aliasOf() >= 0 ? " (same tensor as " + inputs.get(i.aliasOf()).param().name() + ")"
                : i.layout() == Input.Layout.CONTIGUOUS ? "" : " (" + i.layout().name().toLowerCase() + ")")).collect(Collectors.joining(", ")));
        for (ScalarInput n : scalars) sb.append(", ").append(n.javaType()).append(' ').append(n.name());
        sb.append(" */\n    public static Object[] inputs() {\n");
        sb.append("        Generator g = new Generator(").append(seed).append("L);\n");
        String[] names = inputs.stream().map(i -> i.param().name()).toArray(String[]::new);
        for (Input in : inputs) sb.append("        Tensor ").append(in.param().name()).append(" = ").append(in.maker(names)).append(";\n");
        List<String> all = new java.util.ArrayList<>(List.of(names));
        for (ScalarInput n : scalars) all.add(n.maker());
        sb.append("        return new Object[] {").append(String.join(", ", all)).append("};\n    }\n");
        List<String> modules = body.stream().filter(s -> s instanceof Stmt.Held).map(s -> ((Stmt.Held) s).field()).toList();
        if (!modules.isEmpty()) {
            sb.append("\n    /** The modules run calls: the training configurations train their parameters when there is an optimizer(). */\n");
            sb.append("    public static List<dev.ember.nn.Module> modules() { return List.of(").append(String.join(", ", modules)).append("); }\n");
            if (training != null) {
                sb.append("\n    /** The +grad configurations compare the parameters' gradients; the +steps ones take STEPS steps of this optimizer. */\n");
                sb.append("    public static final int STEPS = ").append(training.steps()).append(";\n\n");
                sb.append("    public static dev.ember.optim.Optimizer optimizer(List<Tensor> parameters) {\n        return ")
                        .append(training.optimizer()).append(";\n    }\n");
            }
        }
        if (scalars.stream().anyMatch(n -> n.kind() == ScalarInput.Kind.KNOBS)) sb.append('\n').append(ScalarInput.KNOBS_CLASS);
        sb.append(extra);
        sb.append("}\n");
        return sb.toString();
    }
}
