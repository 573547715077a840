package dev.ember.dynamo;

import dev.ember.tensor.Tensor;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * What {@code Ember.markDynamic} and {@code markStatic} said about a tensor's dimensions, kept
 * beside the tensor (weakly: marks die with it), as PyTorch keeps them on the tensor itself.
 */
public final class DimMarks {
    private DimMarks() {}

    /** A dimension marked dynamic, valid for sizes in [min, max]; or marked static. */
    public record Mark(boolean dynamic, long min, long max) {}

    private static final Map<Tensor, Map<Integer, Mark>> MARKS = Collections.synchronizedMap(new WeakHashMap<>());

    public static void markDynamic(Tensor t, int dim, long min, long max) {
        int d = checkDim(t, dim, "markDynamic");
        if (min < 0 || max < min) throw new IllegalArgumentException("markDynamic(" + t.describe() + ", " + dim + "): the range [" + min + ", " + max + "] is empty or negative");
        int size = t.size(d);
        if (size < min || size > max) {
            throw new IllegalArgumentException("markDynamic(" + t.describe() + ", " + dim + ", " + min + ", " + max + "): its size now, " + size
                    + ", is outside the range; the first compile traces with this tensor");
        }
        MARKS.computeIfAbsent(t, k -> new HashMap<>()).put(d, new Mark(true, min, max));
    }

    public static void markStatic(Tensor t, int dim) {
        MARKS.computeIfAbsent(t, k -> new HashMap<>()).put(checkDim(t, dim, "markStatic"), new Mark(false, 0, 0));
    }

    /** Removes the mark on {@code t}'s dimension {@code dim}, if any. */
    public static void unmark(Tensor t, int dim) {
        Map<Integer, Mark> m = MARKS.get(t);
        if (m != null) m.remove(dim);
    }

    /** The mark on {@code t}'s dimension {@code dim}, or null. */
    static Mark of(Tensor t, int dim) {
        Map<Integer, Mark> m = MARKS.get(t);
        return m == null ? null : m.get(dim);
    }

    private static int checkDim(Tensor t, int dim, String what) {
        if (t == null) throw new NullPointerException(what + ": the tensor is null");
        if (dim < -t.dim() || dim >= t.dim()) {
            throw new IllegalArgumentException(what + ": dimension " + dim + " is out of range for " + t.describe() + " (" + t.dim() + " dimensions)");
        }
        return dim < 0 ? dim + t.dim() : dim;
    }
}
