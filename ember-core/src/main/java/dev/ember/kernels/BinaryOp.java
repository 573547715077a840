package dev.ember.kernels;

/**
 * Elementwise functions of two operands: the one vocabulary the eager kernels and the inductor's
 * generated code share (see {@link UnaryOp}). Arithmetic computes in the operands' dtype;
 * comparisons ({@link #isComparison()}) and the logical ops give bool. A function that is more than
 * one instruction has its formula written once in {@link ScalarMath} (and, where lanes can compute
 * it, {@link VectorMath}) under the name {@link #formula()}.
 */
public enum BinaryOp {
    ADD(null), SUB(null), MUL(null),
    /** True division (floating dtypes only). */
    DIV(null),
    /** {@code a + alpha * b}: add and sub with an alpha other than 1 (eager kernels only; the inductor multiplies). */
    ADD_SCALED(null),
    /** NaN-propagating maximum. */
    MAX(null),
    /** NaN-propagating minimum. */
    MIN(null),
    /** Division rounded toward zero; an integer zero divisor raises ZeroDivisionError. */
    DIV_TRUNC("divTrunc"),
    /** Division rounded toward negative infinity (Python's {@code //}); an integer zero divisor raises ZeroDivisionError. */
    DIV_FLOOR("divFloor"),
    /** C's {@code pow} (not Java's: {@code pow(1, NaN) = 1}); ATen's powi for integers. */
    POW("pow"),
    /** Remainder with the divisor's sign (Python's {@code %}); an integer zero divisor raises ZeroDivisionError. */
    REMAINDER("remainder"),
    /** Remainder with the dividend's sign (C's {@code fmod}); an integer zero divisor raises ZeroDivisionError. */
    FMOD("fmod"),
    /** GELU's gradient {@code a * gelu'(b)} (erf form): a is the output's gradient, b the input. */
    GELU_BACKWARD("geluBackward"),
    /** GELU's gradient {@code a * gelu'(b)} (tanh approximation). */
    GELU_TANH_BACKWARD("geluTanhBackward"),
    /** The angle of the point (b, a): C's {@code atan2(a, b)}. */
    ATAN2("atan2"),
    EQ(null), NE(null), LT(null), LE(null), GT(null), GE(null),
    /** Logical and/or of truth values (non-zero is true), giving bool. */
    AND(null), OR(null),
    /** Bitwise and/or/xor of integers, or of bools (0 or 1): Java's {@code &}, {@code |}, {@code ^}. */
    BITWISE_AND(null), BITWISE_OR(null), BITWISE_XOR(null);

    private final String formula;

    BinaryOp(String formula) { this.formula = formula; }

    /** The name of the {@link ScalarMath} (and {@link VectorMath}) method computing this op, or null for a single instruction. */
    public String formula() { return formula; }

    /** True when floating dtypes have an eager SIMD loop for this op. */
    public boolean vectorizable() { return ordinal() <= MIN.ordinal(); }

    public boolean isComparison() { return ordinal() >= EQ.ordinal() && ordinal() <= GE.ordinal(); }

    /** The comparison with its operands swapped: {@code a < b} is {@code b > a}. */
    BinaryOp mirrored() {
        return switch (this) {
            case LT -> GT;
            case LE -> GE;
            case GT -> LT;
            case GE -> LE;
            case EQ, NE -> this;
            default -> throw new IllegalStateException(this + " is not a comparison");
        };
    }
}
