package dev.ember.ops.eager;

/**
 * torch.special's orthogonal polynomials of degree n at x, as ATen's Math.h evaluates them: the
 * three-term recurrences, ATen's closed forms at x = ±1 (0 and 1 for the shifted ones) and, for
 * large n inside (−1, 1), its trigonometric forms. A negative n gives 0. The degree is the
 * argument truncated to an integer as C++'s cast on x86 does: NaN, ±inf and values beyond int64
 * become int64's minimum, so they too give 0.
 */
public final class OrthogonalPolynomials {
    private OrthogonalPolynomials() {}

    /** {@code static_cast<int64_t>(n)} as x86's cvttsd2si computes it. */
    public static long degree(double n) {
        if (Double.isNaN(n) || n >= 0x1p63 || n < -0x1p63) return Long.MIN_VALUE;
        return (long) n;
    }

    /** The recurrence {@code r = (x + x)·q − p} from p, q (degrees 0 and 1) to degree n ≥ 2, stopping at a NaN. */
    private static double chebyshevRecurrence(double x, long n, double q) {
        double p = 1, r = q;
        for (long k = 2; k <= n && !Double.isNaN(q); k++) {
            r = (x + x) * q - p;
            p = q;
            q = r;
        }
        return r;
    }

    public static double chebyshevT(double x, long n) {
        if (n < 0) return 0;
        if (Math.abs(x) == 1) return x > 0 || n % 2 == 0 ? 1 : -1;
        if (n > 6 && Math.abs(x) < 1) return Math.cos(n * Math.acos(x));
        if (n == 0) return 1;
        if (n == 1) return x;
        return chebyshevRecurrence(x, n, x);
    }

    public static double chebyshevU(double x, long n) {
        if (n < 0) return 0;
        if (Math.abs(x) == 1) return x > 0 || n % 2 == 0 ? n + 1 : -(n + 1);
        if (n > 8 && Math.abs(x) < 1) {
            double t = Math.acos(x);
            if (Math.sin(t) != 0) return Math.sin((n + 1) * t) / Math.sin(t);
            return (n + 1) * Math.cos((n + 1) * t) / x;
        }
        if (n == 0) return 1;
        if (n == 1) return x + x;
        return chebyshevRecurrence(x, n, x + x);
    }

    public static double chebyshevV(double x, long n) {
        if (n < 0) return 0;
        if (Math.abs(x) == 1) {
            if (x > 0) return 1;
            return n % 2 == 0 ? n + n + 1 : -(n + n + 1);
        }
        if (n > 8 && Math.abs(x) < 1) {
            double t = Math.acos(x);
            if (Math.sin(t / 2) != 1) return Math.cos((n + 0.5) * t) / Math.cos(t / 2);
            return n % 2 == 0 ? n + n + 1 : -(n + n + 1);
        }
        if (n == 0) return 1;
        if (n == 1) return x + x - 1;
        return chebyshevRecurrence(x, n, x + x - 1);
    }

    public static double chebyshevW(double x, long n) {
        if (n < 0) return 0;
        if (Math.abs(x) == 1) {
            if (x > 0) return n + n + 1;
            return n % 2 == 0 ? 1 : -1;
        }
        if (n > 8 && Math.abs(x) < 1) {
            double t = Math.acos(x);
            if (Math.cos(t / 2) != 1) return Math.sin((n + 0.5) * t) / Math.sin(t / 2);
            if (x > 0) return n + n + 1;
            return n % 2 == 0 ? 1 : -1;
        }
        if (n == 0) return 1;
        if (n == 1) return x + x + 1;
        return chebyshevRecurrence(x, n, x + x + 1);
    }

    /** ATen's limits past which Hermite's recurrence is refused (NaN): 512 degrees in float64, 128 in float32. */
    public static double hermiteH(double x, long n, boolean float32) {
        if (n < 0) return 0;
        if (n == 0) return 1;
        if (n == 1) return x + x;
        if (n > (float32 ? 128 : 512)) return Double.NaN;
        double p = 1, q = x + x, r = 0;
        for (long k = 2; k < n + n; k += 2) {
            r = (x + x) * q - k * p;
            p = q;
            q = r;
        }
        return r;
    }

