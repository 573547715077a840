package dev.ember.kernels;

/**
 * The per-element formulas of {@link UnaryOp} and {@link BinaryOp}, named by their
 * {@code formula()}: the eager kernels' loops call them, and the inductor's generated code calls
 * the same methods, so a formula is written once. ATen's (C's) special-value rules where Java's
 * differ. float32 versions compute in double and round once (exact for the operations IEEE rounds
 * correctly: a double holds the float result of +, −, ×, ÷ and √ before its one rounding); where
 * ATen rounds an intermediate to float ({@code divTrunc}, {@code divFloor}), so do they.
 * Integer divisions raise ATen's ZeroDivisionError for a zero divisor.
 */
public final class ScalarMath {
    private ScalarMath() {}

    private static final double TWO_OVER_SQRT_PI = 1.1283791670955126;
    private static final double SQRT_HALF = 0.7071067811865476;
    private static final double SQRT_TWO_OVER_PI = 0.7978845608028654;
    private static final double GELU_KAPPA = 0.044715;
    private static final double LN_2 = Math.log(2);
    /** 1/√(2π): the standard normal density's scale. */
    private static final double GELU_PDF_SCALE = 0.3989422804014327;

    /** erf is tabulated at x0 = k / 16 on [0, 6]; beyond 6 it is ±1 to double precision. */
    private static final int NODES_PER_UNIT = 16;
    private static final double ERF_ONE_BEYOND = 6;
    private static final double[] ERF_AT = new double[(int) ERF_ONE_BEYOND * NODES_PER_UNIT + 1];
    private static final double[] ERF_SLOPE_AT = new double[ERF_AT.length];

    static {
        for (int k = 0; k < ERF_AT.length; k++) {
            double x = (double) k / NODES_PER_UNIT;
            ERF_AT[k] = erfSeries(x);
            ERF_SLOPE_AT[k] = TWO_OVER_SQRT_PI * Math.exp(-x * x);
        }
    }

    /** erf(x) = (2x/√π) e^(−x²) Σ (2x²)^n / (2n+1)!!: every term positive, so nothing cancels. */
    private static double erfSeries(double x) {
        double x2 = 2 * x * x, term = 1, sum = 1;
        for (int n = 0; term > sum * 1e-18; n++) {
            term *= x2 / (2 * n + 3);
            sum += term;
        }
        return TWO_OVER_SQRT_PI * x * Math.exp(-x * x) * sum;
    }

    /**
     * The error function to within a few ulps: a Taylor expansion around the nearest tabulated
     * node x0, whose derivatives are Hermite polynomials, erf^(n+1)(x0) = (−1)^n H_n(x0) erf'(x0).
     * With |h| ≤ 1/32 twelve terms reach double precision.
     */
    public static double erf(double x) {
        double ax = Math.abs(x);
        if (!(ax < ERF_ONE_BEYOND)) return Double.isNaN(x) ? x : Math.copySign(1.0, x);
        int k = (int) (ax * NODES_PER_UNIT + 0.5);
        double x0 = (double) k / NODES_PER_UNIT, h = ax - x0;
        double hermitePrev = 0, hermite = 1, power = h, sum = h;
        for (int n = 1; n <= 12; n++) {
            double next = 2 * x0 * hermite - 2 * (n - 1) * hermitePrev;
            hermitePrev = hermite;
            hermite = next;
            power *= -h / (n + 1);
            sum += hermite * power;
        }
        return Math.copySign(ERF_AT[k] + ERF_SLOPE_AT[k] * sum, x);
    }

    // ---------------------------------------------------------------- double

    public static double exp(double x) { return Math.exp(x); }

    public static double log(double x) { return Math.log(x); }

    public static double log1p(double x) { return Math.log1p(x); }

    public static double sin(double x) { return Math.sin(x); }

    public static double cos(double x) { return Math.cos(x); }

    public static double tanh(double x) { return Math.tanh(x); }

    public static double sigmoid(double x) { return 1 / (1 + Math.exp(-x)); }

    public static double silu(double x) { return x / (1 + Math.exp(-x)); }

