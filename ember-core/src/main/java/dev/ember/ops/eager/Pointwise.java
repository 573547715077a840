package dev.ember.ops.eager;

import dev.ember.kernels.BinaryOp;
import dev.ember.kernels.Parallel;
import dev.ember.kernels.PointwiseBool;
import dev.ember.kernels.PointwiseF32;
import dev.ember.kernels.PointwiseF64;
import dev.ember.kernels.PointwiseI32;
import dev.ember.kernels.PointwiseI64;
import dev.ember.kernels.UnaryOp;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;

import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * The pointwise engine: elementwise ops over broadcast operands of any strides, computed in a
 * given dtype (operands of another dtype are converted first) and written into {@code out},
 * which may be a fresh contiguous tensor or, for in-place ops, a strided view of any dtype the
 * result casts to. Checking arguments is the ops' job; the engine only computes.
 *
 * <p>bool arithmetic computes in int32 and converts back (non-zero is true). Inputs that share
 * memory with {@code out} in another layout are read from a copy, so in-place ops stay correct.
 */
public final class Pointwise {
    private Pointwise() {}

    /** {@code out = a op b}; {@code alpha} (a Scalar) is used by {@link BinaryOp#ADD_SCALED}. */
    public static void binary(BinaryOp op, DType compute, Tensor out, Tensor a, Tensor b, Object alpha) {
        if (compute == DType.BOOL && out.dtype() != DType.BOOL) {
            // a bool result (true + true is true) cast into a wider out= tensor, not the int32 it is computed in
            Tensor bools = Tensor.allocate(DType.BOOL, out.shape());
            binary(op, compute, bools, a, b, alpha);
            Copy.copy(bools, out);
            return;
        }
        DType d = compute == DType.BOOL ? DType.INT32 : compute;
        Object al = compute == DType.BOOL && alpha != null ? (Object) (truthy(alpha) ? 1L : 0L) : alpha;
        into(out, d, o -> {
            Tensor x = input(a, d, o), y = input(b, d, o);
            PointwiseRows rows = new PointwiseRows(o, x, y);
            int os = rows.stride(0), xs = rows.stride(1), ys = rows.stride(2), cost = op.vectorizable() ? 1 : EXPENSIVE;
            if (dividesIntegers(op, d) && o.numel() > 0) checkNoZero(y);
            switch (d) {
                case FLOAT32 -> {
                    float[] po = o.storage().floats(), px = x.storage().floats(), py = y.storage().floats();
                    float s = al == null ? 1 : (float) toDouble(al);
                    rows.run((off, n) -> PointwiseF32.binary(op, po, off[0], os, px, off[1], xs, py, off[2], ys, n, s), cost);
                }
                case FLOAT64 -> {
                    double[] po = o.storage().doubles(), px = x.storage().doubles(), py = y.storage().doubles();
                    double s = al == null ? 1 : toDouble(al);
                    rows.run((off, n) -> PointwiseF64.binary(op, po, off[0], os, px, off[1], xs, py, off[2], ys, n, s), cost);
                }
                case INT64 -> {
                    long[] po = o.storage().longs(), px = x.storage().longs(), py = y.storage().longs();
                    long s = al == null ? 1 : toLong(al);
                    rows.run((off, n) -> PointwiseI64.binary(op, po, off[0], os, px, off[1], xs, py, off[2], ys, n, s), cost);
                }
                case INT32 -> {
                    int[] po = o.storage().ints(), px = x.storage().ints(), py = y.storage().ints();
                    int s = al == null ? 1 : (int) toLong(al);
                    rows.run((off, n) -> PointwiseI32.binary(op, po, off[0], os, px, off[1], xs, py, off[2], ys, n, s), cost);
                }
                case BOOL -> throw new AssertionError("bool arithmetic computes in int32");
            }
        });
    }

