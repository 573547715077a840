package dev.ember.ops.kernels;

/**
 * Elementwise arithmetic on two operands of one dtype. The ops up to {@link #MIN} are one SIMD
 * instruction each and have vector loops for floating dtypes; the rest call a function per element.
 */
public enum PointwiseBinaryOp {
    ADD, SUB, MUL,
    /** True division (floating dtypes only). */
    DIV,
    /** {@code a + alpha * b}: add and sub with an alpha other than 1. */
    ADD_SCALED,
    /** NaN-propagating maximum. */
    MAX,
    /** NaN-propagating minimum. */
    MIN,
    /** Division rounded toward zero; integer division by zero must be ruled out by the caller. */
    DIV_TRUNC,
    /** Division rounded toward negative infinity (Python's {@code //}). */
    DIV_FLOOR,
    POW,
    /** Remainder with the divisor's sign (Python's {@code %}); integer division by zero must be ruled out by the caller. */
    REMAINDER,
    /** Remainder with the dividend's sign (C's {@code fmod}); integer division by zero must be ruled out by the caller. */
    FMOD,
    /** GELU's gradient {@code a * gelu'(b)} (erf form): a is the output's gradient, b the input. */
    GELU_BACKWARD,
    /** GELU's gradient {@code a * gelu'(b)} (tanh approximation). */
    GELU_TANH_BACKWARD;

    /** True when floating dtypes have a SIMD loop for this op. */
    boolean vectorizable() { return ordinal() <= MIN.ordinal(); }
}
