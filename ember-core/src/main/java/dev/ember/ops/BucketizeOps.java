package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

/**
 * searchsorted and bucketize: for each value, the position it takes in a sorted sequence, as
 * ATen's binary searches find it. With {@code right=False} (or {@code side='left'}) the first
 * position whose boundary is not below the value, with {@code right=True} the first whose
 * boundary is above it; a NaN value goes past every boundary, and the comparisons are ATen's
 * ({@code !(boundary >= value)}), so a sequence with NaNs (sorted last) searches as libtorch's does.
 * The sequence is 1-d (every value searches it) or has the values' leading dimensions (each row of
 * values searches its own row); {@code sorter} gives the sequence's sorted order (argsort's) when it
 * is not sorted itself. Results are int64, or int32 with {@code out_int32}. Integer results have no
 * gradient; under Ember.compile the op runs its eager kernel (its output shape is the values').
 */
public final class BucketizeOps {
    private BucketizeOps() {}

    public static final OpOverload SEARCHSORTED = OpOverload.define("searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, "
                    + "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor")
            .meta(a -> searchMeta(a.tensor(0), a.tensor(1), a.bool(2), a.bool(3), optSide(a, 4), a.optTensor(5)))
            .kernel((a, m) -> search(a.tensor(0), a.tensor(1), rightOf(a.bool(3), optSide(a, 4)), a.optTensor(5), (TensorMeta) m))
            .register();

    public static final OpOverload SEARCHSORTED_SCALAR = OpOverload.define("searchsorted.Scalar(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, "
                    + "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor")
            .meta(a -> searchMeta(a.tensor(0), scalarValue(a), a.bool(2), a.bool(3), optSide(a, 4), a.optTensor(5)))
            .kernel((a, m) -> search(a.tensor(0), scalarValue(a), rightOf(a.bool(3), optSide(a, 4)), a.optTensor(5), (TensorMeta) m))
            .register();

    public static final OpOverload BUCKETIZE = OpOverload.define("bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor")
            .meta(a -> {
                checkBucketBoundaries(a.tensor(1));
                return searchMeta(a.tensor(1), a.tensor(0), a.bool(2), a.bool(3), null, null);
            })
            .kernel((a, m) -> search(a.tensor(1), a.tensor(0), a.bool(3), null, (TensorMeta) m))
            .register();

    public static final OpOverload BUCKETIZE_SCALAR = OpOverload.define("bucketize.Scalar(Scalar self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor")
            .meta(a -> {
                checkBucketBoundaries(a.tensor(1));
                return searchMeta(a.tensor(1), scalarOf(a.scalar(0), a.tensor(1)), a.bool(2), a.bool(3), null, null);
            })
            .kernel((a, m) -> search(a.tensor(1), scalarOf(a.scalar(0), a.tensor(1)), a.bool(3), null, (TensorMeta) m))
            .register();

    private static String optSide(Args a, int i) { return a.get(i) == null ? null : a.str(i); }

    /** A Scalar value as a 0-d tensor of the sequence's dtype (or the scalar's own kind where it is wider, as ATen's wrapped number). */
    private static Tensor scalarValue(Args a) { return scalarOf(a.scalar(1), a.tensor(0)); }

    private static Tensor scalarOf(Object value, Tensor sequence) {
        DType d = TypePromotion.resultType(sequence, value);
        Object number = value instanceof Boolean b ? (Object) (b ? 1L : 0L) : value;
        return CreationOps.FULL.callTensor(new int[0], number, d);
    }

    private static boolean rightOf(boolean right, String side) { return side != null ? side.equals("right") : right; }

    private static void checkBucketBoundaries(Tensor boundaries) {
        if (boundaries.dim() != 1) {
            throw new IllegalArgumentException("bucketize: boundaries tensor must be 1 dimension, but got dim(" + boundaries.dim() + ")");
        }
    }

