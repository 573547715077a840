package dev.ember.ops.kernels;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Dense int64 rows with explicit SIMD for the single-instruction ops (see {@link PointwiseF32Vec}
 * for why the Vector API rather than C2's auto-vectorizer); wrapping like ATen's C++.
 */
final class PointwiseI64Vec {
    private PointwiseI64Vec() {}

    private static final VectorSpecies<Long> S = LongVector.SPECIES_PREFERRED;
    private static final int L = S.length();

    private static LongVector v(long[] x, int i) { return LongVector.fromArray(S, x, i); }

    /** {@code o = a op b} where {@code a} and {@code b} are dense, or one of them a broadcast scalar (stride 0). */
    static void binary(PointwiseBinaryOp op, long[] o, int oo, long[] a, int ao, int as, long[] b, int bo, int bs, int n, long alpha) {
        switch (op) {
            case ADD -> add(o, oo, a, ao, as, b, bo, bs, n);
            case SUB -> sub(o, oo, a, ao, as, b, bo, bs, n);
            case MUL -> mul(o, oo, a, ao, as, b, bo, bs, n);
            case ADD_SCALED -> addScaled(o, oo, a, ao, as, b, bo, bs, n, alpha);
            case MAX -> max(o, oo, a, ao, as, b, bo, bs, n);
            case MIN -> min(o, oo, a, ao, as, b, bo, bs, n);
            default -> throw new AssertionError(op);
        }
    }

    private static void add(long[] o, int oo, long[] a, int ao, int as, long[] b, int bo, int bs, int n) {
        int i = 0, up = S.loopBound(n);
        if (as == 0) {
            LongVector x = LongVector.broadcast(S, a[ao]);
            for (; i < up; i += L) { LongVector y = v(b, bo + i); x.add(y).intoArray(o, oo + i); }
        } else if (bs == 0) {
            LongVector y = LongVector.broadcast(S, b[bo]);
            for (; i < up; i += L) { LongVector x = v(a, ao + i); x.add(y).intoArray(o, oo + i); }
        } else {
            for (; i < up; i += L) { LongVector x = v(a, ao + i), y = v(b, bo + i); x.add(y).intoArray(o, oo + i); }
        }
        for (; i < n; i++) o[oo + i] = a[ao + i * as] + b[bo + i * bs];
    }

    private static void sub(long[] o, int oo, long[] a, int ao, int as, long[] b, int bo, int bs, int n) {
        int i = 0, up = S.loopBound(n);
        if (as == 0) {
            LongVector x = LongVector.broadcast(S, a[ao]);
            for (; i < up; i += L) { LongVector y = v(b, bo + i); x.sub(y).intoArray(o, oo + i); }
        } else if (bs == 0) {
            LongVector y = LongVector.broadcast(S, b[bo]);
            for (; i < up; i += L) { LongVector x = v(a, ao + i); x.sub(y).intoArray(o, oo + i); }
        } else {
            for (; i < up; i += L) { LongVector x = v(a, ao + i), y = v(b, bo + i); x.sub(y).intoArray(o, oo + i); }
        }
        for (; i < n; i++) o[oo + i] = a[ao + i * as] - b[bo + i * bs];
    }

    private static void mul(long[] o, int oo, long[] a, int ao, int as, long[] b, int bo, int bs, int n) {
        int i = 0, up = S.loopBound(n);
        if (as == 0) {
            LongVector x = LongVector.broadcast(S, a[ao]);
            for (; i < up; i += L) { LongVector y = v(b, bo + i); x.mul(y).intoArray(o, oo + i); }
        } else if (bs == 0) {
            LongVector y = LongVector.broadcast(S, b[bo]);
            for (; i < up; i += L) { LongVector x = v(a, ao + i); x.mul(y).intoArray(o, oo + i); }
        } else {
            for (; i < up; i += L) { LongVector x = v(a, ao + i), y = v(b, bo + i); x.mul(y).intoArray(o, oo + i); }
        }
        for (; i < n; i++) o[oo + i] = a[ao + i * as] * b[bo + i * bs];
    }

    private static void addScaled(long[] o, int oo, long[] a, int ao, int as, long[] b, int bo, int bs, int n, long alpha) {
        int i = 0, up = S.loopBound(n);
        LongVector al = LongVector.broadcast(S, alpha);
        if (as == 0) {
            LongVector x = LongVector.broadcast(S, a[ao]);
            for (; i < up; i += L) { LongVector y = v(b, bo + i); x.add(y.mul(al)).intoArray(o, oo + i); }
        } else if (bs == 0) {
            LongVector y = LongVector.broadcast(S, b[bo]);
            for (; i < up; i += L) { LongVector x = v(a, ao + i); x.add(y.mul(al)).intoArray(o, oo + i); }
        } else {
            for (; i < up; i += L) { LongVector x = v(a, ao + i), y = v(b, bo + i); x.add(y.mul(al)).intoArray(o, oo + i); }
        }
        for (; i < n; i++) o[oo + i] = a[ao + i * as] + alpha * b[bo + i * bs];
    }

    private static void max(long[] o, int oo, long[] a, int ao, int as, long[] b, int bo, int bs, int n) {
        int i = 0, up = S.loopBound(n);
        if (as == 0) {
            LongVector x = LongVector.broadcast(S, a[ao]);
            for (; i < up; i += L) { LongVector y = v(b, bo + i); x.max(y).intoArray(o, oo + i); }
        } else if (bs == 0) {
            LongVector y = LongVector.broadcast(S, b[bo]);
            for (; i < up; i += L) { LongVector x = v(a, ao + i); x.max(y).intoArray(o, oo + i); }
        } else {
            for (; i < up; i += L) { LongVector x = v(a, ao + i), y = v(b, bo + i); x.max(y).intoArray(o, oo + i); }
        }
        for (; i < n; i++) o[oo + i] = Math.max(a[ao + i * as], b[bo + i * bs]);
    }

    private static void min(long[] o, int oo, long[] a, int ao, int as, long[] b, int bo, int bs, int n) {
        int i = 0, up = S.loopBound(n);
        if (as == 0) {
            LongVector x = LongVector.broadcast(S, a[ao]);
            for (; i < up; i += L) { LongVector y = v(b, bo + i); x.min(y).intoArray(o, oo + i); }
        } else if (bs == 0) {
            LongVector y = LongVector.broadcast(S, b[bo]);
            for (; i < up; i += L) { LongVector x = v(a, ao + i); x.min(y).intoArray(o, oo + i); }
        } else {
            for (; i < up; i += L) { LongVector x = v(a, ao + i), y = v(b, bo + i); x.min(y).intoArray(o, oo + i); }
        }
        for (; i < n; i++) o[oo + i] = Math.min(a[ao + i * as], b[bo + i * bs]);
    }
}
