package dev.ember.dynamo.guards;

import java.util.ArrayList;
import java.util.List;

/**
 * A cache entry's guards compiled for the hot path (one generated hidden class, see
 * {@link GuardCompiler}), checked in order, stopping at the first failure, with no allocation. Order matters: a container's TYPE_MATCH and LENGTH_CHECK come
 * before guards on its elements, so reading an element never goes out of bounds.
 */
public final class GuardSet {
    private final Guard[] guards;
    private final GuardCompiler.GuardCheck compiled;

    public GuardSet(List<Guard> guards) {
        this.guards = guards.toArray(Guard[]::new);
        this.compiled = GuardCompiler.compile(guards);
    }

    public List<Guard> guards() { return List.of(guards); }

    public int size() { return guards.length; }

    /** True when every guard passes for this call's frame. */
    public boolean check(Object[] frame) {
        try {
            return compiled.check(frame);
        } catch (RuntimeException e) {
            // A source that cannot be read any more (a field now null, a shorter list) is a failed guard.
            return false;
        }
    }

    /** The first failing guard's explanation, or null when all pass. */
    public String firstFailure(Object[] frame) {
        for (Guard g : guards) {
            String why = explain(g, frame);
            if (why != null) return why;
        }
        return null;
    }

    /** The guards that fail for this call's frame (a guard whose source cannot be read fails). */
    public List<Guard> failing(Object[] frame) {
        List<Guard> out = new ArrayList<>();
        for (Guard g : guards) if (explain(g, frame) != null) out.add(g);
        return out;
    }

    /** Every failing guard's explanation (for verbose recompile logs). */
    public List<String> allFailures(Object[] frame) {
        List<String> out = new ArrayList<>();
        for (Guard g : guards) {
            String why = explain(g, frame);
            if (why != null) out.add(why);
        }
        return out;
    }

    private static String explain(Guard g, Object[] frame) {
        try {
            Object v = g.read(frame);
            return g.test(v) ? null : g.explainFailure(v);
        } catch (RuntimeException e) {
            // a source read while testing (a symbolic shape's sizes) may be gone too: a field of another lambda class
            return "cannot read " + (g.source() == null ? g.kind() : g.source().name()) + ": " + e;
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Guard g : guards) sb.append(g.describe()).append('\n');
        return sb.toString();
    }
}
