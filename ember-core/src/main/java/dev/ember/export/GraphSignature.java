package dev.ember.export;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What each input and output of an exported program's graph is (torch.export's
 * {@code ExportGraphSignature}), in the graph's order; and the non-tensor arguments the program was
 * specialised on (their values are baked into the graph: a Java {@code int} that chose a branch, an
 * enum), by name with their printed value.
 */
public record GraphSignature(List<InputSpec> inputs, List<OutputSpec> outputs, Map<String, String> specialized) {
    public GraphSignature {
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        specialized = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(specialized));
    }

    /** The inputs the caller passes, in order. */
    public List<InputSpec> userInputs() { return inputs.stream().filter(i -> i.kind() == InputSpec.Kind.USER_INPUT).toList(); }

    /** The outputs the caller gets, in order. */
    public List<OutputSpec> userOutputs() { return outputs.stream().filter(o -> o.kind() == OutputSpec.Kind.USER_OUTPUT).toList(); }

    /**
     * As torch prints it, one line per input and output, aligned and typed:
     * <pre>
     *     # inputs
     *     p_linear_weight: PARAMETER        target='linear.weight'  f32[8, 4]
     *     x:               USER_INPUT       target='x'              f32[2, 4]
     * </pre>
     */
    @Override
    public String toString() {
        List<String[]> rows = new ArrayList<>();
        for (InputSpec i : inputs) rows.add(new String[] {i.name() + ":", i.kind().name(), "target='" + i.target() + "'", i.spec().toString()});
        int inputRows = rows.size();
        for (OutputSpec o : outputs) rows.add(new String[] {o.name() + ":", o.kind().name(), "target='" + o.describeTarget() + "'", o.spec().toString()});
        int[] width = new int[3];
        for (String[] r : rows) for (int c = 0; c < 3; c++) width[c] = Math.max(width[c], r[c].length());
        StringBuilder sb = new StringBuilder("    # inputs\n");
        for (int k = 0; k < rows.size(); k++) {
            if (k == inputRows) sb.append("\n    # outputs\n");
            String[] r = rows.get(k);
            sb.append("    ");
            for (int c = 0; c < 3; c++) sb.append(r[c]).append(" ".repeat(width[c] - r[c].length() + 2));
            sb.append(r[3]).append('\n');
        }
        if (outputs.isEmpty()) sb.append("\n    # outputs\n");
        if (!specialized.isEmpty()) {
            sb.append("\n    # specialized (baked into the graph)\n");
            specialized.forEach((k, v) -> sb.append("    ").append(k).append(" = ").append(v).append('\n'));
        }
        return sb.toString();
    }
}
