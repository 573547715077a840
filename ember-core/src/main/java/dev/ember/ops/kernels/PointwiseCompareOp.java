package dev.ember.ops.kernels;

/** Comparisons of two operands of one dtype, giving bool. */
public enum PointwiseCompareOp {
    EQ, NE, LT, LE, GT, GE;

    /** The comparison with its operands swapped: {@code a < b} is {@code b > a}. */
    PointwiseCompareOp mirrored() {
        return switch (this) {
            case LT -> GT;
            case LE -> GE;
            case GT -> LT;
            case GE -> LE;
            case EQ, NE -> this;
        };
    }
}
