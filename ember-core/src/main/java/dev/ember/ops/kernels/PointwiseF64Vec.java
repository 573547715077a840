package dev.ember.ops.kernels;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

import static jdk.incubator.vector.VectorOperators.COS;
import static jdk.incubator.vector.VectorOperators.EQ;
import static jdk.incubator.vector.VectorOperators.EXP;
import static jdk.incubator.vector.VectorOperators.GE;
import static jdk.incubator.vector.VectorOperators.GT;
import static jdk.incubator.vector.VectorOperators.LE;
import static jdk.incubator.vector.VectorOperators.LOG1P;
import static jdk.incubator.vector.VectorOperators.LOG;
import static jdk.incubator.vector.VectorOperators.LT;
import static jdk.incubator.vector.VectorOperators.NE;
import static jdk.incubator.vector.VectorOperators.POW;
import static jdk.incubator.vector.VectorOperators.SIN;
import static jdk.incubator.vector.VectorOperators.TANH;

/**
 * Dense float64 rows with explicit SIMD. C2 cannot auto-vectorize these loops: the operands are
 * arrays at runtime offsets that might overlap, so it must assume a loop-carried dependence. The
 * engine never passes overlapping operands, and the Vector API needs no such proof. Each loop is
 * its own small method with a constant vector operator (so it is always intrinsified); scalar
 * tails use {@link PointwiseMath}, whose results agree with the vector lanes to an ulp or two.
 */
final class PointwiseF64Vec {
    private PointwiseF64Vec() {}

    private static final VectorSpecies<Double> S = DoubleVector.SPECIES_PREFERRED;
    private static final int L = S.length();

    private static DoubleVector v(double[] x, int i) { return DoubleVector.fromArray(S, x, i); }

    private static DoubleVector k(double c) { return DoubleVector.broadcast(S, c); }

    // ---------------------------------------------------------------- binary, both operands dense

    static void binary(PointwiseBinaryOp op, double[] o, int oo, double[] a, int ao, double[] b, int bo, int n, double alpha) {
        switch (op) {
            case ADD -> add(o, oo, a, ao, b, bo, n);
            case SUB -> sub(o, oo, a, ao, b, bo, n);
            case MUL -> mul(o, oo, a, ao, b, bo, n);
            case DIV -> div(o, oo, a, ao, b, bo, n);
            case ADD_SCALED -> addScaled(o, oo, a, ao, b, bo, n, alpha);
            case MAX -> max(o, oo, a, ao, b, bo, n);
            case MIN -> min(o, oo, a, ao, b, bo, n);
            default -> throw new AssertionError(op);
        }
    }

