package dev.ember.ops.kernels;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

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
import static jdk.incubator.vector.VectorOperators.TANH;

/**
 * Dense float32 rows with explicit SIMD. C2 cannot auto-vectorize these loops: the operands are
 * arrays at runtime offsets that might overlap, so it must assume a loop-carried dependence. The
 * engine never passes overlapping operands, and the Vector API needs no such proof. Each loop is
 * its own small method with a constant vector operator (so it is always intrinsified); exp, sin,
 * cos and sigmoid are {@link VectorMath}'s, the same functions the inductor's generated loops call;
 * scalar tails use {@link PointwiseMath}, whose results agree with the vector lanes to an ulp or two.
 */
final class PointwiseF32Vec {
    private PointwiseF32Vec() {}

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();

    private static FloatVector v(float[] x, int i) { return FloatVector.fromArray(S, x, i); }

    private static FloatVector k(float c) { return FloatVector.broadcast(S, c); }

    // ---------------------------------------------------------------- binary, both operands dense

    static void binary(PointwiseBinaryOp op, float[] o, int oo, float[] a, int ao, float[] b, int bo, int n, float alpha) {
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

    private static void add(float[] o, int oo, float[] a, int ao, float[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).add(v(b, bo + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = a[ao + i] + b[bo + i];
    }

    private static void sub(float[] o, int oo, float[] a, int ao, float[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).sub(v(b, bo + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = a[ao + i] - b[bo + i];
    }

    private static void mul(float[] o, int oo, float[] a, int ao, float[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).mul(v(b, bo + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = a[ao + i] * b[bo + i];
    }

    private static void div(float[] o, int oo, float[] a, int ao, float[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).div(v(b, bo + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = a[ao + i] / b[bo + i];
    }

    private static void addScaled(float[] o, int oo, float[] a, int ao, float[] b, int bo, int n, float alpha) {
        int i = 0;
        FloatVector al = k(alpha);
        for (int up = S.loopBound(n); i < up; i += L) v(b, bo + i).fma(al, v(a, ao + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.fma(alpha, b[bo + i], a[ao + i]);
    }

    private static void max(float[] o, int oo, float[] a, int ao, float[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).max(v(b, bo + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.max(a[ao + i], b[bo + i]);
    }

    private static void min(float[] o, int oo, float[] a, int ao, float[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).min(v(b, bo + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.min(a[ao + i], b[bo + i]);
    }

    // ---------------------------------------------------------------- binary, one operand a scalar

    /** {@code o = a op s} when {@code scalarOnLeft} is false, {@code o = s op a} when it is true. */
    static void binaryScalar(PointwiseBinaryOp op, boolean scalarOnLeft, float[] o, int oo, float[] a, int ao, float s, int n, float alpha) {
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

    private static void addScalar(float[] o, int oo, float[] a, int ao, float s, int n) {
        int i = 0;
        FloatVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).add(sv).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = a[ao + i] + s;
    }

    private static void subScalar(float[] o, int oo, float[] a, int ao, float s, int n) {
        int i = 0;
        FloatVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).sub(sv).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = a[ao + i] - s;
    }

    private static void scalarSub(float[] o, int oo, float s, float[] b, int bo, int n) {
        int i = 0;
        FloatVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) sv.sub(v(b, bo + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = s - b[bo + i];
    }

    private static void mulScalar(float[] o, int oo, float[] a, int ao, float s, int n) {
        int i = 0;
        FloatVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).mul(sv).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = a[ao + i] * s;
    }

    private static void divScalar(float[] o, int oo, float[] a, int ao, float s, int n) {
        int i = 0;
        FloatVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).div(sv).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = a[ao + i] / s;
    }

    private static void scalarDiv(float[] o, int oo, float s, float[] b, int bo, int n) {
        int i = 0;
        FloatVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) sv.div(v(b, bo + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = s / b[bo + i];
    }

    private static void scalarAddScaled(float[] o, int oo, float s, float[] b, int bo, int n, float alpha) {
        int i = 0;
        FloatVector sv = k(s), al = k(alpha);
        for (int up = S.loopBound(n); i < up; i += L) v(b, bo + i).fma(al, sv).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.fma(alpha, b[bo + i], s);
    }

    private static void addScaledScalar(float[] o, int oo, float[] a, int ao, float s, int n, float alpha) {
        int i = 0;
        FloatVector sv = k(s), al = k(alpha);
        for (int up = S.loopBound(n); i < up; i += L) sv.fma(al, v(a, ao + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.fma(alpha, s, a[ao + i]);
    }

    private static void maxScalar(float[] o, int oo, float[] a, int ao, float s, int n) {
        int i = 0;
        FloatVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).max(sv).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.max(a[ao + i], s);
    }

    private static void minScalar(float[] o, int oo, float[] a, int ao, float s, int n) {
        int i = 0;
        FloatVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).min(sv).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.min(a[ao + i], s);
    }

    // ---------------------------------------------------------------- unary

    /** True when {@link #unary} has a SIMD loop for {@code op} with parameter {@code p}. */
    static boolean hasUnary(PointwiseUnaryOp op, double p) {
        return op != PointwiseUnaryOp.POW || Double.isFinite(p);   // C's pow(1, NaN) = 1 needs the scalar path
    }

    static void unary(PointwiseUnaryOp op, float[] o, int oo, float[] a, int ao, int n, double lo, double hi) {
        switch (op) {
            case NEG -> neg(o, oo, a, ao, n);
            case ABS -> abs(o, oo, a, ao, n);
            case SQRT -> sqrt(o, oo, a, ao, n);
            case RSQRT -> rsqrt(o, oo, a, ao, n);
            case RELU -> relu(o, oo, a, ao, n);
            case CLAMP -> clamp(o, oo, a, ao, n, (float) lo, (float) hi);
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
            case GELU -> gelu(o, oo, a, ao, n);
            case GELU_TANH -> geluTanh(o, oo, a, ao, n);
            case POW -> pow(o, oo, a, ao, n, lo);
        }
    }

    private static void neg(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).neg().intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = -a[ao + i];
    }

    private static void abs(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).abs().intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.abs(a[ao + i]);
    }

    private static void sqrt(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).sqrt().intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = (float) Math.sqrt(a[ao + i]);
    }

    private static void rsqrt(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        FloatVector one = k(1f);
        for (int up = S.loopBound(n); i < up; i += L) one.div(v(a, ao + i).sqrt()).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = 1f / (float) Math.sqrt(a[ao + i]);
    }

    /** {@code x < 0 ? 0 : x}, so NaN and -0.0 pass through as in ATen. */
    private static void relu(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        FloatVector zero = k(0f);
        for (int up = S.loopBound(n); i < up; i += L) {
            FloatVector x = v(a, ao + i);
            x.blend(zero, x.compare(LT, zero)).intoArray(o, oo + i);
        }
        for (; i < n; i++) o[oo + i] = a[ao + i] < 0 ? 0f : a[ao + i];
    }

    private static void clamp(float[] o, int oo, float[] a, int ao, int n, float lo, float hi) {
        int i = 0;
        FloatVector l = k(lo), h = k(hi);
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).max(l).min(h).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = Math.min(Math.max(a[ao + i], lo), hi);
    }

    private static void square(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) { FloatVector x = v(a, ao + i); x.mul(x).intoArray(o, oo + i); }
        for (; i < n; i++) o[oo + i] = a[ao + i] * a[ao + i];
    }

    private static void cube(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) { FloatVector x = v(a, ao + i); x.mul(x).mul(x).intoArray(o, oo + i); }
        for (; i < n; i++) o[oo + i] = a[ao + i] * a[ao + i] * a[ao + i];
    }

    private static void reciprocal(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        FloatVector one = k(1f);
        for (int up = S.loopBound(n); i < up; i += L) one.div(v(a, ao + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = 1f / a[ao + i];
    }

    private static void invSquare(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        FloatVector one = k(1f);
        for (int up = S.loopBound(n); i < up; i += L) { FloatVector x = v(a, ao + i); one.div(x.mul(x)).intoArray(o, oo + i); }
        for (; i < n; i++) o[oo + i] = 1f / (a[ao + i] * a[ao + i]);
    }

    private static void exp(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) VectorMath.exp(v(a, ao + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = PointwiseMath.exp(a[ao + i]);
    }

    private static void log(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).lanewise(LOG).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = PointwiseMath.log(a[ao + i]);
    }

    private static void log1p(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).lanewise(LOG1P).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = PointwiseMath.log1p(a[ao + i]);
    }

    private static void sin(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) VectorMath.sin(v(a, ao + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = PointwiseMath.sin(a[ao + i]);
    }

    private static void cos(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) VectorMath.cos(v(a, ao + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = PointwiseMath.cos(a[ao + i]);
    }

    private static void tanh(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).lanewise(TANH).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = PointwiseMath.tanh(a[ao + i]);
    }

    private static void sigmoid(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) VectorMath.sigmoid(v(a, ao + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = PointwiseMath.sigmoid(a[ao + i]);
    }

    private static void silu(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        FloatVector one = k(1f);
        for (int up = S.loopBound(n); i < up; i += L) { FloatVector x = v(a, ao + i); x.div(one.add(VectorMath.exp(x.neg()))).intoArray(o, oo + i); }
        for (; i < n; i++) o[oo + i] = PointwiseMath.silu(a[ao + i]);
    }

    /**
     * {@code x/2 (1 + erf(x/√2))} with ATen's own float erf (Abramowitz–Stegun 7.1.26,
     * |error| &lt; 1.5e-7): {@code erf(z) = sign(z) (1 − t (a1 + t (a2 + …)) e^(−z²))}, {@code t = 1/(1 + p|z|)}.
     */
    private static void gelu(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        FloatVector one = k(1f), half = k(0.5f), rsqrt2 = k((float) (1 / Math.sqrt(2))), p = k(0.3275911f);
        FloatVector a1 = k(0.254829592f), a2 = k(-0.284496736f), a3 = k(1.421413741f), a4 = k(-1.453152027f), a5 = k(1.061405429f);
        for (int up = S.loopBound(n); i < up; i += L) {
            FloatVector x = v(a, ao + i), z = x.mul(rsqrt2), az = z.abs();
            FloatVector t = one.div(p.fma(az, one));
            FloatVector poly = a5.fma(t, a4).fma(t, a3).fma(t, a2).fma(t, a1);
            FloatVector tail = poly.mul(t).mul(z.mul(z).neg().lanewise(EXP));
            FloatVector erfAbs = one.sub(tail);
            FloatVector erf = erfAbs.blend(erfAbs.neg(), z.compare(LT, 0f));
            x.mul(half).mul(one.add(erf)).intoArray(o, oo + i);
        }
        for (; i < n; i++) o[oo + i] = PointwiseMath.gelu(a[ao + i]);
    }

    private static void geluTanh(float[] o, int oo, float[] a, int ao, int n) {
        int i = 0;
        FloatVector one = k(1f), half = k(0.5f), beta = k((float) Math.sqrt(2 / Math.PI)), kappa = k(0.044715f);
        for (int up = S.loopBound(n); i < up; i += L) {
            FloatVector x = v(a, ao + i);
            FloatVector inner = beta.mul(x.add(kappa.mul(x).mul(x).mul(x)));
            half.mul(x).mul(one.add(inner.lanewise(TANH))).intoArray(o, oo + i);
        }
        for (; i < n; i++) o[oo + i] = PointwiseMath.geluTanh(a[ao + i]);
    }

    /** Lanes raise to the exponent rounded to float, the tail to the exact one: ATen's vector and scalar paths do the same. */
    private static void pow(float[] o, int oo, float[] a, int ao, int n, double e) {
        int i = 0;
        FloatVector ev = k((float) e);
        for (int up = S.loopBound(n); i < up; i += L) v(a, ao + i).lanewise(POW, ev).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = PointwiseMath.pow(a[ao + i], e);
    }

    // ---------------------------------------------------------------- comparisons (bool out: one byte lane per element)

    /**
     * One byte lane per float lane; a float vector of fewer than 8 lanes (AVX2's 4 doubles) has no
     * byte vector of its lane count, so its masks are stored and loaded bit by bit.
     */
    private static final VectorSpecies<Byte> B = L >= 8 ? VectorSpecies.of(byte.class, VectorShape.forBitSize(L * 8)) : null;
    private static final ByteVector ONE = B == null ? null : ByteVector.broadcast(B, (byte) 1), ZERO = B == null ? null : ByteVector.zero(B);

    private static void storeMask(VectorMask<Float> m, byte[] o, int at) {
        if (B != null) {
            ZERO.blend(ONE, m.cast(B)).intoArray(o, at);
            return;
        }
        long bits = m.toLong();
        for (int j = 0; j < L; j++) o[at + j] = (byte) (bits >>> j & 1);
    }

    static void compare(PointwiseCompareOp op, byte[] o, int oo, float[] a, int ao, float[] b, int bo, int n) {
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
    static void compareScalar(PointwiseCompareOp op, boolean scalarOnLeft, byte[] o, int oo, float[] a, int ao, float s, int n) {
        switch (scalarOnLeft ? op.mirrored() : op) {
            case EQ -> eqScalar(o, oo, a, ao, s, n);
            case NE -> neScalar(o, oo, a, ao, s, n);
            case LT -> ltScalar(o, oo, a, ao, s, n);
            case LE -> leScalar(o, oo, a, ao, s, n);
            case GT -> gtScalar(o, oo, a, ao, s, n);
            case GE -> geScalar(o, oo, a, ao, s, n);
        }
    }

    private static void eq(byte[] o, int oo, float[] a, int ao, float[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(EQ, v(b, bo + i)), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] == b[bo + i] ? 1 : 0);
    }

    private static void eqScalar(byte[] o, int oo, float[] a, int ao, float s, int n) {
        int i = 0;
        FloatVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(EQ, sv), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] == s ? 1 : 0);
    }

    private static void ne(byte[] o, int oo, float[] a, int ao, float[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(NE, v(b, bo + i)), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] != b[bo + i] ? 1 : 0);
    }

    private static void neScalar(byte[] o, int oo, float[] a, int ao, float s, int n) {
        int i = 0;
        FloatVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(NE, sv), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] != s ? 1 : 0);
    }

    private static void lt(byte[] o, int oo, float[] a, int ao, float[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(LT, v(b, bo + i)), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] < b[bo + i] ? 1 : 0);
    }

    private static void ltScalar(byte[] o, int oo, float[] a, int ao, float s, int n) {
        int i = 0;
        FloatVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(LT, sv), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] < s ? 1 : 0);
    }

    private static void le(byte[] o, int oo, float[] a, int ao, float[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(LE, v(b, bo + i)), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] <= b[bo + i] ? 1 : 0);
    }

    private static void leScalar(byte[] o, int oo, float[] a, int ao, float s, int n) {
        int i = 0;
        FloatVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(LE, sv), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] <= s ? 1 : 0);
    }

