package dev.ember.dynamo;

import dev.ember.tensor.FakeTensor;

import java.util.List;
import java.util.stream.Collectors;

/** A readable listing of a captured graph (until the FX printers take over). */
final class GraphText {
    private GraphText() {}

    static String readable(OutputGraph g) {
        StringBuilder sb = new StringBuilder();
        for (OutputGraph.Node n : g.nodes()) {
            String type = n.fake instanceof FakeTensor f ? f.meta().describe() : n.fake instanceof List<?> l ? "list[" + l.size() + "]" : "?";
            sb.append('%').append(n.name).append(" : ").append(type).append(" = ").append(n.kind);
            if (!n.kind.equals("placeholder")) {
                sb.append('[').append(n.target instanceof OutputGraph.GetItem ? "getitem" : n.target).append("](")
                        .append(n.args.stream().map(GraphText::arg).collect(Collectors.joining(", "))).append(')');
            }
            if (n.location != null) sb.append("  # ").append(n.location);
            sb.append('\n');
        }
        sb.append("return (").append(g.outputs() == null ? "" : g.outputs().stream().map(o -> "%" + o.name).collect(Collectors.joining(", "))).append(")\n");
        return sb.toString();
    }

    private static String arg(Object a) {
        if (a instanceof OutputGraph.Node n) return "%" + n.name;
        if (a instanceof int[] arr) return java.util.Arrays.toString(arr);
        if (a instanceof List<?> l) return l.stream().map(GraphText::arg).collect(Collectors.joining(", ", "[", "]"));
        return String.valueOf(a);
    }
}
