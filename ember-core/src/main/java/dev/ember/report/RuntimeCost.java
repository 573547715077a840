package dev.ember.report;

import java.util.Map;

/**
 * What one cache entry's calls cost at run time, as its {@code ember_runtime_cost} events say
 * (docs/trace-format.md); times in seconds.
 *
 * @param calls       calls that ran the entry
 * @param runTime     their time, resume methods included
 * @param eagerTime   time run eagerly: between the graph and the resume method after a graph break, or whole calls of an eager entry
 * @param guardChecks times its guards were checked, passing or not
 * @param guardTime   time checking them
 */
record RuntimeCost(long calls, double runTime, double eagerTime, long guardChecks, double guardTime) {

    static RuntimeCost of(Map<?, ?> m) {
        return new RuntimeCost(count(m.get("calls")), seconds(m.get("run_time_s")), seconds(m.get("eager_time_s")),
                count(m.get("guard_checks")), seconds(m.get("guard_time_s")));
    }

    /** This and {@code other} (null: none) summed: a trace written in parts (stopped and started again) has several events. */
    RuntimeCost plus(RuntimeCost other) {
        if (other == null) return this;
        return new RuntimeCost(calls + other.calls, runTime + other.runTime, eagerTime + other.eagerTime, guardChecks + other.guardChecks,
                guardTime + other.guardTime);
    }

    private static long count(Object v) {
        return v instanceof Number n ? n.longValue() : 0;
    }

    private static double seconds(Object v) {
        return v instanceof Number n ? n.doubleValue() : 0;
    }
}
