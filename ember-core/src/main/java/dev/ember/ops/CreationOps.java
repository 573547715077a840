package dev.ember.ops;

import dev.ember.ops.eager.Copy;
import dev.ember.tensor.DType;
import dev.ember.tensor.Defaults;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.SplittableRandom;

/** Factories: zeros, ones, full, empty, arange, linspace, eye, rand, randn, randint. */
public final class CreationOps {
    private CreationOps() {}

    private static int[] checkedSize(String op, int[] size) {
        for (int s : size) {
            if (s < 0) throw new IllegalArgumentException(op + ": negative dimension " + s + " in size " + Shapes.format(size));
        }
        Shapes.numel(size);
        return size;
    }

    private static DType dtypeOr(Args a, int i, DType fallback) {
        return a.get(i) == null ? fallback : a.dtype(i);
    }

    private static OpOverload filled(String schema, Object value) {
        return OpOverload.define(schema)
                .tags(Tag.FACTORY)
                .meta(a -> TensorMeta.contiguous(dtypeOr(a, 1, Defaults.dtype()), checkedSize(a.op().schema().name(), a.ints(0))))
                .kernel((a, m) -> {
                    Tensor out = Tensor.allocate((TensorMeta) m);
                    if (value != null) Copy.fill(out, value);
                    return out;
                })
                .register();
    }

    public static final OpOverload ZEROS = filled("zeros(int[] size, *, ScalarType? dtype=None) -> Tensor", null);

    public static final OpOverload ONES = filled("ones(int[] size, *, ScalarType? dtype=None) -> Tensor", 1L);

    /** Ember's empty is zeroed: the JVM zeroes every new array, so uninitialised memory never leaks. */
    public static final OpOverload EMPTY = filled("empty.memory_format(int[] size, *, ScalarType? dtype=None) -> Tensor", null);

    public static final OpOverload FULL = OpOverload.define("full(int[] size, Scalar fill_value, *, ScalarType? dtype=None) -> Tensor")
            .tags(Tag.FACTORY)
            .meta(a -> TensorMeta.contiguous(dtypeOr(a, 2, TypePromotion.scalarType(a.scalar(1))), checkedSize("full", a.ints(0))))
            .kernel((a, m) -> {
                Tensor out = Tensor.allocate((TensorMeta) m);
                Copy.fill(out, a.scalar(1));
                return out;
            })
            .register();

    public static final OpOverload ARANGE = OpOverload.define("arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None) -> Tensor")
            .tags(Tag.FACTORY)
            .meta(a -> {
                boolean integral = a.scalar(0) instanceof Long && a.scalar(1) instanceof Long && a.scalar(2) instanceof Long;
                DType dtype = dtypeOr(a, 3, integral ? DType.INT64 : Defaults.dtype());
                return TensorMeta.contiguous(dtype, arangeLength(a.dbl(0), a.dbl(1), a.dbl(2)));
            })
            .kernel((a, m) -> {
                Tensor out = Tensor.allocate((TensorMeta) m);
                double start = a.dbl(0), step = a.dbl(2);
                long lstart = a.scalar(0) instanceof Long l ? l : 0, lstep = a.scalar(2) instanceof Long l ? l : 0;
                boolean exact = a.scalar(0) instanceof Long && a.scalar(2) instanceof Long;
                for (int i = 0; i < out.numel(); i++) {
                    if (exact) out.storage().writeLong(i, lstart + i * lstep);
                    else out.storage().writeDouble(i, start + i * step);
                }
                return out;
            })
            .register();

    private static int arangeLength(double start, double end, double step) {
        if (step == 0) throw new IllegalArgumentException("arange: step must be nonzero");
        if (!Double.isFinite(start) || !Double.isFinite(end)) throw new IllegalArgumentException("arange: unsupported range: " + start + " -> " + end);
        if ((step > 0 && end < start) || (step < 0 && end > start)) {
            throw new IllegalArgumentException("arange: upper bound and larger bound inconsistent with step sign (start=" + start + ", end=" + end + ", step=" + step + ")");
        }
        double n = Math.ceil((end - start) / step);
        if (n > Integer.MAX_VALUE - 8) throw new IllegalArgumentException("arange: " + (long) n + " elements is too many");
        return (int) n;
    }

