package dev.ember.ops.kernels;

/**
 * Scalar functions the pointwise loops call per element, with ATen's (C's) special-value rules
 * where Java's differ. float32 versions compute in double and round once.
 */
final class PointwiseMath {
    private PointwiseMath() {}

    private static final double TWO_OVER_SQRT_PI = 1.1283791670955126;
    private static final double SQRT_HALF = 0.7071067811865476;
    private static final double SQRT_TWO_OVER_PI = 0.7978845608028654;
    private static final double GELU_KAPPA = 0.044715;
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
    static double erf(double x) {
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

    static double exp(double x) { return Math.exp(x); }

    static double log(double x) { return Math.log(x); }

    static double log1p(double x) { return Math.log1p(x); }

    static double sin(double x) { return Math.sin(x); }

    static double cos(double x) { return Math.cos(x); }

    static double tanh(double x) { return Math.tanh(x); }

    static double sigmoid(double x) { return 1 / (1 + Math.exp(-x)); }

    static double silu(double x) { return x / (1 + Math.exp(-x)); }

    static double gelu(double x) { return x * 0.5 * (1 + erf(x * SQRT_HALF)); }

    static double geluTanh(double x) { return 0.5 * x * (1 + Math.tanh(SQRT_TWO_OVER_PI * (x + GELU_KAPPA * x * x * x))); }

    /** ATen's GeluBackwardKernelImpl (erf form): {@code dy * (cdf(x) + x * pdf(x))}. */
    static double geluBackward(double dy, double x) {
        double cdf = 0.5 * (1 + erf(x * SQRT_HALF));
        double pdf = GELU_PDF_SCALE * Math.exp(-0.5 * x * x);
        return dy * (cdf + x * pdf);
    }

    /** ATen's GeluBackwardKernelImpl (tanh approximation), term for term. */
    static double geluTanhBackward(double dy, double x) {
        double xSq = x * x, xCube = xSq * x;
        double inner = SQRT_TWO_OVER_PI * (x + GELU_KAPPA * xCube);
        double tanhInner = Math.tanh(inner);
        double left = 0.5 * x, right = 1 + tanhInner;
        double leftDerivative = 0.5 * right;
        double rightDerivative = left * (1 - tanhInner * tanhInner) * SQRT_TWO_OVER_PI * (1 + 3 * GELU_KAPPA * xSq);
        return dy * (leftDerivative + rightDerivative);
    }

    /** C's pow: unlike Java's, {@code pow(1, NaN)} and {@code pow(-1, ±inf)} are 1. */
    static double pow(double a, double b) {
        if (a == 1 || a == -1 && Double.isInfinite(b)) return 1;
        return Math.pow(a, b);
    }

    // ---------------------------------------------------------------- float

    static float exp(float x) { return (float) Math.exp(x); }

    static float log(float x) { return (float) Math.log(x); }

    static float log1p(float x) { return (float) Math.log1p(x); }

    static float sin(float x) { return (float) Math.sin(x); }

    static float cos(float x) { return (float) Math.cos(x); }

    static float tanh(float x) { return (float) Math.tanh(x); }

    static float sigmoid(float x) { return (float) sigmoid((double) x); }

    static float silu(float x) { return (float) silu((double) x); }

    static float gelu(float x) { return (float) gelu((double) x); }

    static float geluTanh(float x) { return (float) geluTanh((double) x); }

    static float geluBackward(float dy, float x) { return (float) geluBackward((double) dy, (double) x); }

    static float geluTanhBackward(float dy, float x) { return (float) geluTanhBackward((double) dy, (double) x); }

    static float pow(float a, float b) { return (float) pow((double) a, (double) b); }

    static float pow(float a, double b) { return (float) pow((double) a, b); }

    // ---------------------------------------------------------------- integers

    /** ATen's powi: exponentiation by squaring, wrapping like C; negative exponents give 0 except for bases ±1. */
    static long powi(long a, long b) {
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