    public static double gelu(double x) { return x * 0.5 * (1 + erf(x * SQRT_HALF)); }

    public static double geluTanh(double x) { return 0.5 * x * (1 + Math.tanh(SQRT_TWO_OVER_PI * (x + GELU_KAPPA * x * x * x))); }

    /** ATen's GeluBackwardKernelImpl (erf form): {@code dy * (cdf(x) + x * pdf(x))}. */
    public static double geluBackward(double dy, double x) {
        double cdf = 0.5 * (1 + erf(x * SQRT_HALF));
        double pdf = GELU_PDF_SCALE * Math.exp(-0.5 * x * x);
        return dy * (cdf + x * pdf);
    }

    /** ATen's GeluBackwardKernelImpl (tanh approximation), term for term. */
    public static double geluTanhBackward(double dy, double x) {
        double xSq = x * x, xCube = xSq * x;
        double inner = SQRT_TWO_OVER_PI * (x + GELU_KAPPA * xCube);
        double tanhInner = Math.tanh(inner);
        double left = 0.5 * x, right = 1 + tanhInner;
        double leftDerivative = 0.5 * right;
        double rightDerivative = left * (1 - tanhInner * tanhInner) * SQRT_TWO_OVER_PI * (1 + 3 * GELU_KAPPA * xSq);
        return dy * (leftDerivative + rightDerivative);
    }

    public static double rsqrt(double x) { return 1 / Math.sqrt(x); }

    public static double floor(double x) { return Math.floor(x); }

    public static double ceil(double x) { return Math.ceil(x); }

    /** Half to even, as C's {@code nearbyint} in the default rounding mode (ATen's round). */
    public static double round(double x) { return Math.rint(x); }

    /** Toward zero; −0.5 gives −0.0, as C's {@code trunc}. */
    public static double trunc(double x) { return x < 0 ? Math.ceil(x) : Math.floor(x); }

    public static double tan(double x) { return Math.tan(x); }

    public static double atan(double x) { return Math.atan(x); }

    public static double asin(double x) { return Math.asin(x); }

    public static double acos(double x) { return Math.acos(x); }

    public static double sinh(double x) { return Math.sinh(x); }

    public static double cosh(double x) { return Math.cosh(x); }

    /** 2^28: beyond it x² ± 1 is x² in double; below 2^−28 asinh(x) and atanh(x) are x. */
    private static final double TWO_28 = 0x1p28;

    /** fdlibm's asinh (Math has none): log1p near 0, where log(x + √(x² + 1)) cancels; log(2|x|) far out, where x² overflows. */
    public static double asinh(double x) {
        double ax = Math.abs(x), w;
        if (!(ax >= 0x1p-28) || Double.isInfinite(ax)) return x;
        if (ax > TWO_28) w = Math.log(ax) + LN_2;
        else if (ax > 2) w = Math.log(2 * ax + 1 / (Math.sqrt(x * x + 1) + ax));
        else {
            double t = x * x;
            w = Math.log1p(ax + t / (1 + Math.sqrt(1 + t)));
        }
        return Math.copySign(w, x);
    }

    /** fdlibm's acosh: NaN below 1, log1p of x − 1 near 1 (no cancellation), log(2x) far out. */
    public static double acosh(double x) {
        if (!(x >= 1)) return Double.NaN;
        if (x > TWO_28) return Double.isInfinite(x) ? x : Math.log(x) + LN_2;
        if (x > 2) return Math.log(2 * x - 1 / (x + Math.sqrt(x * x - 1)));
        double t = x - 1;
        return Math.log1p(t + Math.sqrt(2 * t + t * t));
    }

    /** fdlibm's atanh: ±inf at ±1, NaN beyond, ½·log1p(2x/(1 − x)) written so that small x keeps its digits. */
    public static double atanh(double x) {
        double ax = Math.abs(x);
        if (!(ax <= 1)) return Double.NaN;
        if (ax == 1) return x / 0.0;
        if (ax < 0x1p-28) return x;
        double t = ax < 0.5 ? 0.5 * Math.log1p(2 * ax + 2 * ax * ax / (1 - ax)) : 0.5 * Math.log1p(2 * ax / (1 - ax));
        return Math.copySign(t, x);
    }