    private static void gt(byte[] o, int oo, float[] a, int ao, float[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(GT, v(b, bo + i)), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] > b[bo + i] ? 1 : 0);
    }

    private static void gtScalar(byte[] o, int oo, float[] a, int ao, float s, int n) {
        int i = 0;
        FloatVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(GT, sv), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] > s ? 1 : 0);
    }

    private static void ge(byte[] o, int oo, float[] a, int ao, float[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(GE, v(b, bo + i)), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] >= b[bo + i] ? 1 : 0);
    }

    private static void geScalar(byte[] o, int oo, float[] a, int ao, float s, int n) {
        int i = 0;
        FloatVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) storeMask(v(a, ao + i).compare(GE, sv), o, oo + i);
        for (; i < n; i++) o[oo + i] = (byte) (a[ao + i] >= s ? 1 : 0);
    }

    // ---------------------------------------------------------------- where (condition bytes as a lane mask)

    /** {@code o = c ? a : b} with {@code c} and {@code o} dense; {@code a} and {@code b} dense or broadcast scalars (stride 0). */
    static void where(float[] o, int oo, byte[] c, int co, float[] a, int ao, int as, float[] b, int bo, int bs, int n) {
        if (as == 1 && bs == 1) whereDense(o, oo, c, co, a, ao, b, bo, n);
        else if (as == 0 && bs == 1) whereScalarDense(o, oo, c, co, a[ao], b, bo, n);
        else whereDenseScalar(o, oo, c, co, a, ao, b[bo], n);
    }

    private static VectorMask<Float> mask(byte[] c, int i) {
        if (B != null) return ByteVector.fromArray(B, c, i).compare(NE, (byte) 0).cast(S);
        long bits = 0;
        for (int j = 0; j < L; j++) if (c[i + j] != 0) bits |= 1L << j;
        return VectorMask.fromLong(S, bits);
    }

    private static void whereDense(float[] o, int oo, byte[] c, int co, float[] a, int ao, float[] b, int bo, int n) {
        int i = 0;
        for (int up = S.loopBound(n); i < up; i += L) v(b, bo + i).blend(v(a, ao + i), mask(c, co + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = c[co + i] != 0 ? a[ao + i] : b[bo + i];
    }

    private static void whereScalarDense(float[] o, int oo, byte[] c, int co, float s, float[] b, int bo, int n) {
        int i = 0;
        FloatVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) v(b, bo + i).blend(sv, mask(c, co + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = c[co + i] != 0 ? s : b[bo + i];
    }

    private static void whereDenseScalar(float[] o, int oo, byte[] c, int co, float[] a, int ao, float s, int n) {
        int i = 0;
        FloatVector sv = k(s);
        for (int up = S.loopBound(n); i < up; i += L) sv.blend(v(a, ao + i), mask(c, co + i)).intoArray(o, oo + i);
        for (; i < n; i++) o[oo + i] = c[co + i] != 0 ? a[ao + i] : s;
    }
}
