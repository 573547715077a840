package dev.ember.ops.kernels;

import static dev.ember.ops.kernels.PointwiseMath.*;

/**
 * float32 rows: when the output is dense and every operand dense or a broadcast scalar (stride 0),
 * the SIMD loops of {@link PointwiseF32Vec} run; anything else runs a plain strided loop per op,
 * with the op switch hoisted out of the loop.
 */
final class PointwiseF32 {
    private PointwiseF32() {}

    static void binary(PointwiseBinaryOp op, float[] o, int oo, int os, float[] a, int ao, int as, float[] b, int bo, int bs, int n, float alpha) {
        if (os == 1 && op.vectorizable()) {
            if (as == 1 && bs == 1) { PointwiseF32Vec.binary(op, o, oo, a, ao, b, bo, n, alpha); return; }
            if (as == 1 && bs == 0) { PointwiseF32Vec.binaryScalar(op, false, o, oo, a, ao, b[bo], n, alpha); return; }
            if (as == 0 && bs == 1) { PointwiseF32Vec.binaryScalar(op, true, o, oo, b, bo, a[ao], n, alpha); return; }
        }
        strided(op, o, oo, os, a, ao, as, b, bo, bs, n, alpha);
    }

    private static void strided(PointwiseBinaryOp op, float[] o, int oo, int os, float[] a, int ao, int as, float[] b, int bo, int bs, int n, float alpha) {
        switch (op) {
            case ADD -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = a[q] + b[r]; }
            case SUB -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = a[q] - b[r]; }
            case MUL -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = a[q] * b[r]; }
            case DIV -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = a[q] / b[r]; }
            case ADD_SCALED -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = Math.fma(alpha, b[r], a[q]); }
            case MAX -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = Math.max(a[q], b[r]); }
            case MIN -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = Math.min(a[q], b[r]); }
            case DIV_TRUNC -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = divTrunc(a[q], b[r]); }
            case DIV_FLOOR -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = divFloor(a[q], b[r]); }
            case POW -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = pow(a[q], b[r]); }
            case REMAINDER -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = remainder(a[q], b[r]); }
            case FMOD -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = a[q] % b[r]; }
        }
    }

    /** {@code lo}/{@code hi} stay double: ATen raises float32 to a double exponent ({@code std::pow(float, double)}). */
    static void unary(PointwiseUnaryOp op, float[] o, int oo, int os, float[] a, int ao, int as, int n, double lo, double hi) {
        if (os == 1 && as == 1 && PointwiseF32Vec.hasUnary(op, lo)) PointwiseF32Vec.unary(op, o, oo, a, ao, n, lo, hi);
        else strided(op, o, oo, os, a, ao, as, n, lo, hi);
    }

    private static void strided(PointwiseUnaryOp op, float[] o, int oo, int os, float[] a, int ao, int as, int n, double lo, double hi) {
        float l = (float) lo, h = (float) hi;
        switch (op) {
            case NEG -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = -a[q]; }
            case ABS -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = Math.abs(a[q]); }
            case SQRT -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = (float) Math.sqrt(a[q]); }
            case RSQRT -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = 1f / (float) Math.sqrt(a[q]); }
            case RELU -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) { float x = a[q]; o[p] = x < 0 ? 0f : x; } }
            case CLAMP -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = Math.min(Math.max(a[q], l), h); }
            case SQUARE -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) { float x = a[q]; o[p] = x * x; } }
            case CUBE -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) { float x = a[q]; o[p] = x * x * x; } }
            case RECIPROCAL -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = 1f / a[q]; }
            case INV_SQUARE -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) { float x = a[q]; o[p] = 1f / (x * x); } }
            case EXP -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = exp(a[q]); }
            case LOG -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = log(a[q]); }
            case LOG1P -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = log1p(a[q]); }
            case SIN -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = sin(a[q]); }
            case COS -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = cos(a[q]); }
            case TANH -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = tanh(a[q]); }
            case SIGMOID -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = sigmoid(a[q]); }
            case GELU -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = gelu(a[q]); }
            case GELU_TANH -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = geluTanh(a[q]); }
            case SILU -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = silu(a[q]); }
            case POW -> { for (int i = 0, p = oo, q = ao; i < n; i++, p += os, q += as) o[p] = pow(a[q], lo); }
        }
    }

    static void compare(PointwiseCompareOp op, byte[] o, int oo, int os, float[] a, int ao, int as, float[] b, int bo, int bs, int n) {
        if (os == 1) {
            if (as == 1 && bs == 1) { PointwiseF32Vec.compare(op, o, oo, a, ao, b, bo, n); return; }
            if (as == 1 && bs == 0) { PointwiseF32Vec.compareScalar(op, false, o, oo, a, ao, b[bo], n); return; }
            if (as == 0 && bs == 1) { PointwiseF32Vec.compareScalar(op, true, o, oo, b, bo, a[ao], n); return; }
        }
        stridedCompare(op, o, oo, os, a, ao, as, b, bo, bs, n);
    }

    private static void stridedCompare(PointwiseCompareOp op, byte[] o, int oo, int os, float[] a, int ao, int as, float[] b, int bo, int bs, int n) {
        switch (op) {
            case EQ -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = (byte) (a[q] == b[r] ? 1 : 0); }
            case NE -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = (byte) (a[q] != b[r] ? 1 : 0); }
            case LT -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = (byte) (a[q] < b[r] ? 1 : 0); }
            case LE -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = (byte) (a[q] <= b[r] ? 1 : 0); }
            case GT -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = (byte) (a[q] > b[r] ? 1 : 0); }
            case GE -> { for (int i = 0, p = oo, q = ao, r = bo; i < n; i++, p += os, q += as, r += bs) o[p] = (byte) (a[q] >= b[r] ? 1 : 0); }
        }
    }

    static void where(float[] o, int oo, int os, byte[] c, int co, int cs, float[] a, int ao, int as, float[] b, int bo, int bs, int n) {
        if (os == 1 && cs == 1 && (as == 1 || as == 0) && (bs == 1 || bs == 0) && !(as == 0 && bs == 0)) {
            PointwiseF32Vec.where(o, oo, c, co, a, ao, as, b, bo, bs, n);
            return;
        }
        for (int i = 0, p = oo, k = co, q = ao, r = bo; i < n; i++, p += os, k += cs, q += as, r += bs) o[p] = c[k] != 0 ? a[q] : b[r];
    }
}
