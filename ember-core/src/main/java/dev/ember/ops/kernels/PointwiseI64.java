package dev.ember.ops.kernels;

import static dev.ember.ops.kernels.PointwiseMath.powi;

/**
 * int64 rows, wrapping on overflow like ATen's C++: the single-instruction ops on dense rows go to
 * {@link PointwiseI64Vec}; everything else runs a strided loop per op, the op switch outside it.
 */
final class PointwiseI64 {
    private PointwiseI64() {}

    static void binary(PointwiseBinaryOp op, long[] o, int oo, int os, long[] a, int ao, int as, long[] b, int bo, int bs, int n, long alpha) {
        if (os == 1 && op.vectorizable() && (as == 1 && bs <= 1 || as == 0 && bs == 1)) {
            PointwiseI64Vec.binary(op, o, oo, a, ao, as, b, bo, bs, n, alpha);
            return;
        }
        strided(op, o, oo, os, a, ao, as, b, bo, bs, n, alpha);
    }

    private static void strided(PointwiseBinaryOp op, long[] o, int oo, int os, long[] a, int ao, int as, long[] b, int bo, int bs, int n, long alpha) {
        switch (op) {
            case ADD -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = a[q] + b[r]; }
            case SUB -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = a[q] - b[r]; }
            case MUL -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = a[q] * b[r]; }
            case ADD_SCALED -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = a[q] + alpha * b[r]; }
            case MAX -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = Math.max(a[q], b[r]); }
            case MIN -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = Math.min(a[q], b[r]); }
            case DIV_TRUNC -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = a[q] / b[r]; }
            case DIV_FLOOR -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = Math.floorDiv(a[q], b[r]); }
            case POW -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = powi(a[q], b[r]); }
            case REMAINDER -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = Math.floorMod(a[q], b[r]); }
            case FMOD -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = a[q] % b[r]; }
            case DIV -> throw new AssertionError("true division of integers computes in floating point");
        }
    }

    /** True when any of the {@code n} elements is zero (integer division checks its divisor first). */
    static boolean anyZero(long[] a, int ao, int as, int n) {
        for (int i = 0, q = ao; i < n; i++, q += as) if (a[q] == 0) return true;
        return false;
    }

    static void unary(PointwiseUnaryOp op, long[] o, int oo, int os, long[] a, int ao, int as, int n, long lo, long hi) {
        switch (op) {
            case NEG -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = -a[q]; }
            case ABS -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = Math.abs(a[q]); }
            case RELU -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = Math.max(a[q], 0); }
            case CLAMP -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = Math.min(Math.max(a[q], lo), hi); }
            case POW -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = powi(a[q], lo); }
            default -> throw new AssertionError(op + " computes in floating point");
        }
    }

    static void compare(PointwiseCompareOp op, byte[] o, int oo, int os, long[] a, int ao, int as, long[] b, int bo, int bs, int n) {
        switch (op) {
            case EQ -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = (byte) (a[q] == b[r] ? 1 : 0); }
            case NE -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = (byte) (a[q] != b[r] ? 1 : 0); }
            case LT -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = (byte) (a[q] < b[r] ? 1 : 0); }
            case LE -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = (byte) (a[q] <= b[r] ? 1 : 0); }
            case GT -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = (byte) (a[q] > b[r] ? 1 : 0); }
            case GE -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = (byte) (a[q] >= b[r] ? 1 : 0); }
        }
    }

    static void where(long[] o, int oo, int os, byte[] c, int co, int cs, long[] a, int ao, int as, long[] b, int bo, int bs, int n) {
        for (int i = 0, p = oo, k = co, q = ao, r = bo; i < n; i++, p += os, k += cs, q += as, r += bs) o[p] = c[k] != 0 ? a[q] : b[r];
    }
}
