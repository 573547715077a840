package dev.ember.dynamo;

/** What a backend makes of a graph: a function from the graph's input tensors to its output tensors. */
@FunctionalInterface
public interface CompiledGraph {
    /** Runs the graph; {@code inputs} are in placeholder order, the result in output order. */
    Object[] run(Object[] inputs);
}
