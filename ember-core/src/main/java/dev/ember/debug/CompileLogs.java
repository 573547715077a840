package dev.ember.debug;

import dev.ember.fx.Graph;
import dev.ember.fx.Node;
import dev.ember.tensor.Tensor;

import java.util.List;
import java.util.stream.Collectors;

/** The text of the compiler's summary logs: {@code graph_sizes}, the per-function Graph Count and {@code dynamic}. */
public final class CompileLogs {
    private CompileLogs() {}

    /**
     * {@code graph_sizes}: every node with a tensor value (or a list of them) and its shape and dtype,
     * <pre>
     * TRACED GRAPH TENSOR SIZES of MyApp.fn
     *   x: (2, 3) f32
     *   add: (2, 3) f32
     * </pre>
     */
    public static String graphSizes(String function, Graph graph) {
        StringBuilder sb = new StringBuilder("TRACED GRAPH TENSOR SIZES of ").append(function);
        for (Node n : graph.nodes()) {
            String size = sizeOf(n.val());
            if (size != null) sb.append("\n  ").append(n.name()).append(": ").append(size);
        }
        return sb.toString();
    }

    private static String sizeOf(Object val) {
        return switch (val) {
            case Tensor t -> "(" + java.util.Arrays.stream(t.shape()).mapToObj(Integer::toString).collect(Collectors.joining(", "))
                    + (t.dim() == 1 ? ",)" : ")") + " " + t.dtype().shortName();
            case List<?> l when !l.isEmpty() && l.stream().allMatch(x -> x instanceof Tensor) ->
                    "[" + l.stream().map(CompileLogs::sizeOf).collect(Collectors.joining(", ")) + "]";
            case null, default -> null;
        };
    }

    /**
     * The per-function summary logged on {@code dynamo} at INFO after each compilation of a method (each resume
     * method is a function of its own): {@code Graph Count for MyApp.fn: 2 graph(s) in 3 compile(s), 1 graph
     * break(s), 7 op(s)}.
     */
    public static String graphCount(String function, int graphs, int compiles, int breaks, int ops) {
        return "Graph Count for " + function + ": " + graphs + " graph(s) in " + compiles + " compile(s), " + breaks + " graph break(s), "
                + ops + " op(s)";
    }

    /** {@code dynamic}: why every shape of this compilation is static. */
    public static String staticShapes(String function, boolean dynamicAsked) {
        return "static shapes for " + function + ": every input's sizes and strides are guarded exactly, so a new shape recompiles"
                + (dynamicAsked ? "; Options.dynamic(true) was asked for, but dynamic shapes are not supported yet"
                                : " (dynamic shapes are not supported yet)");
    }
}
