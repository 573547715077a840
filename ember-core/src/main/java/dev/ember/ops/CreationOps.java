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

    /**
     * {@code base^t} for {@code steps} values of t evenly spaced from start to end, as ATen's CPU
     * kernel computes them: start and end first rounded to the dtype, the exponents in double
     * (filled from both ends, so the last is exactly end), the power in double ({@code (float) base}
     * for integer dtypes) and rounded (truncated for integers) once.
     */
    public static final OpOverload LOGSPACE = OpOverload.define("logspace(Scalar start, Scalar end, int steps, float base=10.0, *, ScalarType? dtype=None) -> Tensor")
            .tags(Tag.FACTORY)
            .meta(a -> {
                long steps = a.lng(2);
                if (steps < 0) throw new IllegalArgumentException("logspace: number of steps must be non-negative");
                DType dtype = dtypeOr(a, 4, Defaults.dtype());
                if (dtype == DType.BOOL && steps > 1) throw new IllegalArgumentException("logspace: \"logspace_cpu\" not implemented for 'Bool'");
                return TensorMeta.contiguous(dtype, (int) steps);
            })
            .kernel((a, m) -> {
                Tensor out = Tensor.allocate((TensorMeta) m);
                int n = out.numel();
                DType dtype = out.dtype();
                double base = a.dbl(3);
                if (n == 1) {
                    out.storage().writeDouble(0, Math.pow(base, a.dbl(0)));
                } else if (n > 1) {
                    double start = inDtype(a.dbl(0), dtype), end = inDtype(a.dbl(1), dtype);
                    double b = dtype.isFloatingPoint() ? base : (float) base;
                    double step = (end - start) / (n - 1);
                    int half = n / 2;
                    for (int i = 0; i < n; i++) out.storage().writeDouble(i, Math.pow(b, i < half ? start + step * i : end - step * (n - 1 - i)));
                }
                return out;
            })
            .register();

    /** A scalar as ATen's {@code Scalar.to<scalar_t>()} gives it: rounded to float32, truncated to an integer. */
    private static double inDtype(double v, DType dtype) {
        return switch (dtype) {
            case FLOAT32 -> (float) v;
            case INT32 -> (int) (long) v;
            case INT64 -> (long) v;
            default -> v;
        };
    }

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
                    // straight into the array: a fresh process makes its weights here while the loop still runs
                    // in the interpreter, where a per-element dtype switch and size product cost twice the draw
                    int n = out.numel();
                    if (out.dtype() == DType.FLOAT32) {
                        float[] f = out.storage().floats();
                        for (int i = 0; i < n; i++) f[i] = (float) draw.next(r);
                    } else {
                        for (int i = 0; i < n; i++) out.storage().writeDouble(i, draw.next(r));
                    }
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

    /** A random permutation of 0 … n-1 (Fisher–Yates from the generator), int64 unless a dtype is given. */
    public static final OpOverload RANDPERM = OpOverload.define("randperm(int n, *, Generator? generator=None, ScalarType? dtype=None) -> Tensor")
            .tags(Tag.FACTORY, Tag.NONDETERMINISTIC)
            .meta(a -> {
                if (a.lng(0) < 0) throw new IllegalArgumentException("randperm: n must be non-negative, got" + a.lng(0));
                return TensorMeta.contiguous(dtypeOr(a, 2, DType.INT64), Math.toIntExact(a.lng(0)));
            })
            .kernel((a, m) -> {
                int n = Math.toIntExact(a.lng(0));
                long[] perm = new long[n];
                for (int i = 0; i < n; i++) perm[i] = i;
                SplittableRandom r = generator(a, 1).split();
                for (int i = n - 1; i > 0; i--) {
                    int j = r.nextInt(i + 1);
                    long t = perm[i];
                    perm[i] = perm[j];
                    perm[j] = t;
                }
                return Tensor.of(perm, n).to(((TensorMeta) m).dtype());
            })
            .register();

    /**
     * {@code num_samples} category indices per row of a 1-d or 2-d tensor of non-negative weights
     * (not necessarily summing to 1): drawn with replacement by the cumulative weights, or without,
     * each draw from the weights not yet drawn. ATen's checks, the data ones (a negative, infinite or
     * NaN weight; a row summing to 0) when the kernel reads the values.
     */
    public static final OpOverload MULTINOMIAL = OpOverload.define("multinomial(Tensor self, int num_samples, bool replacement=False, *, Generator? generator=None) -> Tensor")
            .tags(Tag.NONDETERMINISTIC)
            .meta(a -> {
                Tensor p = a.tensor(0);
                int n = a.integer(1);
                if (p.dim() != 1 && p.dim() != 2) throw new IllegalArgumentException("multinomial: prob_dist must be 1 or 2 dim");
                if (!p.dtype().isFloatingPoint()) {
                    throw new IllegalArgumentException("multinomial: multinomial only supports floating-point dtypes for input, got: " + ReductionOps.scalarTypeName(p.dtype()));
                }
                if (n <= 0) throw new IllegalArgumentException("multinomial: cannot sample n_sample <= 0 samples");
                if (!a.bool(2) && n > p.size(-1)) throw new IllegalArgumentException("multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement");
                return p.dim() == 1 ? TensorMeta.contiguous(DType.INT64, n) : TensorMeta.contiguous(DType.INT64, p.size(0), n);
            })
            .kernel((a, m) -> {
                Tensor p = a.tensor(0);
                int n = a.integer(1), categories = p.size(-1), rows = p.dim() == 1 ? 1 : p.size(0);
                boolean replacement = a.bool(2);
                double[] w = p.toDoubleArray();
                long[] out = new long[rows * n];
                SplittableRandom r = generator(a, 3).split();
                for (int row = 0; row < rows; row++) {
                    double[] weights = java.util.Arrays.copyOfRange(w, row * categories, (row + 1) * categories);
                    double total = 0;
                    for (double x : weights) {
                        if (!(x >= 0) || Double.isInfinite(x)) throw new IllegalArgumentException("multinomial: probability tensor contains either `inf`, `nan` or element < 0");
                        total += x;
                    }
                    if (!(total > 0)) throw new IllegalArgumentException("multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
                    boolean[] taken = new boolean[categories];
                    for (int s = 0; s < n; s++) {
                        int pick = total > 0 ? draw(weights, total, r) : -1;
                        if (pick < 0) {
                            // the positive weights are used up (without replacement): ATen's top-k of p / exponential then
                            // takes zero-weight categories; here the first not yet drawn
                            pick = 0;
                            while (taken[pick]) pick++;
                        }
                        out[row * n + s] = pick;
                        if (!replacement) {
                            taken[pick] = true;
                            total -= weights[pick];
                            weights[pick] = 0;
                        }
                    }
                }
                return Tensor.of(out, ((TensorMeta) m).shape());
            })
            .register();

    /** The first category whose cumulative weight exceeds a uniform draw over {@code total}, skipping zero weights. */
    private static int draw(double[] weights, double total, SplittableRandom r) {
        double u = r.nextDouble() * total, acc = 0;
        int last = -1;
        for (int i = 0; i < weights.length; i++) {
            if (weights[i] <= 0) continue;
            acc += weights[i];
            last = i;
            if (u < acc) return i;
        }
        return last;   // rounding left u at the very top: the last positive category (-1: none is left)
    }

    /**
     * 1 with probability {@code self} (each element a probability), else 0, in self's dtype: a
     * uniform draw below the probability. A composite of rand and lt, so it compiles; its gradient
     * is zero, as ATen's.
     */
    public static final OpOverload BERNOULLI = ComposedOps.composed("bernoulli(Tensor self, *, Generator? generator=None) -> Tensor",
                    a -> {
                        if (!a.tensor(0).dtype().isFloatingPoint()) {
                            throw new IllegalArgumentException("bernoulli: expected a floating point tensor of probabilities, got " + ReductionOps.scalarTypeName(a.tensor(0).dtype()));
                        }
                        return TensorMeta.contiguous(a.tensor(0).dtype(), a.tensor(0).shape());
                    },
                    (e, a) -> {
                        TensorMeta m = e.meta(a[0]);
                        Object u = e.call(RAND, m.shape(), a[1], m.dtype());
                        return e.call(ShapeOps.TO_COPY, e.call(PointwiseOps.LT_TENSOR, u, a[0]), m.dtype());
                    })
            .tags(Tag.NONDETERMINISTIC)
            .register();

    /** 1 with probability {@code p} for every element of self's shape and dtype (dropout's mask). */
    public static final OpOverload BERNOULLI_P = ComposedOps.composed("bernoulli.p(Tensor self, float p=0.5, *, Generator? generator=None) -> Tensor",
                    a -> {
                        if (!(a.dbl(1) >= 0 && a.dbl(1) <= 1)) throw new IllegalArgumentException("bernoulli_ expects p to be in [0, 1], but got p=" + a.dbl(1));
                        return TensorMeta.contiguous(a.tensor(0).dtype(), a.tensor(0).shape());
                    },
                    (e, a) -> {
                        TensorMeta m = e.meta(a[0]);
                        DType uniform = m.dtype().isFloatingPoint() ? m.dtype() : DType.FLOAT64;
                        Object u = e.call(RAND, m.shape(), a[2], uniform);
                        return e.call(ShapeOps.TO_COPY, e.call(PointwiseOps.LT_SCALAR, u, a[1]), m.dtype());
                    })
            .tags(Tag.NONDETERMINISTIC)
            .register();
}