    private static void add(double[] o, int oo, double[] a, int ao, double[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).add(v(b, bo + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = a[ao + i] + b[bo + i];
    }

    private static void sub(double[] o, int oo, double[] a, int ao, double[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).sub(v(b, bo + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = a[ao + i] - b[bo + i];
    }

    private static void mul(double[] o, int oo, double[] a, int ao, double[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).mul(v(b, bo + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = a[ao + i] * b[bo + i];
    }

    private static void div(double[] o, int oo, double[] a, int ao, double[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).div(v(b, bo + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = a[ao + i] / b[bo + i];
    }

    private static void addScaled(double[] o, int oo, double[] a, int ao, double[] b, int bo, int n, double alpha) {
        int i = 0;
        DoubleVector al = k(alpha);
        for (int up = S.loopBound(n); i < up; i += L) v(b, bo + i).fma(al, v(a, ao + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.fma(alpha, b[bo + i], a[ao + i]);
    }

    private static void max(double[] o, int oo, double[] a, int ao, double[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).max(v(b, bo + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.max(a[ao + i], b[bo + i]);
    }

    private static void min(double[] o, int oo, double[] a, int ao, double[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).min(v(b, bo + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.min(a[ao + i], b[bo + i]);
    }

    // ---------------------------------------------------------------- binary, one operand a scalar

    /** {@code o = a op s} when {@code scalarOnLeft} is false, {@code o = s op a} when it is true. */
    static void binaryScalar(PointwiseBinaryOp op, boolean scalarOnLeft, double[] o, int oo, double[] a, int ao, double s, int n, double alpha) {
        switch (op) {
            case ADD -> addScalar(o, oo, a, ao, s, n);
            case MUL -> mulScalar(o, oo, a, ao, s, n);
            case MAX -> maxScalar(o, oo, a, ao, s, n);
            case MIN -> minScalar(o, oo, a, ao, s, n);
            case SUB -> { if (scalarOnLeft) scalarSub(o, oo, s, a, ao, n); else subScalar(o, oo, a, ao, s, n); }
            case DIV -> { if (scalarOnLeft) scalarDiv(o, oo, s, a, ao, n); else divScalar(o, oo, a, ao, s, n); }
            case ADD_SCALED -> { if (scalarOnLeft) scalarAddScaled(o, oo, s, a, ao, n, alpha); else addScaledScalar(o, oo, a, ao, s, n, alpha); }
            default -> throw new AssertionError(op);
        }
    }

    private static void addScalar(double[] o, int oo, double[] a, int ao, double s, int n) {
        int i = 0;
        DoubleVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).add(sv).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = a[ao + i] + s;
    }

    private static void subScalar(double[] o, int oo, double[] a, int ao, double s, int n) {
        int i = 0;
        DoubleVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).sub(sv).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = a[ao + i] - s;
    }

    private static void scalarSub(double[] o, int oo, double s, double[] b, int bo, int n) {
        int i = 0;
        DoubleVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) sv.sub(v(b, bo + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = s - b[bo + i];
    }

    private static void mulScalar(double[] o, int oo, double[] a, int ao, double s, int n) {
        int i = 0;
        DoubleVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).mul(sv).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = a[ao + i] * s;
    }

    private static void divScalar(double[] o, int oo, double[] a, int ao, double s, int n) {
        int i = 0;
        DoubleVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).div(sv).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = a[ao + i] / s;
    }

    private static void scalarDiv(double[] o, int oo, double s, double[] b, int bo, int n) {
        int i = 0;
        DoubleVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) sv.div(v(b, bo + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = s / b[bo + i];
    }

    private static void scalarAddScaled(double[] o, int oo, double s, double[] b, int bo, int n, double alpha) {
        int i = 0;
        DoubleVector sv = k(s), al = k(alpha);
        for (int up = S.loopBound(n); i < up; i += L) v(b, bo + i).fma(al, sv).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.fma(alpha, b[bo + i], s);
    }

    private static void addScaledScalar(double[] o, int oo, double[] a, int ao, double s, int n, double alpha) {
        int i = 0;
        DoubleVector sv = k(s), al = k(alpha);
        for (int up = S.loopBound(n); i < up; i += L) sv.fma(al, v(a, ao + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.fma(alpha, s, a[ao + i]);
    }

    private static void maxScalar(double[] o, int oo, double[] a, int ao, double s, int n) {
        int i = 0;
        DoubleVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).max(sv).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.max(a[ao + i], s);
    }

    private static void minScalar(double[] o, int oo, double[] a, int ao, double s, int n) {
        int i = 0;
        DoubleVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).min(sv).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.min(a[ao + i], s);
    }

    // ---------------------------------------------------------------- unary

    /** True when {@link #unary} has a SIMD loop for {@code op} with parameter {@code p}. */
    static boolean hasUnary(PointwiseUnaryOp op, double p) {
        if (op == PointwiseUnaryOp.GELU) return false;             // no SIMD erf accurate to double precision
        return op != PointwiseUnaryOp.POW || Double.isFinite(p);   // C's pow(1, NaN) = 1 needs the scalar path
    }

    static void unary(PointwiseUnaryOp op, double[] o, int oo, double[] a, int ao, int n, double lo, double hi) {
        switch (op) {
            case NEG -> neg(o, oo, a, ao, n);
            case ABS -> abs(o, oo, a, ao, n);
            case SQRT -> sqrt(o, oo, a, ao, n);
            case RSQRT -> rsqrt(o, oo, a, ao, n);
            case RELU -> relu(o, oo, a, ao, n);
            case CLAMP -> clamp(o, oo, a, ao, n, lo, hi);
            case SQUARE -> square(o, oo, a, ao, n);
            case CUBE -> cube(o, oo, a, ao, n);
            case RECIPROCAL -> reciprocal(o, oo, a, ao, n);
            case INV_SQUARE -> invSquare(o, oo, a, ao, n);
            case EXP -> exp(o, oo, a, ao, n);
            case LOG -> log(o, oo, a, ao, n);
            case LOG1P -> log1p(o, oo, a, ao, n);
            case SIN -> sin(o, oo, a, ao, n);
            case COS -> cos(o, oo, a, ao, n);
            case TANH -> tanh(o, oo, a, ao, n);
            case SIGMOID -> sigmoid(o, oo, a, ao, n);
            case SILU -> silu(o, oo, a, ao, n);
            case GELU_TANH -> geluTanh(o, oo, a, ao, n);
            case POW -> pow(o, oo, a, ao, n, lo);
            case GELU -> throw new AssertionError("float64 GELU needs the accurate scalar erf");
        }
    }

    private static void neg(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).neg().intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = -a[ao + i];
    }

    private static void abs(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).abs().intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.abs(a[ao + i]);
    }

    private static void sqrt(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).sqrt().intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.sqrt(a[ao + i]);
    }

    private static void rsqrt(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        DoubleVector one = k(1);
        for (int up = S.loopBound(n); i < up; i += L) one.div(v(a, ao + i).sqrt()).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = 1 / Math.sqrt(a[ao + i]);
    }

    /** {@code x < 0 ? 0 : x}, so NaN and -0.0 pass through as in ATen. */
    private static void relu(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        DoubleVector zero = k(0);
        for (int up = S.loopBound(n); i < up; i += L) {
            DoubleVector x = v(a, ao + i);
            x.blend(zero, x.compare(LT, zero)).intoArray(o, oo + i);
        }
        for (; i < n; i++) o[oo + i] = a[ao + i] < 0 ? 0 : a[ao + i];
    }

    private static void clamp(double[] o, int oo, double[] a, int ao, int n, double lo, double hi) {
        int i = 0;
        DoubleVector l = k(lo), h = k(hi);
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).max(l).min(h).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.min(Math.max(a[ao + i], lo), hi);
    }

    private static void square(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) { DoubleVector x = v(a, ao + i); x.mul(x).intoArray(o, oo + i); }
        for (; i < n; i++) o[oo + i] = a[ao + i] * a[ao + i];
    }

    private static void cube(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) { DoubleVector x = v(a, ao + i); x.mul(x).mul(x).intoArray(o, oo + i); }
        for (; i < n; i++) o[oo + i] = a[ao + i] * a[ao + i] * a[ao + i];
    }

    private static void reciprocal(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        DoubleVector one = k(1);
        for (int up = S.loopBound(n); i < up; i += L) one.div(v(a, ao + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = 1 / a[ao + i];
    }

    private static void invSquare(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        DoubleVector one = k(1);
        for (int up = S.loopBound(n); i < up; i += L) { DoubleVector x = v(a, ao + i); one.div(x.mul(x)).intoArray(o, oo + i); }
        for (; i < n; i++) o[oo + i] = 1 / (a[ao + i] * a[ao + i]);
    }

    private static void exp(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).lanewise(EXP).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = PointwiseMath.exp(a[ao + i]);
    }

    private static void log(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).lanewise(LOG).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = PointwiseMath.log(a[ao + i]);
    }

    private static void log1p(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).lanewise(LOG1P).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = PointwiseMath.log1p(a[ao + i]);
    }

    private static void sin(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).lanewise(SIN).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = PointwiseMath.sin(a[ao + i]);
    }

    private static void cos(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).lanewise(COS).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = PointwiseMath.cos(a[ao + i]);
    }

    private static void tanh(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).lanewise(TANH).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = PointwiseMath.tanh(a[ao + i]);
    }

    private static void sigmoid(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        DoubleVector one = k(1);
        for (int up = S.loopBound(n); i < up; i += L) one.div(one.add(v(a, ao + i).neg().lanewise(EXP))).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = PointwiseMath.sigmoid(a[ao + i]);
    }

    private static void silu(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        DoubleVector one = k(1);
        for (int up = S.loopBound(n); i < up; i += L) { DoubleVector x = v(a, ao + i); x.div(one.add(x.neg().lanewise(EXP))).intoArray(o, oo + i); }
        for (; i < n; i++) o[oo + i] = PointwiseMath.silu(a[ao + i]);
    }

    private static void geluTanh(double[] o, int oo, double[] a, int ao, int n) {
        int i = 0;
        DoubleVector one = k(1), half = k(0.5), beta = k(Math.sqrt(2 / Math.PI)), kappa = k(0.044715);
        for (int up = S.loopBound(n); i < up; i += L) {
            DoubleVector x = v(a, ao + i);
            DoubleVector inner = beta.mul(x.add(kappa.mul(x).mul(x).mul(x)));
            half.mul(x).mul(one.add(inner.lanewise(TANH))).intoArray(o, oo + i);
        }
        for (; i < n; i++) o[oo + i] = PointwiseMath.geluTanh(a[ao + i]);
    }

    private static void pow(double[] o, int oo, double[] a, int ao, int n, double e) {
        int i = 0;
        DoubleVector ev = k(e);
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).lanewise(POW, ev).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = PointwiseMath.pow(a[ao + i], e);
    }

    // ---------------------------------------------------------------- comparisons (bool out: one byte lane per element)

    /**
     * One byte lane per double lane; a double vector of fewer than 8 lanes (AVX2's 4 doubles) has no
     * byte vector of its lane count, so its masks are stored and loaded bit by bit.
     */
    private static final VectorSpecies<Byte> B = L >= 8 ? VectorSpecies.of(byte.class, VectorShape.forBitSize(L * 8)) : null;
    private static final ByteVector ONE = B == null ? null : ByteVector.broadcast(B, (byte) 1), ZERO = B == null ? null : ByteVector.zero(B);

    private static void storeMask(VectorMask<Double> m, byte[] o, int at) {
        if (B != null) {
            ZERO.blend(ONE, m.cast(B)).intoArray(o, at);
            return;
        }
        long bits = m.toLong();
        for (int j = 0; j < L; j++) o[at + j] = (byte) (bits >>> j & 1);
    }

    static void compare(PointwiseCompareOp op, byte[] o, int oo, double[] a, int ao, double[] b, int bo, int n) {
        switch (op) {
            case EQ -> eq(o, oo, a, ao, b, bo, n);
            case NE -> ne(o, oo, a, ao, b, bo, n);
            case LT -> lt(o, oo, a, ao, b, bo, n);
            case LE -> le(o, oo, a, ao, b, bo, n);
            case GT -> gt(o, oo, a, ao, b, bo, n);
            case GE -> ge(o, oo, a, ao, b, bo, n);
        }
    }

    /** {@code o = a op s}, or {@code o = s op a} when {@code scalarOnLeft}, which is {@code a} compared the mirrored way. */
    static void compareScalar(PointwiseCompareOp op, boolean scalarOnLeft, byte[] o, int oo, double[] a, int ao, double s, int n) {
        switch (scalarOnLeft ? op.mirrored() : op) {
            case EQ -> eqScalar(o, oo, a, ao, s, n);
            case NE -> neScalar(o, oo, a, ao, s, n);
            case LT -> ltScalar(o, oo, a, ao, s, n);
            case LE -> leScalar(o, oo, a, ao, s, n);
            case GT -> gtScalar(o, oo, a, ao, s, n);
            case GE -> geScalar(o, oo, a, ao, s, n);
        }
    }

    private static void eq(byte[] o, int oo, double[] a, int ao, double[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(EQ, v(b, bo + i)), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] == b[bo + i] ? 1 : 0);
    }

