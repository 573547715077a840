package dev.ember.logging;

import dev.ember.debug.CompileProfiler;

import java.util.List;

/**
 * A tiny program run in a child JVM by {@link EnvironmentVariablesTest}, so that EMBER_LOGS, EMBER_TRACE and
 * EMBER_COMPILE_PROFILER are read from a real environment: it logs, traces and profiles one fake compilation.
 */
public final class EnvironmentProbe {
    public static void main(String[] args) {
        try (var c = CompileContext.enter(CompileId.of(0, 0)); var f = CompileProfiler.function("Probe.fn")) {
            try (var t = CompileProfiler.phase("tracing")) {
                Log.of("graph_breaks").info(() -> "Graph break in user code at Probe.java:7");
                Trace.dynamoStart(List.of(new TraceFrame("Probe.java", 3, "Probe.fn", null)));
            }
            System.out.println("probe done");
        } catch (IllegalArgumentException e) {
            System.out.println("error: " + e.getMessage());
            System.exit(3);
        }
    }
}