    /**
     * {@code out = op(a)}; {@code lo}/{@code hi} are Scalars or null: the clamp bounds (null means
     * unbounded), or in {@code lo} the exponent of {@link UnaryOp#POW}.
     */
    public static void unary(UnaryOp op, DType compute, Tensor out, Tensor a, Object lo, Object hi) {
        // the one unary op on truth values (bitwise_not of bool): the others have no bool kernel
        if (op == UnaryOp.NOT) {
            logicalNot(out, a);
            return;
        }
        into(out, compute, o -> {
            Tensor x = input(a, compute, o);
            int cost = cost(op);
            // a strided input would run the scalar loop: for a function that costs more than the copy, gather it first
            if (cost == EXPENSIVE && compute.isFloatingPoint() && o.isContiguous() && !x.isContiguous()) x = contiguousCopy(x);
            PointwiseRows rows = new PointwiseRows(o, x);
            int os = rows.stride(0), xs = rows.stride(1);
            switch (compute) {
                case FLOAT32 -> {
                    float[] po = o.storage().floats(), px = x.storage().floats();
                    double l = lo == null ? Double.NEGATIVE_INFINITY : toDouble(lo), h = hi == null ? Double.POSITIVE_INFINITY : toDouble(hi);
                    rows.run((off, n) -> PointwiseF32.unary(op, po, off[0], os, px, off[1], xs, n, l, h), cost);
                }
                case FLOAT64 -> {
                    double[] po = o.storage().doubles(), px = x.storage().doubles();
                    double l = lo == null ? Double.NEGATIVE_INFINITY : toDouble(lo), h = hi == null ? Double.POSITIVE_INFINITY : toDouble(hi);
                    rows.run((off, n) -> PointwiseF64.unary(op, po, off[0], os, px, off[1], xs, n, l, h), cost);
                }
                case INT64 -> {
                    long[] po = o.storage().longs(), px = x.storage().longs();
                    long l = lo == null ? Long.MIN_VALUE : toLong(lo), h = hi == null ? Long.MAX_VALUE : toLong(hi);
                    rows.run((off, n) -> PointwiseI64.unary(op, po, off[0], os, px, off[1], xs, n, l, h), cost);
                }
                case INT32 -> {
                    int[] po = o.storage().ints(), px = x.storage().ints();
                    int l = lo == null ? Integer.MIN_VALUE : (int) toLong(lo), h = hi == null ? Integer.MAX_VALUE : (int) toLong(hi);
                    rows.run((off, n) -> PointwiseI32.unary(op, po, off[0], os, px, off[1], xs, n, l, h), cost);
                }
                case BOOL -> throw new AssertionError(op + " has no bool kernel");
            }
        });
    }

    /** {@code out = a op b} as bool, comparing in {@code compute}. */
    public static void compare(BinaryOp op, DType compute, Tensor out, Tensor a, Tensor b) {
        DType d = compute == DType.BOOL ? DType.INT32 : compute;
        into(out, DType.BOOL, o -> {
            Tensor x = input(a, d, o), y = input(b, d, o);
            PointwiseRows rows = new PointwiseRows(o, x, y);
            int os = rows.stride(0), xs = rows.stride(1), ys = rows.stride(2);
            byte[] po = o.storage().bools();
            switch (d) {
                case FLOAT32 -> { float[] px = x.storage().floats(), py = y.storage().floats(); rows.run((off, n) -> PointwiseF32.compare(op, po, off[0], os, px, off[1], xs, py, off[2], ys, n), 1); }
                case FLOAT64 -> { double[] px = x.storage().doubles(), py = y.storage().doubles(); rows.run((off, n) -> PointwiseF64.compare(op, po, off[0], os, px, off[1], xs, py, off[2], ys, n), 1); }
                case INT64 -> { long[] px = x.storage().longs(), py = y.storage().longs(); rows.run((off, n) -> PointwiseI64.compare(op, po, off[0], os, px, off[1], xs, py, off[2], ys, n), 1); }
                case INT32 -> { int[] px = x.storage().ints(), py = y.storage().ints(); rows.run((off, n) -> PointwiseI32.compare(op, po, off[0], os, px, off[1], xs, py, off[2], ys, n), 1); }
                case BOOL -> throw new AssertionError("bool comparisons compute in int32");
            }
        });
    }

    /** {@code out = a op b} on truth values ({@link BinaryOp#AND} or {@link BinaryOp#OR}). */
    public static void logical(BinaryOp op, Tensor out, Tensor a, Tensor b) {
        into(out, DType.BOOL, o -> {
            Tensor x = input(a, DType.BOOL, o), y = input(b, DType.BOOL, o);
            PointwiseRows rows = new PointwiseRows(o, x, y);
            int os = rows.stride(0), xs = rows.stride(1), ys = rows.stride(2);
            byte[] po = o.storage().bools(), px = x.storage().bools(), py = y.storage().bools();
            rows.run((off, n) -> PointwiseBool.logical(op, po, off[0], os, px, off[1], xs, py, off[2], ys, n), 1);
        });
    }

