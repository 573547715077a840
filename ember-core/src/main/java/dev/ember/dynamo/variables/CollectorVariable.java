package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

/**
 * A {@code java.util.stream.Collector} made during the trace around a function of the program
 * ({@code Collectors.partitioningBy(predicate)}): {@code Stream.collect} runs it, tracing the
 * function; anything else done with it breaks the graph. (Collectors without a function,
 * {@code Collectors.toList()}, are constants.)
 */
public record CollectorVariable(String name, VariableTracker function) implements VariableTracker {
    @Override
    public Source source() { return null; }

    @Override
    public String describe() { return "Collectors." + name + "() collector"; }
}
