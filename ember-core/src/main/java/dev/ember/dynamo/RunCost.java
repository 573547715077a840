package dev.ember.dynamo;

import dev.ember.logging.CompileContext;
import dev.ember.logging.CompileId;
import dev.ember.logging.Trace;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * What one cache entry's calls cost at run time, measured only while the structured trace is on
 * ({@code EMBER_TRACE}, {@code ember doctor}) and written into it as {@link Trace#runtimeCost} events
 * when the trace closes: calls, their time, the time checking the entry's guards, and the time run
 * eagerly — between the graph and the resume method after a graph break (the break's cost), or the
 * whole call for an entry that runs eagerly. When tracing is off, a compiled call pays one volatile
 * read ({@link Trace#measuresRunTime}) and an entry holds no cost.
 *
 * <p>Eager time excludes what nested compiled frames take (a resume method's graphs, a helper's
 * frame): each measured frame call adds its whole duration to a per-thread clock of nested time,
 * restoring what its own nested calls added, so an enclosing break subtracts exactly its direct
 * children.
 */
final class RunCost {
    private static final ThreadLocal<long[]> NESTED = ThreadLocal.withInitial(() -> new long[1]);
    private static final Queue<RunCost> ALL = new ConcurrentLinkedQueue<>();

    static {
        Trace.beforeClose(RunCost::writeAll);
    }

    private final CompileId id;
    private final LongAdder calls = new LongAdder();
    private final LongAdder runNanos = new LongAdder();
    private final LongAdder eagerNanos = new LongAdder();
    private final LongAdder guardChecks = new LongAdder();
    private final LongAdder guardNanos = new LongAdder();

    private RunCost(CompileId id) {
        this.id = id;
    }

    /** A cost for the entry compiled by {@code id}, or null when not measuring (or made outside a compile). */
    static RunCost forNewEntry(CompileId id) {
        if (id == null || !Trace.measuresRunTime()) return null;
        RunCost c = new RunCost(id);
        ALL.add(c);
        return c;
    }

    /**
     * A call of {@code frame} while measuring: the cache lookup with each entry's guard check timed,
     * then the hit entry's run timed (a miss compiles as usual).
     */
    static Object run(CompiledFrame frame, FunctionTarget target, Object[] args, Supplier<Object> eager) {
        long[] nested = NESTED.get();
        long outer = nested[0];
        long start = System.nanoTime();
        try {
            for (CacheEntry e : frame.current()) {
                long t = System.nanoTime();
                boolean pass = e.guards().check(args);
                if (e.cost != null) {
                    e.cost.guardNanos.add(System.nanoTime() - t);
                    e.cost.guardChecks.increment();
                }
                if (pass) return e.cost == null ? e.run(args, eager) : e.cost.measure(e, args, eager);
            }
            CacheEntry entry = frame.miss(target, args);
            if (entry == null) return eager.get();
            return entry.cost == null ? entry.run(args, eager) : entry.cost.measure(entry, args, eager);
        } finally {
            nested[0] = outer + (System.nanoTime() - start);
        }
    }

    private Object measure(CacheEntry e, Object[] args, Supplier<Object> eager) {
        long eagerStart = e.isEager() ? eagerStart() : 0;
        long t = System.nanoTime();
        try {
            return e.run(args, eager);
        } finally {
            runNanos.add(System.nanoTime() - t);
            calls.increment();
            if (e.isEager()) eagerEnd(eagerStart);
        }
    }

    /** Opens an eager stretch: the clock to hand to {@link #eagerEnd}. */
    static long eagerStart() {
        return System.nanoTime() - NESTED.get()[0];
    }

    /** Closes an eager stretch opened by {@link #eagerStart}: its time less what nested compiled frames took. */
    void eagerEnd(long start) {
        eagerNanos.add(System.nanoTime() - NESTED.get()[0] - start);
    }

    /**
     * Writes the costs of the entries compiled while this trace was on (entries with no call are
     * left out), and stops collecting them: a later trace measures the entries compiled in it.
     */
    private static void writeAll() {
        for (RunCost c; (c = ALL.poll()) != null; ) {
            long n = c.calls.sum(), checks = c.guardChecks.sum();
            long run = c.runNanos.sum(), eager = c.eagerNanos.sum(), guards = c.guardNanos.sum();
            if (n == 0 && checks == 0) continue;
            try (var scope = CompileContext.enter(c.id)) {
                Trace.runtimeCost(n, run, eager, checks, guards);
            }
        }
    }
}
