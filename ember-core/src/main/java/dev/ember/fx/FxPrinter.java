package dev.ember.fx;

import dev.ember.ops.OpOverload;

import java.util.ArrayList;
import java.util.List;

/**
 * FX's two printed forms of a graph: {@code Graph.__str__} (one {@code format_node} line per node)
 * and {@code print_tabular} (a table of opcode, name, target, args, kwargs — plus the value's type).
 */
final class FxPrinter {
    private FxPrinter() {}

    static String formatGraph(Graph g) {
        StringBuilder sb = new StringBuilder("graph():");
        for (Node n : g.nodes()) sb.append("\n    ").append(formatNode(n));
        return sb.toString();
    }

    static String formatNode(Node n) {
        String type = ValueTypes.describe(n);
        String lhs = "%" + n.name() + " : " + (type == null ? "" : type + " ") + "[num_users=" + n.users().size() + "] = "
                + n.kind().opcode() + "[target=" + target(n) + "]";
        return switch (n.kind()) {
            case PLACEHOLDER, GET_ATTR -> lhs;
            case OUTPUT -> "return " + PyFormat.repr(n.arg(0), true);
            default -> lhs + "(args = " + PyFormat.argsTuple(n.args()) + ", kwargs = " + PyFormat.kwargsDict(n.kwargs()) + ")";
        };
    }

    /** The printed target: {@code aten.add.Tensor}, {@code operator.getitem}, a method name or a path. */
    static String target(Node n) {
        return switch (n.target()) {
            case OpOverload op -> op.name();
            case GraphFunction fn -> fn.qualifiedName();
            case Object o -> o.toString();
        };
    }

    /** Like FX's {@code print_tabular} (tabulate's "simple" format), with a last column for the value's type. */
    static String tabular(Graph g) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"opcode", "name", "target", "args", "kwargs", "val"});
        for (Node n : g.nodes()) {
            String val = ValueTypes.describe(n);
            // The output's value is a tuple: FX shows its args as ((a, b),).
            String args = n.kind() == NodeKind.OUTPUT ? "(" + PyFormat.repr(n.arg(0), true) + ",)" : PyFormat.repr(n.args(), true);
            rows.add(new String[] {n.kind().opcode(), n.name(), target(n), args,
                    kwargsRepr(n), val == null ? "" : val});
        }
        int cols = rows.get(0).length;
        int[] width = new int[cols];
        for (String[] r : rows) for (int c = 0; c < cols; c++) width[c] = Math.max(width[c], r[c].length());
        StringBuilder sb = new StringBuilder();
        appendRow(sb, rows.get(0), width);
        String[] rule = new String[cols];
        for (int c = 0; c < cols; c++) rule[c] = "-".repeat(width[c]);
        appendRow(sb, rule, width);
        for (int i = 1; i < rows.size(); i++) appendRow(sb, rows.get(i), width);
        return sb.toString();
    }

    private static String kwargsRepr(Node n) {
        List<String> items = new ArrayList<>();
        n.kwargs().forEach((k, v) -> items.add("'" + k + "': " + PyFormat.repr(v, false)));
        return "{" + String.join(", ", items) + "}";
    }

    private static void appendRow(StringBuilder sb, String[] cells, int[] width) {
        StringBuilder line = new StringBuilder();
        for (int c = 0; c < cells.length; c++) {
            if (c > 0) line.append("  ");
            line.append(cells[c]).append(" ".repeat(width[c] - cells[c].length()));
        }
        sb.append(line.toString().stripTrailing()).append('\n');
    }
}