    public static final OpOverload LINSPACE = OpOverload.define("linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None) -> Tensor")
            .tags(Tag.FACTORY)
            .meta(a -> {
                long steps = a.lng(2);
                if (steps < 0) throw new IllegalArgumentException("linspace: number of steps must be non-negative, got " + steps);
                return TensorMeta.contiguous(dtypeOr(a, 3, Defaults.dtype()), (int) steps);
            })
            .kernel((a, m) -> {
                Tensor out = Tensor.allocate((TensorMeta) m);
                double start = a.dbl(0), end = a.dbl(1);
                int n = out.numel();
                double step = n > 1 ? (end - start) / (n - 1) : 0;
                int half = n / 2;
                for (int i = 0; i < n; i++) {   // ATen fills from both ends so that the last value is exactly `end`
                    out.storage().writeDouble(i, i < half ? start + step * i : end - step * (n - 1 - i));
                }
                return out;
            })
            .register();

    public static final OpOverload EYE = OpOverload.define("eye(int n, *, ScalarType? dtype=None) -> Tensor")
            .tags(Tag.FACTORY)
            .meta(a -> {
                int n = a.integer(0);
                if (n < 0) throw new IllegalArgumentException("eye: n must be greater or equal to 0, got " + n);
                return TensorMeta.contiguous(dtypeOr(a, 1, Defaults.dtype()), n, n);
            })
            .kernel((a, m) -> {
                Tensor out = Tensor.allocate((TensorMeta) m);
                int n = a.integer(0);
                for (int i = 0; i < n; i++) out.storage().writeLong(i * n + i, 1);
                return out;
            })
            .register();

    private static Generator generator(Args a, int i) {
        Object g = a.get(i);
        if (g == null) return Generator.global();
        if (g instanceof Generator gen) return gen;
        throw new IllegalArgumentException(a.op().name() + ": argument 'generator' must be a Generator, got " + g.getClass().getSimpleName());
    }

    private interface Draw { double next(SplittableRandom r); }

    private static OpOverload random(String schema, Draw draw) {
        return OpOverload.define(schema)
                .tags(Tag.FACTORY, Tag.NONDETERMINISTIC)
                .meta(a -> {
                    DType d = dtypeOr(a, 2, Defaults.dtype());
                    if (!d.isFloatingPoint()) throw new IllegalArgumentException(a.op().schema().name() + ": expected a floating point dtype, got " + d);
                    return TensorMeta.contiguous(d, checkedSize(a.op().schema().name(), a.ints(0)));
                })
                .kernel((a, m) -> {
                    Tensor out = Tensor.allocate((TensorMeta) m);
                    SplittableRandom r = generator(a, 1).split();
                    for (int i = 0; i < out.numel(); i++) out.storage().writeDouble(i, draw.next(r));
                    return out;
                })
                .register();
    }

    public static final OpOverload RAND = random("rand(int[] size, *, Generator? generator=None, ScalarType? dtype=None) -> Tensor",
            SplittableRandom::nextDouble);

    public static final OpOverload RANDN = random("randn(int[] size, *, Generator? generator=None, ScalarType? dtype=None) -> Tensor",
            CreationOps::gaussian);

    private static double gaussian(SplittableRandom r) {
        // Box–Muller; one of the pair is enough and keeps the stream position simple.
        double u1 = 1.0 - r.nextDouble(), u2 = r.nextDouble();
        return Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }

    public static final OpOverload RANDINT = OpOverload.define("randint.low(int low, int high, int[] size, *, Generator? generator=None, ScalarType? dtype=None) -> Tensor")
            .tags(Tag.FACTORY, Tag.NONDETERMINISTIC)
            .meta(a -> {
                if (a.lng(0) >= a.lng(1)) throw new IllegalArgumentException("randint: expects low < high, but got low=" + a.lng(0) + ", high=" + a.lng(1));
                return TensorMeta.contiguous(dtypeOr(a, 4, DType.INT64), checkedSize("randint", a.ints(2)));
            })
            .kernel((a, m) -> {
                Tensor out = Tensor.allocate((TensorMeta) m);
                SplittableRandom r = generator(a, 3).split();
                long lo = a.lng(0), hi = a.lng(1);
                for (int i = 0; i < out.numel(); i++) out.storage().writeLong(i, r.nextLong(lo, hi));
                return out;
            })
            .register();
}