    public static double expm1(double x) { return Math.expm1(x); }

    public static double exp2(double x) { return Math.pow(2, x); }

    /** log(x) / log(2) in double: within an ulp of C's log2, and exact at powers of two (ATen's float32 log2 rounds it once). */
    public static double log2(double x) {
        int exponent = Math.getExponent(x);
        // a power of two (normal) gives its exponent exactly; the quotient of logs may miss it by an ulp
        if (x > 0 && exponent >= Double.MIN_EXPONENT && exponent <= Double.MAX_EXPONENT && x == Math.scalb(1.0, exponent)) return exponent;
        return Math.log(x) / LN_2;
    }

    public static double log10(double x) { return Math.log10(x); }

    public static double atan2(double a, double b) { return Math.atan2(a, b); }

    /** {@code x < 0 ? 0 : x}: NaN and −0.0 pass through, as ATen's relu (Math.max would turn −0.0 into 0.0). */
    public static double relu(double x) { return x < 0 ? 0 : x; }

    /** The quotient rounded toward zero. */
    public static double divTrunc(double a, double b) {
        double q = a / b;
        return q < 0 ? Math.ceil(q) : Math.floor(q);
    }

    /** c10's div_floor_floating: floor of the exact quotient, computed from fmod so it never rounds up across an integer. */
    public static double divFloor(double a, double b) {
        if (b == 0) return a / b;
        double mod = a % b;
        double div = (a - mod) / b;
        if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
        if (div == 0) return Math.copySign(0.0, a / b);
        double floor = Math.floor(div);
        return div - floor > 0.5 ? floor + 1 : floor;
    }

    /** ATen's remainder: C's fmod (Java's {@code %}), moved by one divisor when its sign differs from the divisor's. */
    public static double remainder(double a, double b) {
        double mod = a % b;
        return mod != 0 && (b < 0) != (mod < 0) ? mod + b : mod;
    }

    /** C's fmod: Java's {@code %} on doubles is exactly it. */
    public static double fmod(double a, double b) { return a % b; }

    /** C's pow: unlike Java's, {@code pow(1, NaN)} and {@code pow(-1, ±inf)} are 1. */
    public static double pow(double a, double b) {
        if (a == 1 || a == -1 && Double.isInfinite(b)) return 1;
        return Math.pow(a, b);
    }

    // ---------------------------------------------------------------- float

    /** Float exp, sin, cos, sigmoid, silu and gelu are {@link VectorMath}'s formulas lane for lane: scalar and vector loops round them the same. */
    public static float exp(float x) { return VectorMath.exp(x); }

    public static float log(float x) { return VectorMath.log(x); }

    public static float log1p(float x) { return VectorMath.log1p(x); }

    public static float sin(float x) { return VectorMath.sin(x); }

    public static float cos(float x) { return VectorMath.cos(x); }

    public static float tanh(float x) { return VectorMath.tanh(x); }

    public static float sigmoid(float x) { return VectorMath.sigmoid(x); }

    public static float silu(float x) { return VectorMath.silu(x); }

    public static float gelu(float x) { return VectorMath.gelu(x); }

    public static float geluTanh(float x) { return VectorMath.geluTanh(x); }

    public static float geluBackward(float dy, float x) { return (float) geluBackward((double) dy, (double) x); }

    public static float geluTanhBackward(float dy, float x) { return (float) geluTanhBackward((double) dy, (double) x); }

    public static float pow(float a, float b) { return (float) pow((double) a, (double) b); }

    public static float pow(float a, double b) { return (float) pow((double) a, b); }

    public static float erf(float x) { return (float) erf((double) x); }

    public static float rsqrt(float x) { return 1 / (float) Math.sqrt(x); }

    public static float floor(float x) { return (float) Math.floor(x); }

    public static float ceil(float x) { return (float) Math.ceil(x); }

    public static float round(float x) { return (float) Math.rint(x); }

    public static float trunc(float x) { return (float) trunc((double) x); }

    public static float tan(float x) { return (float) Math.tan(x); }