    /** {@code out = !a} on truth values. */
    public static void logicalNot(Tensor out, Tensor a) {
        into(out, DType.BOOL, o -> {
            Tensor x = input(a, DType.BOOL, o);
            PointwiseRows rows = new PointwiseRows(o, x);
            int os = rows.stride(0), xs = rows.stride(1);
            byte[] po = o.storage().bools(), px = x.storage().bools();
            rows.run((off, n) -> PointwiseBool.not(po, off[0], os, px, off[1], xs, n), 1);
        });
    }

    /** {@code out = condition ? a : b}, in {@code out}'s dtype; {@code condition} is bool. */
    public static void where(Tensor out, Tensor condition, Tensor a, Tensor b) {
        DType d = out.dtype();
        Tensor c = input(condition, DType.BOOL, out), x = input(a, d, out), y = input(b, d, out);
        PointwiseRows rows = new PointwiseRows(out, c, x, y);
        int os = rows.stride(0), cs = rows.stride(1), xs = rows.stride(2), ys = rows.stride(3);
        byte[] pc = c.storage().bools();
        Storage so = out.storage(), sx = x.storage(), sy = y.storage();
        switch (d) {
            case FLOAT32 -> rows.run((off, n) -> PointwiseF32.where(so.floats(), off[0], os, pc, off[1], cs, sx.floats(), off[2], xs, sy.floats(), off[3], ys, n), 1);
            case FLOAT64 -> rows.run((off, n) -> PointwiseF64.where(so.doubles(), off[0], os, pc, off[1], cs, sx.doubles(), off[2], xs, sy.doubles(), off[3], ys, n), 1);
            case INT64 -> rows.run((off, n) -> PointwiseI64.where(so.longs(), off[0], os, pc, off[1], cs, sx.longs(), off[2], xs, sy.longs(), off[3], ys, n), 1);
            case INT32 -> rows.run((off, n) -> PointwiseI32.where(so.ints(), off[0], os, pc, off[1], cs, sx.ints(), off[2], xs, sy.ints(), off[3], ys, n), 1);
            case BOOL -> rows.run((off, n) -> PointwiseBool.where(so.bools(), off[0], os, pc, off[1], cs, sx.bools(), off[2], xs, sy.bools(), off[3], ys, n), 1);
        }
    }

    /** Elements per random stream in dropout: the mask depends on the seed only, not on how work is split. */
    private static final int DROPOUT_BLOCK = 1 << 14;

    /**
     * {@code out = input * mask / (1 - p)} with a Bernoulli(1 - p) keep mask drawn from
     * {@code random}; {@code out} is a fresh contiguous floating tensor of {@code input}'s shape.
     * Dropped elements are multiplied by zero, as ATen does (so NaN and inf stay NaN).
     */
    public static void dropout(Tensor out, Tensor input, double p, SplittableRandom random) { dropout(out, null, input, p, random); }

    /**
     * {@link #dropout(Tensor, Tensor, double, SplittableRandom)}, also writing the keep mask into
     * {@code mask} (a fresh contiguous bool tensor of the same shape) when it is not null: the
     * same draws, so the output does not depend on whether the mask is kept.
     */
    public static void dropout(Tensor out, Tensor mask, Tensor input, double p, SplittableRandom random) {
        Copy.copy(input, out);
        byte[] m = mask == null ? null : mask.storage().bools();
        long seed = random.nextLong();
        int n = out.numel(), blocks = (n + DROPOUT_BLOCK - 1) / DROPOUT_BLOCK;
        double keep = 1 - p;
        Parallel.forRange(blocks, DROPOUT_BLOCK, (lo, hi) -> {
            for (int blk = lo; blk < hi; blk++) {
                SplittableRandom r = new SplittableRandom(seed + blk * 0x9E3779B97F4A7C15L);
                int start = blk * DROPOUT_BLOCK, end = Math.min(n, start + DROPOUT_BLOCK);
                if (out.dtype() == DType.FLOAT32) {
                    float[] o = out.storage().floats();
                    float scale = 1f / (float) keep;
                    for (int i = start; i < end; i++) {
                        boolean kept = r.nextDouble() < keep;
                        o[i] *= kept ? scale : 0f;
                        if (m != null) m[i] = (byte) (kept ? 1 : 0);
                    }
                } else {
                    double[] o = out.storage().doubles();
                    double scale = 1 / keep;
                    for (int i = start; i < end; i++) {
                        boolean kept = r.nextDouble() < keep;
                        o[i] *= kept ? scale : 0.0;
                        if (m != null) m[i] = (byte) (kept ? 1 : 0);
                    }
                }
            }
        });
    }

