package dev.ember.debug;

import dev.ember.events.CompileEvent;
import dev.ember.events.CompileEvent.EagerFallback;
import dev.ember.events.CompileEvent.FrameCompiled;
import dev.ember.events.CompileEvent.FrameFailed;
import dev.ember.events.CompileEvent.FrameStarted;
import dev.ember.events.CompileEvent.GraphCompiled;
import dev.ember.events.CompileEvent.Phase;
import dev.ember.events.CompileEvent.PhaseEnded;
import dev.ember.events.CompileEvent.Restart;
import dev.ember.events.UserFrame;
import dev.ember.logging.CompilationMetrics;
import dev.ember.logging.CompileContext;
import dev.ember.logging.Trace;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Each compile's {@link CompilationMetrics}, gathered from its events and written to the structured
 * trace once, when the compile's outcome is known: its graph compiled, its frame running eagerly, or
 * its failure. Compiles on one thread nest, so what is gathered is a stack.
 */
final class CompileMetrics {
    private CompileMetrics() {}

    private static final class Open {
        final FrameStarted started;
        final CompilationMetrics metrics;
        final long start = System.nanoTime();
        Duration backend = Duration.ZERO;
        boolean written;

        Open(FrameStarted f) {
            this.started = f;
            this.metrics = new CompilationMetrics().function(f.firstLine().methodName(), f.firstLine().fileName(), f.firstLine().line())
                    .cacheSize(f.cacheSize(), f.accumulatedCacheSize()).startTime(f.startTime());
        }

        void write() {
            written = true;
            Trace.compilationMetrics(metrics.entireFrameCompileTime(Duration.ofNanos(System.nanoTime() - start)));
        }
    }

    private static final ThreadLocal<Deque<Open>> OPEN = ThreadLocal.withInitial(ArrayDeque::new);

    static void accept(CompileEvent event) {
        Deque<Open> open = OPEN.get();
        switch (event) {
            case FrameStarted f -> open.push(new Open(f));
            case Restart r when open.peek() != null -> {
                // the attempt that ended gets its metrics, with why; the next attempt gathers its own
                Open o = open.pop();
                o.metrics.restartReason(r.reason()).dynamoTimeBeforeRestart(Duration.ofNanos(System.nanoTime() - o.start));
                try (var scope = CompileContext.enter(r.restarted())) {
                    o.write();
                }
                open.push(new Open(o.started));
            }
            case PhaseEnded p when open.peek() != null -> {
                if (p.phase() == Phase.TRACING) open.peek().metrics.tracingTime(p.elapsed());
                if (p.phase() == Phase.BACKEND) open.peek().backend = p.elapsed();
            }
            case GraphCompiled g when open.peek() != null -> {
                Open o = open.peek();
                o.metrics.counts(g.guards(), g.ops(), g.graph().graph().size(), g.inputs()).backendCompileTime(o.backend);
                o.write();
            }
            case EagerFallback e when open.peek() != null -> {
                failure(open.peek(), "Unsupported", e.gbId() + ": " + e.reason(), e.userFrame());
            }
            case FrameFailed f when open.peek() != null -> {
                Open o = open.pop();
                if (!o.written) failure(o, f.error().getClass().getSimpleName(), f.reason(), f.userFrame());
            }
            case FrameCompiled f -> open.poll();
            default -> { }
        }
    }

    private static void failure(Open o, String type, String reason, UserFrame at) {
        o.metrics.failure(type, reason, at == null ? null : at.fileName(), at == null ? -1 : at.line());
        o.write();
    }
}
