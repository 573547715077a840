package dev.ember.ops.kernels;

/**
 * Elementwise functions of one operand. {@link #CLAMP} takes bounds and {@link #POW} an
 * exponent as parameters.
 */
public enum PointwiseUnaryOp {
    NEG, ABS, SQRT, RSQRT, RELU,
    /** NaN-propagating {@code min(max(x, lo), hi)}. */
    CLAMP,
    SQUARE, CUBE, RECIPROCAL,
    /** {@code 1 / (x * x)}: ATen's fast path for {@code pow(x, -2)}. */
    INV_SQUARE,
    EXP, LOG, LOG1P, SIN, COS, TANH, SIGMOID,
    /** GELU with the exact erf form. */
    GELU,
    /** GELU with the tanh approximation. */
    GELU_TANH,
    SILU,
    /** {@code x ** p} for a scalar exponent {@code p}. */
    POW;
}
