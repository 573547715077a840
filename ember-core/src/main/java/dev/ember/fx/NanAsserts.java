package dev.ember.fx;

import dev.ember.logging.CompileContext;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * {@code EMBER_NAN_ASSERTS=1} (or the system property {@code ember.nan.asserts=1}): graphs compiled
 * from then on check the output of every op (eager, aot_eager) or kernel (inductor) and throw
 * {@link NonFiniteValueError} at the first NaN or infinity. Read when a graph is compiled, so a
 * compiled graph keeps the setting it was built with. Integer and boolean tensors are never checked:
 * they cannot hold a non-finite value.
 */
public final class NanAsserts {
    private NanAsserts() {}

    public static final String ENV = "EMBER_NAN_ASSERTS";
    /** The system property read first, so a program (or a test) can switch the checks on for itself. */
    public static final String PROPERTY = "ember.nan.asserts";

    /**
     * Whether graphs compiled now check their values.
     *
     * @throws IllegalArgumentException when the setting is neither 1 nor 0
     */
    public static boolean enabled() {
        return dev.ember.logging.Switches.flag(PROPERTY, ENV, "check every op's output for NaN and infinity", "do not");
    }

    /** The graph being compiled as errors name it: {@code Model.fn [0/0]}, or the module's class name outside a compilation. */
    public static String graphLabel(GraphModule gm) {
        String current = CompileContext.describeCurrent();
        return current != null ? current : gm.className();
    }

    /** {@code Model.java:12: return x.log();}, or null when the node has no location. */
    public static String sourceLine(Node n) {
        SourceLocation loc = n.sourceLocation();
        if (loc == null) return null;
        return loc.fileAndLine() + (loc.sourceText() == null ? "" : ": " + loc.sourceText().strip());
    }

    /** An interpreter of {@code gm} that checks the output of every call as {@link PreparedGraph} does. */
    public static Interpreter checkingInterpreter(GraphModule gm, String graph) {
        return new Interpreter(gm) {
            @Override
            protected Object runNode(Node n) {
                Object value = super.runNode(n);
                if (n.kind() != NodeKind.PLACEHOLDER && n.kind() != NodeKind.GET_ATTR && n.kind() != NodeKind.OUTPUT) check(value, n, graph);
                return value;
            }
        };
    }

    /** Throws for the first non-finite element of each floating-point tensor in {@code value} (a tensor or a list). */
    static void check(Object value, Node n, String graph) {
        switch (value) {
            case Tensor t when t.dtype().isFloatingPoint() && !t.isFake() -> {
                double[] v = t.toDoubleArray();
                for (int i = 0; i < v.length; i++) {
                    if (Double.isFinite(v[i])) continue;
                    String op = n.target() instanceof OpOverload o ? o.name() : String.valueOf(n.target());
                    throw new NonFiniteValueError("op " + op, "node " + n.name(), sourceLine(n), graph, index(i, t.shape()), v[i]);
                }
            }
            case List<?> l -> l.forEach(x -> check(x, n, graph));
            case null, default -> { }
        }
    }

    /** {@code [1, 0]}: row-major position {@code flat} in {@code shape}; {@code []} for a scalar. */
    public static String index(int flat, int[] shape) {
        int[] at = new int[shape.length];
        for (int d = shape.length - 1; d >= 0; d--) {
            if (shape[d] == 0) continue;
            at[d] = flat % shape[d];
            flat /= shape[d];
        }
        return java.util.Arrays.toString(at);
    }
}