    /** A 0-d tensor of {@code dtype} holding {@code value} (a Double, Long or Boolean) converted C-style. */
    public static Tensor scalar(Object value, DType dtype) {
        Tensor t = Tensor.allocate(dtype);
        if (value instanceof Double v) t.storage().writeDouble(0, v);
        else t.storage().writeLong(0, toLong(value));
        return t;
    }

    /** Runs {@code body} on {@code out} itself when it has the compute dtype, else on a temporary copied into it. */
    private static void into(Tensor out, DType compute, Consumer<Tensor> body) {
        if (out.dtype() == compute) {
            body.accept(out);
            return;
        }
        Tensor tmp = Tensor.allocate(compute, out.shape());
        body.accept(tmp);
        Copy.copy(tmp, out);
    }

    /** {@code t} in dtype {@code d}, copied when converting or when it overlaps {@code out} in another layout. */
    private static Tensor input(Tensor t, DType d, Tensor out) {
        if (t.dtype() == d && !(t.storage() == out.storage() && !sameLayout(t, out))) return t;
        return copy(t, d);
    }

    private static Tensor contiguousCopy(Tensor t) {
        return copy(t, t.dtype());
    }

    private static Tensor copy(Tensor t, DType d) {
        Tensor c = Tensor.allocate(d, t.shape());
        Copy.copy(t, c);
        return c;
    }

    /** True when {@code t}, broadcast to {@code out}'s shape, reads element i from where out writes element i. */
    private static boolean sameLayout(Tensor t, Tensor out) {
        if (t.storageOffset() != out.storageOffset()) return false;
        int[] shape = out.shape(), os = out.strides();
        int[] ts = Shapes.broadcastStrides(t.shape(), t.strides(), shape);
        for (int d = 0; d < shape.length; d++) if (shape[d] > 1 && ts[d] != os[d]) return false;
        return true;
    }

    /** The integer kernels of these ops divide, so a zero divisor raises (ATen's ZeroDivisionError) instead of giving a value. */
    private static boolean dividesIntegers(BinaryOp op, DType d) {
        return !d.isFloatingPoint() && switch (op) {
            case DIV_TRUNC, DIV_FLOOR, REMAINDER, FMOD -> true;
            default -> false;
        };
    }

    private static void checkNoZero(Tensor divisor) {
        PointwiseRows rows = new PointwiseRows(divisor);
        int s = rows.stride(0);
        boolean[] zero = {false};
        Storage st = divisor.storage();
        rows.run((off, n) -> {
            boolean z = st.dtype() == DType.INT64 ? PointwiseI64.anyZero(st.longs(), off[0], s, n) : PointwiseI32.anyZero(st.ints(), off[0], s, n);
            if (z) zero[0] = true;
        }, 1);
        if (zero[0]) throw new ArithmeticException("ZeroDivisionError");
    }

    /** Work per element, relative to an add, of the ops that evaluate a function per element (exp, pow, floor division, …). */
    private static final int EXPENSIVE = 8;

    private static int cost(UnaryOp op) {
        return switch (op) {
            case NEG, ABS, RELU, CLAMP, SQUARE, CUBE, BITWISE_NOT -> 1;
            case SQRT, RSQRT, RECIPROCAL, INV_SQUARE -> 2;
            default -> EXPENSIVE;
        };
    }

    private static boolean truthy(Object scalar) {
        return scalar instanceof Boolean b ? b : ((Number) scalar).doubleValue() != 0;
    }

    private static double toDouble(Object scalar) {
        return scalar instanceof Boolean b ? (b ? 1 : 0) : ((Number) scalar).doubleValue();
    }

    private static long toLong(Object scalar) {
        if (scalar instanceof Boolean b) return b ? 1 : 0;
        if (scalar instanceof Double d) return (long) (double) d;
        return ((Number) scalar).longValue();
    }
}
