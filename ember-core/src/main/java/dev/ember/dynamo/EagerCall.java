package dev.ember.dynamo;

import dev.ember.dynamo.source.LocalSource;
import dev.ember.dynamo.source.SizeSource;
import dev.ember.logging.Log;
import dev.ember.tensor.Tensor;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * What the eager first call of a method passed under {@code Stance.EAGER_THEN_COMPILE}: each tensor
 * argument's sizes and each int or long argument (null for the rest). The call that compiles next
 * compares its own with them, and what changed is dynamic from that compile on, as a recompile
 * would make it (automatic dynamic) — so the first compile already serves the sizes that vary.
 */
record EagerCall(Object[] values) {
    static EagerCall of(Object[] frame) {
        Object[] v = new Object[frame.length];
        for (int i = 0; i < frame.length; i++) {
            v[i] = switch (frame[i]) {
                case Tensor t -> t.shape();
                case Integer n -> n;
                case Long n -> n;
                case null, default -> null;
            };
        }
        return new EagerCall(v);
    }

    /** Adds to {@code changed} the names (as guards name them) of the ints and sizes of {@code frame} that differ from the first call's. */
    void changesIn(Object[] frame, List<String> names, Set<String> changed) {
        for (int i = 0; i < frame.length && i < values.length; i++) {
            LocalSource local = new LocalSource(i, names.get(i));
            if (values[i] instanceof int[] before && frame[i] instanceof Tensor t && t.dim() == before.length) {
                for (int d = 0; d < before.length; d++) {
                    if (before[d] != t.size(d)) note(new SizeSource(local, d).name(), new SizeSource(local, d).shortName(), changed);
                }
            } else if (values[i] instanceof Number n && (frame[i] instanceof Integer || frame[i] instanceof Long) && n.longValue() != ((Number) frame[i]).longValue()) {
                note(local.name(), local.shortName(), changed);
            }
        }
    }

    private static void note(String name, String shortName, Set<String> changed) {
        if (changed.add(name)) {
            Log.of("dynamic").info(() -> "automatic dynamic: " + shortName + " changed since the eager first call (stance eager_then_compile);"
                    + " it is dynamic from this first compile on");
        }
    }

    @Override
    public String toString() { return "EagerCall" + Arrays.deepToString(values); }
}
