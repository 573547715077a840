package dev.ember.fx;

/**
 * A NaN or an infinity where {@code EMBER_NAN_ASSERTS=1} checked: the first non-finite element of
 * the output of an op (eager and aot_eager backends) or of a kernel (inductor), named with the node
 * that computed it, the user's source line, the graph and the element's index and value.
 */
public final class NonFiniteValueError extends ArithmeticException {
    private final String ranAfter;
    private final String node;
    private final String sourceLine;
    private final String graph;
    private final String index;
    private final double value;

    /**
     * @param ranAfter   what had just run: {@code op aten.log.default} or {@code kernel2 (pointwise kernel: log, div)}
     * @param node       the graph node whose output holds the value
     * @param sourceLine {@code Model.java:12: return x.log();}, or null when the node has no location
     * @param graph      {@code Model.fn [0/0]}, or null when not yet known (then {@link #inGraph} adds it)
     * @param index      the element's index, {@code [1, 0]}
     */
    public NonFiniteValueError(String ranAfter, String node, String sourceLine, String graph, String index, double value) {
        super(message(ranAfter, node, sourceLine, graph, index, value));
        this.ranAfter = ranAfter;
        this.node = node;
        this.sourceLine = sourceLine;
        this.graph = graph;
        this.index = index;
        this.value = value;
    }

    private static String message(String ranAfter, String node, String sourceLine, String graph, String index, double value) {
        return valueName(value) + " at " + index + " of the output of " + node + ", after " + ranAfter
                + (graph == null ? "" : " in graph " + graph)
                + (sourceLine == null ? "" : "\n  from user code at " + sourceLine)
                + "\n  (" + NanAsserts.ENV + "=1 checks every output of every op or kernel; Ember.debugNans(fn, args...) reruns the"
                + " function op by op and prints the statistics of the inputs of the op that made it)";
    }

    /** {@code NaN}, {@code Infinity} or {@code -Infinity}. */
    static String valueName(double v) {
        return Double.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
    }

    /** The same error, naming {@code graph} (for errors raised by code that does not know its graph). */
    public NonFiniteValueError inGraph(String graph) {
        NonFiniteValueError e = new NonFiniteValueError(ranAfter, node, sourceLine, graph, index, value);
        e.setStackTrace(getStackTrace());
        return e;
    }

    /** The op or kernel that had just run. */
    public String ranAfter() { return ranAfter; }

    /** The node whose output holds the value. */
    public String node() { return node; }

    /** The user's source line, or null. */
    public String sourceLine() { return sourceLine; }

    /** The compiled function and compile id, {@code Model.fn [0/0]}, or null. */
    public String graph() { return graph; }

    /** The element's index, {@code [1, 0]}. */
    public String index() { return index; }

    public double value() { return value; }
}
