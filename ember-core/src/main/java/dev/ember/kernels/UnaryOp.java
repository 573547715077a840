package dev.ember.kernels;

/**
 * Elementwise functions of one operand: the one vocabulary the eager kernels and the inductor's
 * generated code share. A function that is more than one instruction has its formula written once,
 * per element in {@link ScalarMath} and per vector of lanes in {@link VectorMath}, under the name
 * {@link #formula()}; eager loops call those methods and generated code calls the same ones, so an
 * element computes alike in both. The rest ({@link #formula()} null) are one Java operator or one
 * Vector API instruction.
 *
 * <p>{@link #CLAMP}'s bounds and {@link #POW}'s exponent are parameters of the eager kernels; the
 * inductor lowers them to {@link BinaryOp#MAX}/{@link BinaryOp#MIN} and {@link BinaryOp#POW}.
 * {@link #SQUARE}, {@link #CUBE} and {@link #INV_SQUARE} are ATen's fast paths for small integer
 * exponents of {@code pow}.
 */
public enum UnaryOp {
    NEG(null), ABS(null), SQRT(null),
    RSQRT("rsqrt"),
    /** {@code x < 0 ? 0 : x}: NaN and −0.0 pass through, as ATen's. */
    RELU("relu"),
    /** NaN-propagating {@code min(max(x, lo), hi)}. */
    CLAMP(null),
    SQUARE(null), CUBE(null), RECIPROCAL(null),
    /** {@code 1 / (x * x)}: ATen's fast path for {@code pow(x, -2)}. */
    INV_SQUARE(null),
    EXP("exp"), LOG("log"), LOG1P("log1p"), SIN("sin"), COS("cos"), TANH("tanh"),
    SIGMOID("sigmoid"),
    /** GELU with the exact erf form. */
    GELU("gelu"),
    /** GELU with the tanh approximation. */
    GELU_TANH("geluTanh"),
    SILU("silu"),
    ERF("erf"),
    /** Rounding to an integral value: floor, ceil, half to even (C's nearbyint) and toward zero; integers pass through. */
    FLOOR("floor"), CEIL("ceil"), ROUND("round"), TRUNC("trunc"),
    TAN("tan"), ATAN("atan"), ASIN("asin"), ACOS("acos"), SINH("sinh"), COSH("cosh"),
    /** The inverse hyperbolic functions: acosh is NaN below 1, atanh ±inf at ±1 and NaN beyond. */
    ASINH("asinh"), ACOSH("acosh"), ATANH("atanh"),
    EXPM1("expm1"), EXP2("exp2"), LOG2("log2"), LOG10("log10"),
    /** {@code x ** p} for a scalar exponent {@code p}. */
    POW("pow"),
    /** Logical negation of a truth value (non-zero is true), giving bool. */
    NOT(null),
    /** Two's-complement {@code ~x} of an integer (bool's bitwise not is {@link #NOT}). */
    BITWISE_NOT(null);

    private final String formula;

    UnaryOp(String formula) { this.formula = formula; }

    /** The name of the {@link ScalarMath} and {@link VectorMath} methods computing this op, or null for a single instruction. */
    public String formula() { return formula; }
}
