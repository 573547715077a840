package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

/**
 * An int the trace holds whose value guard waits until the trace needs the value: the int input at
 * {@code source} plus {@code offset} (the input itself, or the input incremented by constants).
 * Reading its value ({@link ConstantVariable#value()}) runs {@code specialize}, which installs the
 * input's EQUALS_MATCH guard; comparing it and adding constants to it do not, so a loop counter
 * carried into a resume method is guarded by the comparisons the trace made of it
 * ({@code L['i'] + 1 < L['n']}), not by its value, and the next iteration reuses the graph.
 */
public record DeferredInt(Source source, int offset, Runnable specialize) {
    /** This int plus {@code c}. */
    public DeferredInt plus(int c) { return new DeferredInt(source, offset + c, specialize); }
}
