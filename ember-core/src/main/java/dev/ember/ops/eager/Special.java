package dev.ember.ops.eager;

/**
 * The special functions behind erfc, erfinv, lgamma, digamma and polygamma(1), in double, with
 * ATen's values at the poles and edges: erfc by its Maclaurin series near 0 and its continued
 * fraction beyond, erfinv by Newton's method on erf/erfc from a rational first guess, lgamma by
 * the Lanczos approximation (g = 7) with the reflection formula below 1/2, digamma and trigamma by
 * recurrence up to 10 and their asymptotic series there.
 */
public final class Special {
    private Special() {}

    private static final double TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);

    /** erf(x) for |x| < 2.5 by its Maclaurin series (alternating; a few digits lost at the end of the range). */
    private static double erfSeries(double x) {
        double term = x, sum = x, x2 = x * x;
        for (int n = 1; n < 200; n++) {
            term *= -x2 / n;
            double add = term / (2 * n + 1);
            sum += add;
            if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
        }
        return TWO_OVER_SQRT_PI * sum;
    }

    /** erfc(x) for x ≥ 2.5 by its continued fraction (modified Lentz). */
    private static double erfcFraction(double x) {
        // erfc(x) = exp(-x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …)))))
        double tiny = 1e-300, f = x, c = x, d = 0;
        for (int k = 1; k < 500; k++) {
            double a = k / 2.0;
            d = x + a * d;
            d = d == 0 ? tiny : d;
            c = x + a / c;
            c = c == 0 ? tiny : c;
            d = 1 / d;
            double delta = c * d;
            f *= delta;
            if (Math.abs(delta - 1) < 1e-16) break;
        }
        return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
    }

    public static double erfc(double x) {
        if (Double.isNaN(x)) return x;
        if (x >= 2.5) return x > 27.3 ? 0 : erfcFraction(x);
        if (x <= -2.5) return x < -6 ? 2 : 2 - erfcFraction(-x);
        return 1 - erfSeries(x);
    }

    public static double erf(double x) {
        if (Double.isNaN(x)) return x;
        if (x >= 2.5) return 1 - erfcFraction(x);
        if (x <= -2.5) return erfcFraction(-x) - 1;
        return erfSeries(x);
    }

    /** The inverse of erf on [-1, 1]: ±inf at ±1, NaN outside. */
    public static double erfinv(double y) {
        if (Double.isNaN(y) || y < -1 || y > 1) return Double.NaN;
        if (y == 1) return Double.POSITIVE_INFINITY;
        if (y == -1) return Double.NEGATIVE_INFINITY;
        if (y == 0) return y;
        // first guess: erf(x) ≈ sign(x) · sqrt(1 − exp(−x²(4/π + a x²)/(1 + a x²))) inverted (a = 0.147)
        double a = 0.147, ln = Math.log(1 - y * y), t = 2 / (Math.PI * a) + ln / 2;
        double x = Math.copySign(Math.sqrt(Math.sqrt(t * t - ln / a) - t), y);
        for (int i = 0; i < 4; i++) {
            // Newton on erfc for |y| > 1/2 (no cancellation near ±1), on erf otherwise
            double slope = TWO_OVER_SQRT_PI * Math.exp(-x * x);
            double r = Math.abs(y) > 0.5 ? -(erfc(Math.abs(x)) - (1 - Math.abs(y))) * Math.signum(y) : erf(x) - y;
            if (slope == 0) break;
            x -= r / slope;
        }
        return x;
    }

    private static final double[] LANCZOS = {0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
        12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};

    /** log|Γ(x)|: +inf at 0 and the negative integers and at ±inf. */
    public static double lgamma(double x) {
        if (Double.isNaN(x)) return x;
        if (Double.isInfinite(x)) return Double.POSITIVE_INFINITY;
        if (x <= 0 && x == Math.rint(x)) return Double.POSITIVE_INFINITY;
        if (x == 1 || x == 2) return 0;
        if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lgamma(1 - x);
        double z = x - 1, sum = LANCZOS[0], t = z + 7.5;
        for (int i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i] / (z + i);
        return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
    }

    /** ψ(x) = Γ'(x)/Γ(x): ∓inf at ±0 (ATen's), NaN at the negative integers and −inf, +inf at +inf. */
    public static double digamma(double x) {
        if (Double.isNaN(x) || x == Double.POSITIVE_INFINITY) return x;
        if (x == 0) return Math.copySign(Double.POSITIVE_INFINITY, -x);
        if (x < 0) {
            if (x == Math.rint(x) || x == Double.NEGATIVE_INFINITY) return Double.NaN;
            return digamma(1 - x) - Math.PI / Math.tan(Math.PI * x);
        }
        double result = 0;
        while (x < 10) {
            result -= 1 / x;
            x += 1;
        }
        double inv2 = 1 / (x * x);
        // ln x − 1/(2x) − Σ B₂ₖ/(2k x^{2k})
        double series = inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 * (1.0 / 132 - inv2 * (691.0 / 32760 - inv2 / 12.0))))));
        return result + Math.log(x) - 0.5 / x - series;
    }

    /** ψ'(x), polygamma(1, x): +inf at 0; at the negative integers what the reflection formula gives in double, as ATen's. */
    public static double trigamma(double x) {
        if (Double.isNaN(x)) return x;
        if (x == Double.POSITIVE_INFINITY) return 0;
        if (x <= 0) {
            // the reflection formula everywhere below 0, as ATen's: at the poles sin(πx) is a rounding error, not 0, so the value is huge but finite (+inf at 0)
            double s = Math.sin(Math.PI * x);
            return -trigamma(1 - x) + Math.PI * Math.PI / (s * s);
        }
        double result = 0;
        while (x < 10) {
            result += 1 / (x * x);
            x += 1;
        }
        double inv = 1 / x, inv2 = inv * inv;
        // 1/x + 1/(2x²) + Σ B₂ₖ / x^{2k+1}
        double series = inv * inv2 * (1.0 / 6 - inv2 * (1.0 / 30 - inv2 * (1.0 / 42 - inv2 * (1.0 / 30 - inv2 * (5.0 / 66 - inv2 * (691.0 / 2730 - inv2 * 7.0 / 6))))));
        return result + inv + 0.5 * inv2 + series;
    }
}