    public static double hermiteHe(double x, long n, boolean float32) {
        if (n < 0) return 0;
        if (n == 0) return 1;
        if (n == 1) return x;
        if (n > (float32 ? 128 : 512)) return Double.NaN;
        double p = 1, q = x, r = 0;
        for (long k = 1; k < n; k++) {
            r = x * q - k * p;
            p = q;
            q = r;
        }
        return r;
    }

    public static double laguerreL(double x, long n) {
        if (n < 0) return 0;
        if (Math.abs(x) == 0) return 1;
        if (n == 0) return 1;
        if (n == 1) return 1 - x;
        double p = 1, q = 1 - x, r = q;
        for (long k = 1; k < n && !Double.isNaN(q); k++) {
            r = ((k + k) + (1 - x)) * q - k * p;
            r /= k + 1;
            p = q;
            q = r;
        }
        return r;
    }

    public static double legendreP(double x, long n) {
        if (n < 0) return 0;
        if (Math.abs(x) == 1) return x > 0 || n % 2 == 0 ? 1 : -1;
        if (n == 0) return 1;
        if (n == 1) return x;
        double p = 1, q = x, r = q;
        for (long k = 1; k < n && !Double.isNaN(q); k++) {
            r = ((k + k + 1) * x * q - k * p) / (k + 1);
            p = q;
            q = r;
        }
        return r;
    }

    /** The shifted polynomials on [0, 1]: the plain ones at 2x − 1, with ATen's own closed forms at 0 and 1 and its cut-over degrees. */
    public static double shiftedChebyshevT(double x, long n) {
        if (n < 0) return 0;
        if (x == 1) return 1;
        if (x == 0) return n % 2 == 0 ? 1 : -1;
        double y = x + x - 1;
        if (n > 6 && Math.abs(y) < 1) return Math.cos(n * Math.acos(y));
        if (n == 0) return 1;
        if (n == 1) return y;
        return chebyshevRecurrence(y, n, y);
    }

    public static double shiftedChebyshevU(double x, long n) {
        if (n < 0) return 0;
        if (x == 1) return n + 1;
        if (x == 0) return n % 2 == 0 ? n + 1 : -(n + 1);
        double y = x + x - 1;
        if (n > 6 && Math.abs(y) < 1) {
            double t = Math.acos(y);
            if (Math.sin(t) != 0) return Math.sin((n + 1) * t) / Math.sin(t);
            return (n + 1) * Math.cos((n + 1) * t) / y;
        }
        if (n == 0) return 1;
        if (n == 1) return y + y;
        return chebyshevRecurrence(y, n, y + y);
    }

    public static double shiftedChebyshevV(double x, long n) {
        if (n < 0) return 0;
        if (x == 1) return 1;
        if (x == 0) return n % 2 == 0 ? n + n + 1 : -(n + n + 1);
        double y = x + x - 1;
        if (n > 6 && Math.abs(y) < 1) {
            double t = Math.acos(y);
            if (Math.sin(t / 2) != 1) return Math.cos((n + 0.5) * t) / Math.cos(t / 2);
            return n % 2 == 0 ? n + n + 1 : -(n + n + 1);
        }
        if (n == 0) return 1;
        if (n == 1) return y + y - 1;
        return chebyshevRecurrence(y, n, y + y - 1);
    }

    public static double shiftedChebyshevW(double x, long n) {
        if (n < 0) return 0;
        if (x == 1) return n + n + 1;
        if (x == 0) return n % 2 == 0 ? 1 : -1;
        double y = x + x - 1;
        if (n > 4 && Math.abs(y) < 1) {
            double t = Math.acos(y);
            if (Math.cos(t / 2) != 1) return Math.sin((n + 0.5) * t) / Math.sin(t / 2);
            return n % 2 == 0 ? 1 : -1;
        }
        if (n == 0) return 1;
        if (n == 1) return y + y + 1;
        return chebyshevRecurrence(y, n, y + y + 1);
    }
}