    public static float atan(float x) { return (float) Math.atan(x); }

    public static float asin(float x) { return (float) Math.asin(x); }

    public static float acos(float x) { return (float) Math.acos(x); }

    public static float sinh(float x) { return (float) Math.sinh(x); }

    public static float cosh(float x) { return (float) Math.cosh(x); }

    public static float asinh(float x) { return (float) asinh((double) x); }

    public static float acosh(float x) { return (float) acosh((double) x); }

    public static float atanh(float x) { return (float) atanh((double) x); }

    public static float expm1(float x) { return (float) Math.expm1(x); }

    public static float exp2(float x) { return (float) Math.pow(2, x); }

    public static float log2(float x) { return (float) log2((double) x); }

    public static float log10(float x) { return (float) Math.log10(x); }

    public static float atan2(float a, float b) { return (float) Math.atan2(a, b); }

    public static float relu(float x) { return x < 0 ? 0 : x; }

    /** In float, as ATen's {@code trunc(a / b)}: the quotient rounds to float before it is truncated. */
    public static float divTrunc(float a, float b) {
        float q = a / b;
        return (float) (q < 0 ? Math.ceil(q) : Math.floor(q));
    }

    /** The double version's steps in float, as c10 computes them in the operands' type. */
    public static float divFloor(float a, float b) {
        if (b == 0) return a / b;
        float mod = a % b;
        float div = (a - mod) / b;
        if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
        if (div == 0) return Math.copySign(0f, a / b);
        float floor = (float) Math.floor(div);
        return div - floor > 0.5f ? floor + 1 : floor;
    }

    public static float remainder(float a, float b) {
        float mod = a % b;
        return mod != 0 && (b < 0) != (mod < 0) ? mod + b : mod;
    }

    public static float fmod(float a, float b) { return a % b; }

    // ---------------------------------------------------------------- integers

    public static int relu(int x) { return Math.max(x, 0); }

    public static long relu(long x) { return Math.max(x, 0); }

    /** ATen's integer division by zero raises ZeroDivisionError; the eager kernels check the divisor first and throw the same. */
    static ArithmeticException zeroDivision() { return new ArithmeticException("ZeroDivisionError"); }

    public static int divTrunc(int a, int b) { if (b == 0) throw zeroDivision(); return a / b; }

    public static long divTrunc(long a, long b) { if (b == 0) throw zeroDivision(); return a / b; }

    public static int divFloor(int a, int b) { if (b == 0) throw zeroDivision(); return Math.floorDiv(a, b); }

    public static long divFloor(long a, long b) { if (b == 0) throw zeroDivision(); return Math.floorDiv(a, b); }

    public static int remainder(int a, int b) { if (b == 0) throw zeroDivision(); return Math.floorMod(a, b); }

    public static long remainder(long a, long b) { if (b == 0) throw zeroDivision(); return Math.floorMod(a, b); }

    public static int fmod(int a, int b) { if (b == 0) throw zeroDivision(); return a % b; }

    public static long fmod(long a, long b) { if (b == 0) throw zeroDivision(); return a % b; }

    /** Integers are already integral: floor, ceil, round and trunc give them back (ATen clones them). */
    public static int floor(int x) { return x; }

    public static long floor(long x) { return x; }

    public static int ceil(int x) { return x; }

    public static long ceil(long x) { return x; }

    public static int round(int x) { return x; }

    public static long round(long x) { return x; }

    public static int trunc(int x) { return x; }

    public static long trunc(long x) { return x; }

    public static int pow(int a, int b) { return (int) powi(a, b); }

    public static long pow(long a, long b) { return powi(a, b); }

    /** ATen's powi: exponentiation by squaring, wrapping like C; negative exponents give 0 except for bases ±1. */
    public static long powi(long a, long b) {
        if (b < 0) {
            if (a == 1) return 1;
            if (a == -1) return (-b) % 2 != 0 ? -1 : 1;
            return 0;
        }
        long result = 1;
        while (b != 0) {
            if ((b & 1) != 0) result *= a;
            b /= 2;
            a *= a;
        }
        return result;
    }
}
