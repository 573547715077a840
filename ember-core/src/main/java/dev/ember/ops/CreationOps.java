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
                    throw new IllegalArgumentException("multinomial: multinomial only supports floating-point dtypes for input, got: " + p.dtype().scalarTypeName());
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
                            throw new IllegalArgumentException("bernoulli: expected a floating point tensor of probabilities, got " + a.tensor(0).dtype().scalarTypeName());
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

    // ------------------------------------------------------------------ in-place samplers (a tensor refilled from a distribution)

    /**
     * One draw of a distribution from the generator's stream and the op's arguments (ATen's CPU
     * transformations of a uniform or normal draw), in double; the kernel rounds it to self's dtype.
     */
    private interface Sample { double next(SplittableRandom r, Args a); }

    /** A draw in (0, 1]: never 0, so its log is finite. */
    private static double openUniform(SplittableRandom r) { return 1.0 - r.nextDouble(); }

    /** Uniform on [from, to); a float32 draw that rounds up to {@code to} is the float below it. */
    public static final OpOverload UNIFORM = sampler("uniform(Tensor self, float from=0, float to=1, *, Generator? generator=None) -> Tensor",
            CreationOps::checkUniform, (r, a) -> a.dbl(1) + (a.dbl(2) - a.dbl(1)) * r.nextDouble());
    public static final OpOverload UNIFORM_ = samplerInPlace("uniform_(Tensor(a!) self, float from=0, float to=1, *, Generator? generator=None) -> Tensor(a!)", UNIFORM);

    /** Normal with mean and std (std 0 gives the mean). ATen's functional form of normal_ is named normal_functional. */
    public static final OpOverload NORMAL_FUNCTIONAL = sampler("normal_functional(Tensor self, float mean=0, float std=1, *, Generator? generator=None) -> Tensor",
            a -> {
                if (!(a.dbl(2) >= 0)) throw new IllegalArgumentException("normal_: normal expects std >= 0.0, but found std " + cpp(a.dbl(2)));
                floatingOnly(a, "normal_kernel_cpu");
            },
            (r, a) -> a.dbl(1) + a.dbl(2) * gaussian(r));
    public static final OpOverload NORMAL_ = samplerInPlace("normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) -> Tensor(a!)", NORMAL_FUNCTIONAL);

    /** Exponential with rate lambd: {@code −log(u) / lambd}, u in (0, 1] (lambd = inf gives zeros, as ATen's). */
    public static final OpOverload EXPONENTIAL = sampler("exponential(Tensor self, float lambd=1, *, Generator? generator=None) -> Tensor",
            a -> {
                double lambda = a.dbl(1);
                if (!(lambda > 0)) throw new IllegalArgumentException("exponential_: exponential_ expects lambda > 0.0, but found lambda=" + cpp(lambda));
                continuousOnly(a, "Exponential", a.tensor(0).dtype().scalarTypeName());
            },
            (r, a) -> -Math.log(openUniform(r)) / a.dbl(1));
    public static final OpOverload EXPONENTIAL_ = samplerInPlace("exponential_(Tensor(a!) self, float lambd=1, *, Generator? generator=None) -> Tensor(a!)", EXPONENTIAL);

    /** Cauchy with median and scale sigma: {@code median + sigma·tan(π(u − ½))}. */
    public static final OpOverload CAUCHY = sampler("cauchy(Tensor self, float median=0, float sigma=1, *, Generator? generator=None) -> Tensor",
            a -> {
                if (!(a.dbl(2) > 0)) throw new IllegalArgumentException("cauchy_: cauchy_ expects sigma > 0.0, but found sigma=" + cpp(a.dbl(2)));
                continuousOnly(a, "Cauchy", cTypeName(a.tensor(0).dtype()));
            },
            (r, a) -> a.dbl(1) + a.dbl(2) * Math.tan(Math.PI * (r.nextDouble() - 0.5)));
    public static final OpOverload CAUCHY_ = samplerInPlace("cauchy_(Tensor(a!) self, float median=0, float sigma=1, *, Generator? generator=None) -> Tensor(a!)", CAUCHY);

    /** The number of Bernoulli(p) trials up to the first success, 1, 2, …: {@code ⌈log(u) / log(1 − p)⌉}. Any dtype, as ATen's. */
    public static final OpOverload GEOMETRIC = sampler("geometric(Tensor self, float p, *, Generator? generator=None) -> Tensor",
            a -> {
                double p = a.dbl(1);
                if (!(p > 0 && p < 1)) throw new IllegalArgumentException("geometric_: geometric_ expects p to be in (0, 1), but got p=" + cpp(p));
                if (a.tensor(0).dtype() == DType.BOOL) throw new IllegalArgumentException("geometric_: \"geometric_cpu\" not implemented for 'Bool'");
            },
            (r, a) -> Math.max(1, Math.ceil(Math.log(openUniform(r)) / Math.log1p(-a.dbl(1)))));
    public static final OpOverload GEOMETRIC_ = samplerInPlace("geometric_(Tensor(a!) self, float p, *, Generator? generator=None) -> Tensor(a!)", GEOMETRIC);

    /** {@code exp} of a normal draw with mean and std (of the logarithm). */
    public static final OpOverload LOG_NORMAL = sampler("log_normal(Tensor self, float mean=1, float std=2, *, Generator? generator=None) -> Tensor",
            a -> {
                if (!(a.dbl(2) > 0)) throw new IllegalArgumentException("log_normal_: log_normal_ expects std > 0.0, but found std=" + cpp(a.dbl(2)));
                floatingOnly(a, "log_normal_cpu");
            },
            (r, a) -> Math.exp(a.dbl(1) + a.dbl(2) * gaussian(r)));
    public static final OpOverload LOG_NORMAL_ = samplerInPlace("log_normal_(Tensor(a!) self, float mean=1, float std=2, *, Generator? generator=None) -> Tensor(a!)", LOG_NORMAL);

    /** Each element 1 with probability p, else 0, in self's dtype (functionalized as {@link #BERNOULLI_P}). */
    public static final OpOverload BERNOULLI__FLOAT = OpOverload.define("bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)")
            .tags(Tag.NONDETERMINISTIC, Tag.INPLACE)
            .meta(a -> {
                if (!(a.dbl(1) >= 0 && a.dbl(1) <= 1)) throw new IllegalArgumentException("bernoulli_: bernoulli_ expects p to be in [0, 1], but got p=" + cpp(a.dbl(1)));
                return a.tensor(0).meta();
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0);
                Copy.copy(BERNOULLI_P.callTensor(self, a.get(1), a.get(2)), self);
                self.bumpVersion();
                return self;
            })
            .register();

    private static void checkUniform(Args a) {
        DType dtype = a.tensor(0).dtype();
        if (!dtype.isFloatingPoint()) throw new IllegalArgumentException("uniform_: \"check_uniform_bounds\" not implemented for '" + dtype.scalarTypeName() + "'");
        double from = a.dbl(1), to = a.dbl(2);
        if (!(from <= to)) throw new IllegalArgumentException("uniform_: uniform_ expects to return a [from, to) range, but found from=" + cpp(from) + " > to=" + cpp(to));
        double max = dtype == DType.FLOAT32 ? Float.MAX_VALUE : Double.MAX_VALUE;
        if (!(to - from <= max)) {
            throw new IllegalArgumentException("uniform_: uniform_ expects to-from <= std::numeric_limits<" + dtype.scalarTypeName() + ">::max(), but found to="
                    + cpp(to) + " and from=" + cpp(from) + " which result in to-from to exceed the limit");
        }
    }

    /** ATen's refusal of an integer or bool tensor for a continuous distribution, the dtype named as that distribution's check names it. */
    private static void continuousOnly(Args a, String distribution, String dtypeName) {
        if (!a.tensor(0).dtype().isFloatingPoint()) {
            throw new IllegalArgumentException(a.op().schema().name() + "_: " + distribution
                    + " distribution is a continuous probability distribution. dtype must be a floating point but you specified " + dtypeName);
        }
    }

    /** The C++ type name of a dtype's element (Cauchy's check prints it): long int, int, bool. */
    private static String cTypeName(DType dtype) {
        return switch (dtype) {
            case INT64 -> "long int";
            case INT32 -> "int";
            case BOOL -> "bool";
            case FLOAT32 -> "float";
            case FLOAT64 -> "double";
        };
    }

    private static void floatingOnly(Args a, String kernel) {
        DType dtype = a.tensor(0).dtype();
        if (!dtype.isFloatingPoint()) throw new IllegalArgumentException(a.op().schema().name() + "_: \"" + kernel + "\" not implemented for '" + dtype.scalarTypeName() + "'");
    }

    /** A double as C++'s ostream prints it in ATen's messages (6 significant digits, no trailing zeros: 2, 1.5, 3.4e+38, 1e-07). */
    static String cpp(double v) {
        if (Double.isNaN(v)) return "nan";
        if (Double.isInfinite(v)) return v > 0 ? "inf" : "-inf";
        String g = String.format(java.util.Locale.ROOT, "%.6g", v);
        int e = g.indexOf('e');
        String mantissa = e < 0 ? g : g.substring(0, e), exponent = e < 0 ? "" : g.substring(e);
        if (mantissa.contains(".")) mantissa = mantissa.replaceAll("0+$", "").replaceAll("\\.$", "");
        return mantissa + exponent;
    }

    /** A functional sampler: a new tensor of self's shape and dtype, each element one draw (self's values unread); zero gradient, as ATen's. */
    private static OpOverload sampler(String schema, java.util.function.Consumer<Args> check, Sample sample) {
        return OpOverload.define(schema)
                .tags(Tag.NONDETERMINISTIC)
                .meta(a -> {
                    check.accept(a);
                    return TensorMeta.contiguous(a.tensor(0).dtype(), a.tensor(0).shape());
                })
                .kernel((a, m) -> {
                    TensorMeta meta = (TensorMeta) m;
                    Tensor out = Tensor.allocate(meta);
                    SplittableRandom r = generator(a, a.size() - 1).split();
                    boolean uniform = a.op().schema().name().equals("uniform");
                    float below = uniform ? Math.nextDown((float) a.dbl(2)) : 0;
                    for (int i = 0; i < out.numel(); i++) {
                        double v = sample.next(r, a);
                        if (uniform && meta.dtype() == DType.FLOAT32 && (float) v >= (float) a.dbl(2) && a.dbl(2) > a.dbl(1)) v = below;
                        out.storage().writeDouble(i, v);
                    }
                    return out;
                })
                .derivative(Derivative.ZERO)
                .register();
    }

    /** The in-place form: self refilled with its functional sampler's draws (what functionalization turns it back into). */
    private static OpOverload samplerInPlace(String schema, OpOverload functional) {
        return OpOverload.define(schema)
                .tags(Tag.NONDETERMINISTIC, Tag.INPLACE)
                .meta(a -> {
                    functional.inferMeta(functional.bind(a.toArray()));
                    return a.tensor(0).meta();
                })
                .kernel(OutForms.intoSelf(functional))
                .register();
    }
}
