package dev.ember.debug.fuzz;

import java.util.ArrayList;
import java.util.List;

/** Shape arithmetic the generator needs to keep programs well typed (ATen's broadcasting rule). */
final class Shapes {
    private Shapes() {}

    /** The broadcast of two shapes, or null when they are incompatible. */
    static List<Integer> broadcast(List<Integer> a, List<Integer> b) {
        int n = Math.max(a.size(), b.size());
        List<Integer> out = new ArrayList<>(n);
        long numel = 1;
        for (int i = 0; i < n; i++) {
            int x = i < n - a.size() ? 1 : a.get(i - (n - a.size()));
            int y = i < n - b.size() ? 1 : b.get(i - (n - b.size()));
            if (x != y && x != 1 && y != 1) return null;
            out.add(x == 1 ? y : x);
            numel *= x == 1 ? y : x;
        }
        return numel > MAX_BROADCAST_ELEMENTS ? null : out;
    }

    /**
     * No drawn broadcast makes a value larger than this (the big kernels' values stay under a
     * quarter of it). Seed 302426 divided a [1100, 1] column by a flattened [704000] row: eager
     * tried to allocate 774,400,000 doubles and failed, while compiled code, which drops the unused
     * quotient, returned; a resource limit, not a difference of meaning.
     */
    static final long MAX_BROADCAST_ELEMENTS = 1 << 22;

    /** Whether {@code b} broadcasts to exactly {@code target} (what an in-place op's other operand must do). */
    static boolean broadcastsTo(List<Integer> b, List<Integer> target) {
        List<Integer> r = broadcast(target, b);
        return r != null && r.equals(target);
    }

    static List<Integer> without(List<Integer> s, int dim) {
        List<Integer> out = new ArrayList<>(s);
        out.remove(dim);
        return out;
    }

    static List<Integer> with(List<Integer> s, int dim, int size) {
        List<Integer> out = new ArrayList<>(s);
        out.set(dim, size);
        return out;
    }

    static List<Integer> inserted(List<Integer> s, int dim, int size) {
        List<Integer> out = new ArrayList<>(s);
        out.add(dim, size);
        return out;
    }
}
