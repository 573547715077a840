package dev.ember.debug;

import dev.ember.events.CompileEvent;
import dev.ember.events.CompileEvents;

import java.util.List;
import java.util.function.Consumer;

/**
 * The standard subscribers of the compile events, in the order they run: logs, structured trace,
 * compilation metrics, debug folder, profiler. {@link CompileEvents} finds them through
 * {@code META-INF/services}, so the stages that publish never import this one. The order keeps each
 * output as it was when the compiler wrote to them by hand: within the trace, an event's own record
 * comes before the metrics and the profiler's timeline it closes; within the log output, a graph
 * break's lines come before the debug folder's first-write notice.
 */
public final class CompileSinks implements CompileEvents.Provider {
    @Override
    public List<Consumer<CompileEvent>> sinks() {
        return List.of(CompileLogs::accept, CompileTrace::accept, CompileMetrics::accept, CompileDebug::accept, CompileProfiler::accept);
    }
}
