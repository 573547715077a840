package dev.ember.inductor.runtime;

/** Math the JDK lacks, called by generated kernels. */
public final class KernelMath {
    private KernelMath() {}

    private static final double SQRT1_2 = 0.7071067811865476;
    private static final double SQRT_2_OVER_PI = 0.7978845608028654;

    /**
     * The error function, to about 1e-15 relative error: a Taylor series near zero and
     * Lentz's continued fraction for erfc further out (no table, no allocation).
     */
    public static double erf(double x) {
        if (Double.isNaN(x)) return x;
        double ax = Math.abs(x);
        if (ax < 2.5) {
            double term = ax, sum = ax, x2 = ax * ax;
            for (int n = 1; n < 60; n++) {
                term *= -x2 / n;
                double add = term / (2 * n + 1);
                sum += add;
                if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
            }
            double r = 2 / Math.sqrt(Math.PI) * sum;
            return x < 0 ? -r : r;
        }
        if (ax > 6) return x < 0 ? -1 : 1;
        // erfc(z) = exp(-z²)/√π · 1/(z + 1/2/(z + 1/(z + 3/2/(z + …)))), evaluated by modified Lentz.
        double tiny = 1e-300, f = ax, c = ax, d = 0;
        for (int n = 1; n < 200; n++) {
            double a = n * 0.5;
            d = ax + a * d;
            d = Math.abs(d) < tiny ? tiny : d;
            c = ax + a / c;
            c = Math.abs(c) < tiny ? tiny : c;
            d = 1 / d;
            double delta = c * d;
            f *= delta;
            if (Math.abs(delta - 1) < 1e-16) break;
        }
        double erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / f;
        return x < 0 ? erfc - 1 : 1 - erfc;
    }

    /** gelu with approximate='none': {@code x·Φ(x)}. */
    public static double gelu(double x) { return 0.5 * x * (1 + erf(x * SQRT1_2)); }

    /** gelu with approximate='tanh'. */
    public static double geluTanh(double x) { return 0.5 * x * (1 + Math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x))); }
}
