package dev.ember.fx;


/** What a backend makes of a graph: a function from the graph's input tensors to its output tensors. */
@FunctionalInterface
public interface CompiledGraph {
    /** Runs the graph; {@code inputs} are in placeholder order, the result in output order. */
    Object[] run(Object[] inputs);

    /**
     * The code the backend generated, readable (what {@code EMBER_LOGS=output_code} prints and the debug
     * folder keeps as output_code.java), or null when it runs the graph without generating code.
     */
    default String outputCode() { return null; }

    /**
     * True when running it records autograd history on its outputs (it runs ops one by one, or it
     * is a compiled training graph): false for generated code, whose outputs would carry none.
     */
    default boolean recordsAutograd() { return false; }

    /** The graph after the backend's passes and decompositions, or null when it ran none. */
    default GraphModule transformedGraph() { return null; }

    /** This compiled graph, reporting {@code transformed} (asked for only when someone reads it) as its transformed graph. */
    default CompiledGraph withTransformedGraph(java.util.function.Supplier<GraphModule> transformed) {
        CompiledGraph self = this;
        return new CompiledGraph() {
            @Override
            public Object[] run(Object[] inputs) { return self.run(inputs); }

            @Override
            public String outputCode() { return self.outputCode(); }

            @Override
            public GraphModule transformedGraph() { return transformed.get(); }

            @Override
            public boolean recordsAutograd() { return self.recordsAutograd(); }
        };
    }
}
