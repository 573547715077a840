package dev.ember.kernels;

/** bool rows (one byte per element, non-zero is true). */
public final class PointwiseBool {
    private PointwiseBool() {}

    public static void logical(BinaryOp op, byte[] o, int oo, int os, byte[] a, int ao, int as, byte[] b, int bo, int bs, int n) {
        switch (op) {
            case AND -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = (byte) (a[q] != 0 && b[r] != 0 ? 1 : 0); }
            case OR -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = (byte) (a[q] != 0 || b[r] != 0 ? 1 : 0); }
            default -> throw new IllegalArgumentException(op + " is not a logical op");
        }
    }

    public static void not(byte[] o, int oo, int os, byte[] a, int ao, int as, int n) {
        for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = (byte) (a[q] == 0 ? 1 : 0);
    }

    public static void where(byte[] o, int oo, int os, byte[] c, int co, int cs, byte[] a, int ao, int as, byte[] b, int bo, int bs, int n) {
        for (int i = 0, p = oo, k = co, q = ao, r = bo; i < n; i++, p += os, k += cs, q += as, r += bs) o[p] = c[k] != 0 ? a[q] : b[r];
    }
}