    private static void eqScalar(byte[] o, int oo, double[] a, int ao, double s, int n) {
        int i = 0;
        DoubleVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(EQ, sv), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] == s ? 1 : 0);
    }

    private static void ne(byte[] o, int oo, double[] a, int ao, double[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(NE, v(b, bo + i)), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] != b[bo + i] ? 1 : 0);
    }

    private static void neScalar(byte[] o, int oo, double[] a, int ao, double s, int n) {
        int i = 0;
        DoubleVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(NE, sv), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] != s ? 1 : 0);
    }

    private static void lt(byte[] o, int oo, double[] a, int ao, double[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(LT, v(b, bo + i)), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] < b[bo + i] ? 1 : 0);
    }

    private static void ltScalar(byte[] o, int oo, double[] a, int ao, double s, int n) {
        int i = 0;
        DoubleVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(LT, sv), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] < s ? 1 : 0);
    }

    private static void le(byte[] o, int oo, double[] a, int ao, double[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(LE, v(b, bo + i)), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] <= b[bo + i] ? 1 : 0);
    }

    private static void leScalar(byte[] o, int oo, double[] a, int ao, double s, int n) {
        int i = 0;
        DoubleVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(LE, sv), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] <= s ? 1 : 0);
    }

    private static void gt(byte[] o, int oo, double[] a, int ao, double[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(GT, v(b, bo + i)), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] > b[bo + i] ? 1 : 0);
    }

    private static void gtScalar(byte[] o, int oo, double[] a, int ao, double s, int n) {
        int i = 0;
        DoubleVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(GT, sv), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] > s ? 1 : 0);
    }

    private static void ge(byte[] o, int oo, double[] a, int ao, double[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(GE, v(b, bo + i)), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] >= b[bo + i] ? 1 : 0);
    }

    private static void geScalar(byte[] o, int oo, double[] a, int ao, double s, int n) {
        int i = 0;
        DoubleVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(GE, sv), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] >= s ? 1 : 0);
    }

    // ---------------------------------------------------------------- where (condition bytes as a lane mask)

    /** {@code o = c ? a : b} with {@code c} and {@code o} dense; {@code a} and {@code b} dense or broadcast scalars (stride 0). */
    static void where(double[] o, int oo, byte[] c, int co, double[] a, int ao, int as, double[] b, int bo, int bs, int n) {
        if (as == 1 && bs == 1) whereDense(o, oo, c, co, a, ao, b, bo, n);
        else if (as == 0 && bs == 1) whereScalarDense(o, oo, c, co, a[ao], b, bo, n);
        else whereDenseScalar(o, oo, c, co, a, ao, b[bo], n);
    }

    private static VectorMask<Double> mask(byte[] c, int i) {
        if (B != null) return ByteVector.fromArray(B, c, i).compare(NE, (byte) 0).cast(S);
        long bits = 0;
        for (int j = 0; j < L; j++) if (c[i + j] != 0) bits |= 1L << j;
        return VectorMask.fromLong(S, bits);
    }

    private static void whereDense(double[] o, int oo, byte[] c, int co, double[] a, int ao, double[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(b, bo + i).blend(v(a, ao + i), mask(c, co + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = c[co + i] != 0 ? a[ao + i] : b[bo + i];
    }

    private static void whereScalarDense(double[] o, int oo, byte[] c, int co, double s, double[] b, int bo, int n) {
        int i = 0;
        DoubleVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) v(b, bo + i).blend(sv, mask(c, co + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = c[co + i] != 0 ? s : b[bo + i];
    }

    private static void whereDenseScalar(double[] o, int oo, byte[] c, int co, double[] a, int ao, double s, int n) {
        int i = 0;
        DoubleVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) sv.blend(v(a, ao + i), mask(c, co + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = c[co + i] != 0 ? a[ao + i] : s;
    }
}