    /** ATen's searchsorted_pre_check, in its order and words. */
    private static TensorMeta searchMeta(Tensor boundaries, Tensor input, boolean outInt32, boolean right, String side, Tensor sorter) {
        String op = "torch.searchsorted()";
        if (side != null && !side.equals("left") && !side.equals("right")) {
            throw new IllegalArgumentException(op + ": side can only be 'left' or 'right' but got " + side);
        }
        if (right && "left".equals(side)) {
            throw new IllegalArgumentException(op + ": side and right can't be set to opposites, got side of left while right was True");
        }
        if (sorter != null) {
            if (sorter.dtype() != DType.INT64) {
                throw new IllegalArgumentException(op + ": sorter must be a tensor of long dtype but got dtype " + sorter.dtype().scalarTypeName());
            }
            if (!Shapes.same(sorter.shape(), boundaries.shape())) {
                throw new IllegalArgumentException(op + ": boundary and sorter must have the same size, but got boundary tensor " + Shapes.format(boundaries.shape())
                        + "and got sorter tensor " + Shapes.format(sorter.shape()));
            }
        }
        if (!(input.dim() > 0 || (input.numel() == 1 && boundaries.dim() == 1))) {
            throw new IllegalArgumentException(op + ": input value can be a scalar only when boundaries tensor dimension is 1, but we got boundaries tensor dim("
                    + boundaries.dim() + ") and input value's dim(" + input.dim() + ") numel(" + input.numel() + ")");
        }
        if (boundaries.dim() == 0) {
            throw new IllegalArgumentException(op + ": boundaries tensor should have positive dimension, but got 0 dimension");
        }
        if (boundaries.dim() != 1 && !leadingDimsMatch(boundaries, input)) {
            throw new IllegalArgumentException(op + ": boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, "
                    + "but we got boundaries tensor " + Shapes.format(boundaries.shape()) + " and input value tensor " + Shapes.format(input.shape()));
        }
        if (boundaries.dtype() == DType.BOOL || input.dtype() == DType.BOOL) {
            throw new IllegalArgumentException(op + ": \"searchsorted_out_cpu\" not implemented for 'Bool'");
        }
        return TensorMeta.contiguous(outInt32 ? DType.INT32 : DType.INT64, input.shape());
    }

    private static boolean leadingDimsMatch(Tensor boundaries, Tensor input) {
        if (boundaries.dim() != input.dim()) return false;
        for (int i = 0; i < boundaries.dim() - 1; i++) if (boundaries.size(i) != input.size(i)) return false;
        return true;
    }

    private static Tensor search(Tensor boundaries, Tensor input, boolean right, Tensor sorter, TensorMeta meta) {
        int n = boundaries.dim() == 0 ? 1 : boundaries.size(boundaries.dim() - 1);
        int values = input.numel();
        int perRow = boundaries.dim() <= 1 ? values : (input.dim() == 0 ? 1 : input.size(input.dim() - 1));
        long[] order = sorter == null ? null : sorter.toLongArray();
        long[] result = new long[values];
        DType common = TypePromotion.resultType(boundaries, input);
        if (common.isFloatingPoint()) {
            double[] bd = boundaries.toDoubleArray(), in = input.toDoubleArray();
            if (common == DType.FLOAT32) {   // compared as float32, as ATen's kernel does for float tensors
                for (int i = 0; i < bd.length; i++) bd[i] = (float) bd[i];
                for (int i = 0; i < in.length; i++) in[i] = (float) in[i];
            }
            for (int i = 0; i < values; i++) {
                int row = boundaries.dim() <= 1 ? 0 : i / perRow;
                result[i] = right ? upper(bd, row * n, n, in[i], order) : lower(bd, row * n, n, in[i], order);
            }
        } else {
            long[] bd = boundaries.toLongArray(), in = input.toLongArray();
            for (int i = 0; i < values; i++) {
                int row = boundaries.dim() <= 1 ? 0 : i / perRow;
                result[i] = right ? upperLong(bd, row * n, n, in[i], order) : lowerLong(bd, row * n, n, in[i], order);
            }
        }
        Tensor positions = Tensor.of(result, input.shape());
        return meta.dtype() == DType.INT64 ? positions : positions.to(meta.dtype());
    }

    private static double at(double[] bd, int start, int k, long[] order) { return order == null ? bd[start + k] : bd[start + (int) order[start + k]]; }

    private static long at(long[] bd, int start, int k, long[] order) { return order == null ? bd[start + k] : bd[start + (int) order[start + k]]; }

    /** ATen's cus_lower_bound: the first position whose boundary is not below {@code v} (NaN values past every boundary). */
    private static long lower(double[] bd, int start, int n, double v, long[] order) {
        int lo = 0, hi = n;
        while (lo < hi) {
            int mid = lo + ((hi - lo) >> 1);
            if (!(at(bd, start, mid, order) >= v)) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    /** ATen's cus_upper_bound: the first position whose boundary is above {@code v}. */
    private static long upper(double[] bd, int start, int n, double v, long[] order) {
        int lo = 0, hi = n;
        while (lo < hi) {
            int mid = lo + ((hi - lo) >> 1);
            if (!(at(bd, start, mid, order) > v)) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    private static long lowerLong(long[] bd, int start, int n, long v, long[] order) {
        int lo = 0, hi = n;
        while (lo < hi) {
            int mid = lo + ((hi - lo) >> 1);
            if (at(bd, start, mid, order) < v) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    private static long upperLong(long[] bd, int start, int n, long v, long[] order) {
        int lo = 0, hi = n;
        while (lo < hi) {
            int mid = lo + ((hi - lo) >> 1);
            if (at(bd, start, mid, order) <= v) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }
}
