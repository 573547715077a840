package dev.ember.debug;

import dev.ember.fx.GraphModule;
import dev.ember.fx.JavaSourceGen;
import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * fx_graph_runnable.java: a standalone program that rebuilds one captured graph, runs it with the backend
 * it was compiled with and with eager (the FX interpreter), and prints whether they agree
 * ({@link ReproCheck}). {@code java -cp <ember-core jar and its dependencies> fx_graph_runnable.java}.
 */
final class RunnableRepro {
    /** Inputs are written out exactly up to this many elements in all; larger ones become seeded random inputs. */
    static final int MAX_RECORDED_ELEMENTS = 4096;

    private RunnableRepro() {}

    /**
     * The program's source; {@code inputs} are the values the graph was compiled for (null entries when
     * unknown). A graph that cannot be written as Java (it calls a live module) gives a comment saying why.
     */
    static String source(GraphModule gm, List<Object> inputs, String backend) {
        List<Object> recorded = small(inputs) ? inputs : null;
        try {
            return JavaSourceGen.generate(gm, "fx_graph_runnable", recorded, MAIN.formatted(backend.replace("\\", "\\\\").replace("\"", "\\\"")));
        } catch (IllegalArgumentException e) {
            return "// Ember could not write this graph as a runnable repro: " + e.getMessage().replace("\n", "\n// ") + "\n";
        }
    }

    private static boolean small(List<Object> inputs) {
        if (inputs == null) return false;
        long elements = 0;
        for (Object x : inputs) {
            if (x == null) return false;
            if (x instanceof Tensor t) elements += t.numel();
        }
        return elements <= MAX_RECORDED_ELEMENTS;
    }

    /** Runs the graph twice, each time on fresh inputs (a graph may write its inputs in place). */
    private static final String MAIN = """
                /** Runs the graph with backend '%1$s' and with eager, and compares: exit code 0 when they agree, 1 when not. */
                public static void main(String[] args) {
                    String backend = "%1$s";
                    GraphModule gm = build();
                    List<FakeTensor> fakes = new ArrayList<>();
                    for (Node p : gm.graph().placeholders()) fakes.add(p.val() instanceof Tensor t ? FakeTensor.like(t) : null);
                    Object expected = gm.run(inputs());
                    Object actual = dev.ember.fx.Backends.get(backend).compile(gm, fakes).run(inputs());
                    System.exit(dev.ember.debug.ReproCheck.report(expected, actual, backend, System.out));
                }
            """;

}
