package dev.ember.debug;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@code Ember.debugNans} found: the first op whose output holds a NaN (or an infinity) that
 * none of its inputs held, with its graph, its user source line and its inputs' statistics — or
 * that no op made one. {@link #toString()} is the table for people.
 *
 * @param found      whether an op made a non-finite value
 * @param graph      the graph it ran in ({@code Model.fn [0/0]}), null when not found
 * @param graphIndex which graph of the run (1 = the first run; graph breaks make several), 0 when not found
 * @param node       the node's name ({@code log_1}), null when not found
 * @param op         the op ({@code aten.log.default}), null when not found
 * @param sourceLine the user's line ({@code Model.java:12: return y.log();}), null when not found or unknown
 * @param output     the statistics of the op's (first non-finite) output, null when not found
 * @param inputs     the op's tensor inputs, before it ran, by the name of the node giving each
 * @param graphs     how many graphs ran op by op
 * @param ops        how many ops ran
 */
public record NanReport(boolean found, String graph, int graphIndex, String node, String op, String sourceLine, TensorStats output,
                        List<Input> inputs, int graphs, int ops) {

    /** A tensor input of the op: the node that gave it ({@code x}, {@code mul_2}) and its statistics. */
    public record Input(String name, TensorStats stats) {}

    public NanReport {
        inputs = List.copyOf(inputs);
    }

    static NanReport notFound(int graphs, int ops) {
        return new NanReport(false, null, 0, null, null, null, null, List.of(), graphs, ops);
    }

    @Override
    public String toString() {
        String ran = graphs + (graphs == 1 ? " graph, " : " graphs, ") + ops + (ops == 1 ? " op" : " ops") + " run one by one in eager";
        if (!found) {
            return "debugNans: no op made a NaN or an infinity from inputs without one (" + ran + ").\n"
                    + "  If the compiled function returns non-finite values, the compiler is at fault: run it under `ember bisect`,\n"
                    + "  or with EMBER_NAN_ASSERTS=1 to name the kernel.";
        }
        StringBuilder sb = new StringBuilder();
        sb.append("debugNans: ").append(node).append(" (").append(op).append(") made the first ").append(kind(output))
                .append(", in graph ").append(graphIndex).append(" (").append(graph).append("; ").append(ran).append(")\n");
        sb.append("  at ").append(sourceLine == null ? "an unknown line" : sourceLine).append('\n');
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"", "node", "type", "min", "max", "mean", "nan", "inf", "first non-finite"});
        rows.add(row("output", node, output));
        for (Input in : inputs) rows.add(row("input", in.name(), in.stats()));
        int[] width = new int[rows.get(0).length];
        for (String[] r : rows) for (int i = 0; i < r.length; i++) width[i] = Math.max(width[i], r[i].length());
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder("  ");
            for (int i = 0; i < r.length; i++) line.append(String.format("%-" + width[i] + "s", r[i])).append(i + 1 < r.length ? "  " : "");
            sb.append(line.toString().stripTrailing()).append('\n');
        }
        return sb.toString().stripTrailing();
    }

    private static String kind(TensorStats s) {
        return s.nanCount() > 0 ? "NaN" : "infinity";
    }

    private static String[] row(String role, String name, TensorStats s) {
        return new String[] {role, name, s.type(), number(s.min()), number(s.max()), number(s.mean()), String.valueOf(s.nanCount()),
                String.valueOf(s.infCount()), s.firstNonFinite() == null ? "-" : s.firstNonFinite()};
    }

    private static String number(double v) {
        return Double.isNaN(v) ? "-" : String.format("%.4g", v);
    }
}
