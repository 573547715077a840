package dev.ember.debug.fuzz;

import java.util.ArrayList;
import java.util.Collections;

/**
 * A parameter of a generated program and how its argument is made: values from a seeded
 * generator, laid out contiguously or as a non-contiguous view, or the same tensor as an earlier
 * parameter ({@code aliasOf} its index, -1 when it has its own tensor).
 */
public record Input(Var param, Layout layout, int aliasOf) {
    /** How an argument's memory is laid out. */
    public enum Layout {
        CONTIGUOUS,
        /** The transpose of a contiguous tensor (last two dims swapped). */
        TRANSPOSED,
        /** A narrow of a wider tensor: offset and a row stride larger than the row. */
        SLICED,
        /** A size-1 dim expanded (stride 0): read-only, several elements share one memory location. */
        EXPANDED
    }

    /** The Java expression that makes the argument from generator {@code g}. */
    String maker(String[] earlierNames) {
        if (aliasOf >= 0) return earlierNames[aliasOf];
        TensorType t = param.type();
        int r = t.rank();
        return switch (layout) {
            case CONTIGUOUS -> values(t);
            case TRANSPOSED -> {
                var s = new ArrayList<>(t.shape());
                Collections.swap(s, r - 2, r - 1);
                yield values(t.withShape(s)) + ".transpose(" + (r - 2) + ", " + (r - 1) + ")";
            }
            case SLICED -> {
                var s = new ArrayList<>(t.shape());
                s.set(r - 1, s.get(r - 1) + 2);
                yield values(t.withShape(s)) + ".narrow(" + (r - 1) + ", 1, " + t.size(r - 1) + ")";
            }
            case EXPANDED -> {
                int d = expandedDim(t);
                var s = new ArrayList<>(t.shape());
                s.set(d, 1);
                yield values(t.withShape(s)) + ".expand(" + t.shapeArgs() + ")";
            }
        };
    }

    /** The dim an EXPANDED input broadcasts: its first of size 2 or more. */
    static int expandedDim(TensorType t) {
        for (int d = 0; d < t.rank(); d++) if (t.size(d) > 1) return d;
        throw new IllegalArgumentException("no dim to expand in " + t);
    }

    private static String values(TensorType t) {
        String shape = t.shapeArgs().isEmpty() ? "" : ", " + t.shapeArgs();
        return switch (t.dtype()) {
            case FLOAT32 -> "Tensor.randn(g" + shape + ")";
            case FLOAT64 -> "Tensor.randn(g" + shape + ").to(DType.FLOAT64)";
            case INT64 -> "Tensor.randint(g, -4, 5" + shape + ")";
            case INT32 -> "Tensor.randint(g, -4, 5" + shape + ").to(DType.INT32)";
            case BOOL -> "Tensor.randn(g" + shape + ").gt(0.0)";
        };
    }

    static boolean canUse(Layout layout, TensorType t) {
        return switch (layout) {
            case CONTIGUOUS -> true;
            case TRANSPOSED -> t.rank() >= 2;
            case SLICED -> t.rank() >= 1;
            case EXPANDED -> t.shape().stream().anyMatch(s -> s > 1);
        };
    }
}
