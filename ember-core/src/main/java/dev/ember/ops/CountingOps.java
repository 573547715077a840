package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;
import java.util.List;

/**
 * unique and bincount: ops whose output size is known only from the values, so tagged
 * {@link Tag#DYNAMIC_OUTPUT_SHAPE} as nonzero is (a compiled function breaks its graph at them and
 * runs them eagerly). Neither has a gradient, as in ATen.
 */
public final class CountingOps {
    private CountingOps() {}

    /**
     * ATen's _unique2: the distinct values in ascending order, and, when asked for, each element's
     * index into them ({@code inverse}, self's shape) and each value's count; what is not asked for
     * is an empty tensor. Values equal by {@code ==} are one (so -0.0 and 0.0 are, and every NaN is
     * its own, after the numbers). {@code sorted=False} gives the sorted order too (ATen's CPU
     * order then is unspecified).
     */
    public static final OpOverload UNIQUE2 = OpOverload.define("_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> (Tensor, Tensor, Tensor)")
            .tags(Tag.DYNAMIC_OUTPUT_SHAPE)
            .meta(a -> {
                Tensor self = readable("_unique2", a.tensor(0));
                Groups g = groups(self);
                return List.of(TensorMeta.contiguous(self.dtype(), g.count()),
                        a.bool(2) ? TensorMeta.contiguous(DType.INT64, self.shape()) : TensorMeta.contiguous(DType.INT64, 0),
                        TensorMeta.contiguous(DType.INT64, a.bool(3) ? g.count() : 0));
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0);
                Groups g = groups(self);
                Tensor values = (g.doubles() != null ? Tensor.of(Arrays.copyOf(g.doubles(), g.count()), g.count())
                        : Tensor.of(Arrays.copyOf(g.longs(), g.count()), g.count())).to(self.dtype());
                Tensor inverse = a.bool(2) ? Tensor.of(g.inverse(), self.shape()) : Tensor.zeros(DType.INT64, 0);
                Tensor counts = a.bool(3) ? Tensor.of(g.counts(), g.count()) : Tensor.zeros(DType.INT64, 0);
                return List.of(values, inverse, counts);
            })
            .register();

    /**
     * The count of each value 0, 1, …, max of a 1-d non-negative integer tensor (at least
     * {@code minlength} entries), or the sum of {@code weights} at each value: int64 counts, float32
     * sums for float32 weights (summed in float, as ATen's), float64 sums otherwise.
     */
    public static final OpOverload BINCOUNT = OpOverload.define("bincount(Tensor self, Tensor? weights=None, int minlength=0) -> Tensor")
            .tags(Tag.DYNAMIC_OUTPUT_SHAPE)
            .meta(a -> {
                Tensor self = readable("bincount", a.tensor(0)), weights = a.optTensor(1);
                if (a.integer(2) < 0) throw new IllegalArgumentException("bincount: minlength should be >= 0");
                if (self.dtype().isFloatingPoint() || self.dtype() == DType.BOOL) {
                    throw new IllegalArgumentException("\"bincount_cpu\" not implemented for '" + self.dtype().scalarTypeName() + "'");
                }
                if (self.dim() != 1) throw new IllegalArgumentException("bincount: bincount only supports 1-d non-negative integral inputs.");
                if (weights != null && (weights.dim() != 1 || weights.size(0) != self.size(0))) {
                    throw new IllegalArgumentException("bincount: weights should be 1-d and have the same length as input");
                }
                long[] v = self.toLongArray();
                long max = -1;
                for (long x : v) {
                    if (x < 0) throw new IllegalArgumentException("bincount: bincount only supports 1-d non-negative integral inputs.");
                    max = Math.max(max, x);
                }
                int length = Math.toIntExact(Math.max(max + 1, a.integer(2)));
                DType dtype = weights == null ? DType.INT64 : weights.dtype() == DType.FLOAT32 ? DType.FLOAT32 : DType.FLOAT64;
                return TensorMeta.contiguous(dtype, length);
            })
            .kernel((a, m) -> {
                TensorMeta meta = (TensorMeta) m;
                long[] v = a.tensor(0).toLongArray();
                Tensor weights = a.optTensor(1);
                int length = meta.shape()[0];
                if (weights == null) {
                    long[] counts = new long[length];
                    for (long x : v) counts[(int) x]++;
                    return Tensor.of(counts, length);
                }
                if (meta.dtype() == DType.FLOAT32) {
                    float[] w = weights.toFloatArray(), sums = new float[length];
                    for (int i = 0; i < v.length; i++) sums[(int) v[i]] += w[i];
                    return Tensor.of(sums, length);
                }
                double[] w = weights.toDoubleArray(), sums = new double[length];
                for (int i = 0; i < v.length; i++) sums[(int) v[i]] += w[i];
                return Tensor.of(sums, length);
            })
            .register();

    /** The distinct values (in the first {@code count} entries of doubles for floating inputs, of longs otherwise, both exact), inverse and counts. */
    private record Groups(int count, double[] doubles, long[] longs, long[] inverse, long[] counts) {}

    private static Groups groups(Tensor self) {
        int n = Math.toIntExact(self.numel());
        boolean floating = self.dtype().isFloatingPoint();
        double[] d = floating ? self.toDoubleArray() : null;
        long[] l = floating ? null : self.toLongArray();
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) order[i] = i;
        // ascending, NaN after every number; a stable sort keeps equal values in their order
        if (floating) Arrays.sort(order, (x, y) -> compare(d[x], d[y]));
        else Arrays.sort(order, (x, y) -> Long.compare(l[x], l[y]));
        long[] inverse = new long[n], counts = new long[n];
        double[] dv = floating ? new double[n] : null;
        long[] lv = floating ? null : new long[n];
        int k = -1;
        for (int i = 0; i < n; i++) {
            int at = order[i];
            boolean same = i > 0 && (floating ? d[at] == d[order[i - 1]] : l[at] == l[order[i - 1]]);
            if (!same) {
                k++;
                if (floating) dv[k] = d[at];
                else lv[k] = l[at];
            }
            inverse[at] = k;
            counts[k]++;
        }
        return new Groups(k + 1, dv, lv, inverse, Arrays.copyOf(counts, k + 1));
    }

    /** Numbers by value (-0.0 equal to 0.0), NaN above all of them. */
    private static int compare(double a, double b) {
        boolean an = Double.isNaN(a), bn = Double.isNaN(b);
        if (an || bn) return an == bn ? 0 : an ? 1 : -1;
        return a < b ? -1 : a > b ? 1 : 0;
    }

    private static Tensor readable(String op, Tensor t) {
        if (t.isFake()) {
            throw new IllegalArgumentException(op + ": the output's size depends on the input's values (a dynamic output shape), which fake tensors do not have");
        }
        return t;
    }

    /**
     * Each run of equal neighbours in the flattened tensor kept once (torch.unique_consecutive):
     * the run's value, then (when asked) each element's run index in self's shape and each run's
     * length; what is not asked for is an empty tensor. Neighbours are one run when {@code ==}
     * (so -0.0 and 0.0 are, and NaNs never are, as ATen's {@code !=} splits them).
     */
    public static final OpOverload UNIQUE_CONSECUTIVE = OpOverload.define("unique_consecutive(Tensor self, bool return_inverse=False, "
                    + "bool return_counts=False, int? dim=None) -> (Tensor, Tensor, Tensor)")
            .tags(Tag.DYNAMIC_OUTPUT_SHAPE)
            .meta(a -> {
                Tensor self = readable("unique_consecutive", a.tensor(0));
                if (a.get(3) != null) return slices(self, a.integer(3), true).metas(self, true, true);
                int runs = runs(self).count;
                return List.of(TensorMeta.contiguous(self.dtype(), runs),
                        a.bool(1) ? TensorMeta.contiguous(DType.INT64, self.shape()) : TensorMeta.contiguous(DType.INT64, 0),
                        TensorMeta.contiguous(DType.INT64, a.bool(2) ? runs : 0));
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0);
                if (a.get(3) != null) return slices(self, a.integer(3), true).results(self);
                Runs r = runs(self);
                long[] starts = Arrays.copyOf(r.starts, r.count);
                Tensor values = self.reshape(-1).index(Tensor.of(starts, r.count));
                Tensor inverse = a.bool(1) ? Tensor.of(r.inverse, self.shape()) : Tensor.zeros(DType.INT64, 0);
                long[] counts = new long[r.count];
                for (int k = 0; k < r.count; k++) counts[k] = (k + 1 < r.count ? r.starts[k + 1] : self.numel()) - r.starts[k];
                return List.of(values, inverse, a.bool(2) ? Tensor.of(counts, r.count) : Tensor.zeros(DType.INT64, 0));
            })
            .register();

    /**
     * ATen's unique_dim: the distinct slices of self along {@code dim}, in ascending lexicographic
     * order (by {@code <} element by element in row-major order), each slice's index into them and
     * each distinct slice's count. Like ATen, it computes the inverse and counts whatever the flags
     * say, and {@code sorted=False} sorts too.
     */
    public static final OpOverload UNIQUE_DIM = OpOverload.define("unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, "
                    + "bool return_counts=False) -> (Tensor, Tensor, Tensor)")
            .tags(Tag.DYNAMIC_OUTPUT_SHAPE)
            .meta(a -> slices(readable("unique_dim", a.tensor(0)), a.integer(1), false).metas(a.tensor(0), true, true))
            .kernel((a, m) -> slices(a.tensor(0), a.integer(1), false).results(a.tensor(0)))
            .register();

    /** The groups of equal slices along {@code dim}: a representative slice of each, in output order, each slice's group and each group's size. */
    private record Slices(int dim, long[] firsts, long[] inverse, long[] counts) {
        List<TensorMeta> metas(Tensor self, boolean inverse, boolean counts) {
            int[] shape = self.shape().clone();
            shape[dim] = firsts.length;
            return List.of(TensorMeta.contiguous(self.dtype(), shape), TensorMeta.contiguous(DType.INT64, inverse ? this.inverse.length : 0),
                    TensorMeta.contiguous(DType.INT64, counts ? firsts.length : 0));
        }

        List<Tensor> results(Tensor self) {
            Tensor values = self.indexSelect(dim, Tensor.of(firsts, firsts.length)).contiguous();
            return List.of(values, Tensor.of(inverse, inverse.length), Tensor.of(counts, counts.length));
        }
    }

    /**
     * Groups self's slices along {@code dim}: neighbours when {@code consecutive} (unique_consecutive),
     * else all equal slices after a lexicographic sort (unique_dim). Slices are equal when every
     * element is {@code ==} (so NaNs never are, as ATen's {@code equal}).
     */
    private static Slices slices(Tensor self, int dimArg, boolean consecutive) {
        String op = consecutive ? "unique_consecutive" : "unique_dim";
        int dim = dev.ember.tensor.Shapes.wrapDim(op, dimArg, self.dim());
        int n = self.size(dim);
        int width = n == 0 ? 0 : self.numel() / n;
        if (width == 0 && n > 0) throw new IllegalArgumentException("Number of zero sized dimensions is more than one, so unique cannot be applied ");
        Tensor rows = self.movedim(dim, 0).contiguous();
        double[] v = rows.dtype().isFloatingPoint() ? rows.toDoubleArray() : null;
        long[] w = v == null ? (rows.dtype() == DType.BOOL ? rows.to(DType.INT64) : rows).toLongArray() : null;
        java.util.function.IntBinaryOperator compare = (x, y) -> {
            for (int k = 0; k < width; k++) {
                int c = v != null ? (v[x * width + k] < v[y * width + k] ? -1 : v[x * width + k] > v[y * width + k] ? 1 : 0)
                        : Long.compare(w[x * width + k], w[y * width + k]);
                if (c != 0) return c;
            }
            return 0;
        };
        java.util.function.BiPredicate<Integer, Integer> equal = (x, y) -> {
            for (int k = 0; k < width; k++) {
                if (v != null ? v[x * width + k] != v[y * width + k] : w[x * width + k] != w[y * width + k]) return false;
            }
            return true;
        };
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) order[i] = i;
        if (!consecutive) Arrays.sort(order, (x, y) -> compare.applyAsInt(x, y));
        long[] firsts = new long[n], inverse = new long[n], counts = new long[n];
        int groups = 0;
        for (int k = 0; k < n; k++) {
            int i = order[k];
            if (k == 0 || !equal.test((int) firsts[groups - 1], i)) firsts[groups++] = i;
            inverse[i] = groups - 1;
            counts[groups - 1]++;
        }
        return new Slices(dim, Arrays.copyOf(firsts, groups), inverse, Arrays.copyOf(counts, groups));
    }

    /** The runs of the flattened tensor: where each starts, and each element's run. */
    private record Runs(int count, long[] starts, long[] inverse) {}

    private static Runs runs(Tensor self) {
        int n = self.numel();
        long[] starts = new long[n], inverse = new long[n];
        int count = 0;
        if (self.dtype().isFloatingPoint()) {
            double[] v = self.toDoubleArray();
            for (int i = 0; i < n; i++) {
                if (i == 0 || v[i] != v[i - 1]) starts[count++] = i;
                inverse[i] = count - 1;
            }
        } else {
            long[] v = self.dtype() == DType.BOOL ? self.to(DType.INT64).toLongArray() : self.toLongArray();
            for (int i = 0; i < n; i++) {
                if (i == 0 || v[i] != v[i - 1]) starts[count++] = i;
                inverse[i] = count - 1;
            }
        }
        return new Runs(count, starts, inverse);
    }

    /**
     * A histogram of {@code bins} equal bins over [min, max] (torch.histc): elements outside it
     * and NaNs are not counted, max itself falls in the last bin; min = max (the default 0, 0) takes
     * the data's own range, widened by 1 each way when it is one value. Counts in self's dtype.
     */
    public static final OpOverload HISTC = OpOverload.define("histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0);
                if (!self.dtype().isFloatingPoint()) {
                    throw new IllegalArgumentException("torch.histc: \"histogram_cpu\" not implemented for '" + self.dtype().scalarTypeName() + "'");
                }
                long bins = a.lng(1);
                if (bins <= 0) throw new IllegalArgumentException("torch.histc(): bins must be > 0, but got " + bins + " for dimension 0");
                return TensorMeta.contiguous(self.dtype(), (int) bins);
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0);
                int bins = a.integer(1);
                double lo = ((Number) a.scalar(2)).doubleValue(), hi = ((Number) a.scalar(3)).doubleValue();
                boolean single = self.dtype() == DType.FLOAT32;
                double[] v = self.toDoubleArray();
                if (lo == hi && v.length > 0) {
                    lo = Double.POSITIVE_INFINITY;
                    hi = Double.NEGATIVE_INFINITY;
                    for (double x : v) {
                        if (Double.isNaN(x)) {
                            lo = hi = Double.NaN;
                            break;
                        }
                        lo = Math.min(lo, x);
                        hi = Math.max(hi, x);
                    }
                }
                if (single) {
                    lo = (float) lo;
                    hi = (float) hi;
                }
                if (lo == hi) {
                    lo -= 1;
                    hi += 1;
                }
                if (lo > hi) throw new IllegalArgumentException("torch.histc(): max must be larger than min");
                if (!Double.isFinite(lo) || !Double.isFinite(hi)) {
                    throw new IllegalArgumentException("torch.histc(): range of [" + cNumber(lo) + ", " + cNumber(hi) + "] is not finite");
                }
                double[] counts = new double[bins];
                for (double x : v) {
                    if (!(x >= lo && x <= hi)) continue;
                    long pos = single ? (long) ((float) ((float) ((float) x - (float) lo) / (float) ((float) hi - (float) lo)) * bins)
                            : (long) ((x - lo) / (hi - lo) * bins);
                    if (pos >= bins) pos = bins - 1;
                    counts[(int) pos]++;
                }
                return Tensor.of(counts, bins).to(self.dtype());
            })
            .register();

    /** A double as C++'s stream prints it in ATen's messages: nan, inf, -inf, or the number. */
    private static String cNumber(double x) {
        if (Double.isNaN(x)) return "nan";
        if (Double.isInfinite(x)) return x > 0 ? "inf" : "-inf";
        return x == Math.rint(x) && Math.abs(x) < 1e15 ? Long.toString((long) x) : Double.toString(x);
    }
}
