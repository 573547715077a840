package dev.ember.ops;

import dev.ember.ops.eager.Copy;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;

/**
 * Views given by their geometry: {@code unfold} (overlapping windows along one dim, a view whose
 * window dim steps through the same memory as the unfolded one) and {@code as_strided} (any sizes,
 * strides and storage offset, in elements of the input's storage, as ATen's); their inverses
 * {@code unfold_backward} and {@code as_strided_scatter}. The gradients place values by storage
 * position, as ATen's {@code as_strided_backward} does, so any geometry works: elements that share
 * memory sum their gradients there, and an input that itself overlaps shares that sum evenly.
 */
public final class StridedViewOps {
    private StridedViewOps() {}

    public static final OpOverload UNFOLD = OpOverload.define("unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)")
            .tags(Tag.VIEW)
            .meta(a -> unfold(a.tensor(0).meta(), a.integer(1), a.integer(2), a.integer(3)))
            .kernel((a, m) -> a.tensor(0).viewAs((TensorMeta) m))
            .derivative(g -> new Object[] {g.call(StridedViewOps.UNFOLD_BACKWARD, g.grad(), g.argMeta(0).shape(), g.value(1), g.value(2), g.value(3))})
            .register();

    /**
     * The gradient of unfold: each window's values added back where the window read them (an
     * index_add along the unfolded dim of the windows laid side by side).
     */
    public static final OpOverload UNFOLD_BACKWARD = ComposedOps.define("unfold_backward(Tensor grad_in, int[] input_sizes, int dim, int size, int step) -> Tensor",
            a -> {
                int[] sizes = a.ints(1);
                TensorMeta expected = unfold(TensorMeta.contiguous(a.tensor(0).dtype(), sizes), a.integer(2), a.integer(3), a.integer(4));
                if (!Arrays.equals(expected.shape(), a.tensor(0).shape())) {
                    throw new IllegalArgumentException("unfold_backward: grad_in of shape " + Shapes.format(a.tensor(0).shape())
                            + " is not the shape " + Shapes.format(expected.shape()) + " of unfolding input_sizes " + Shapes.format(sizes));
                }
            },
            (e, a) -> {
                Object grad = a[0];
                int[] sizes = Composites.toInts(a[1]);
                DType dtype = e.meta(grad).dtype();
                int size = ((Number) a[3]).intValue(), step = ((Number) a[4]).intValue();
                if (sizes.length == 0) return e.call(ShapeOps.RESHAPE, e.call(ReductionOps.SUM_DIM, grad, new int[0], false, dtype), new int[0]);
                int d = Shapes.wrapDim("unfold_backward", ((Number) a[2]).intValue(), sizes.length);
                int windows = e.meta(grad).shape()[d];
                // window w, element k read input position w·step + k
                Object starts = e.call(ShapeOps.RESHAPE, e.call(CreationOps.ARANGE, 0L, (long) windows * step, (long) step, DType.INT64), new int[] {windows, 1});
                Object index = e.call(ShapeOps.RESHAPE, e.call(PointwiseOps.ADD_TENSOR, starts, e.call(CreationOps.ARANGE, 0L, (long) size, 1L, DType.INT64)), new int[] {-1});
                int[] merged = sizes.clone();
                merged[d] = windows * size;
                Object sideBySide = e.call(ShapeOps.RESHAPE, e.call(ShapeOps.MOVEDIM, grad, new int[] {sizes.length}, new int[] {d + 1}), merged);
                return e.call(ScatterOps.INDEX_ADD, e.call(CreationOps.ZEROS, sizes, dtype), (long) d, index, sideBySide);
            });

    public static final OpOverload AS_STRIDED = OpOverload.define("as_strided(Tensor(a) self, int[] size, int[] stride, int? storage_offset=None) -> Tensor(a)")
            .meta(a -> {
                Tensor self = a.tensor(0);
                return asStrided(self, a.ints(1), a.ints(2), a.get(3) == null ? self.storageOffset() : a.integer(3));
            })
            .kernel((a, m) -> a.tensor(0).viewAs((TensorMeta) m))
            .derivative(g -> {
                TensorMeta view = g.resultMeta(), self = g.argMeta(0);
                long origin = span(view, self)[0];
                return new Object[] {storageGather(g.emitter(), storageSum(g.emitter(), g.grad(), view, self), self, origin, true)};
            })
            .register();

    /**
     * A copy of self (laid out as {@code self.clone()} lays it out: self's strides when they are
     * dense, else contiguous) with src written where {@code as_strided} of that copy looks.
     */
    public static final OpOverload AS_STRIDED_SCATTER = OpOverload.define(
                    "as_strided_scatter(Tensor self, Tensor src, int[] size, int[] stride, int? storage_offset=None) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0), src = a.tensor(1);
                TensorMeta out = new TensorMeta(self.dtype(), self.shape(), clonedStrides(self.meta()), 0);
                int numel = Shapes.numel(self.shape());
                TensorMeta slice = asStrided(new dev.ember.tensor.FakeTensor(out), a.ints(2), a.ints(3), a.get(4) == null ? 0 : a.integer(4));
                checkInStorage(slice.shape(), slice.strides(), slice.storageOffset(), self.dtype(), numel);
                if (!Arrays.equals(slice.shape(), src.shape())) {
                    throw new IllegalArgumentException("expected src to have a size equal to the slice of self. src size = "
                            + Shapes.format(src.shape()) + ", slice size = " + Shapes.format(slice.shape()));
                }
                return out;
            })
            .kernel((a, m) -> {
                TensorMeta out = (TensorMeta) m;
                Tensor result = Tensor.wrap(new dev.ember.tensor.Storage(out.dtype(), out.numel()), out.shape(), out.strides(), 0);
                Copy.copy(a.tensor(0), result);
                Copy.copy(a.tensor(1), Tensor.wrap(result.storage(), a.ints(2), a.ints(3), a.get(4) == null ? 0 : a.integer(4)));
                return result;
            })
            .derivative(g -> {
                OpEmitter e = g.emitter();
                TensorMeta out = g.resultMeta(), src = g.argMeta(1);
                TensorMeta slice = new TensorMeta(out.dtype(), src.shape(), g.ints(3), g.value(4) == null ? 0 : g.intValue(4));
                Object selfGrad = null, srcGrad = null;
                if (g.needs(0)) {
                    // the gradient everywhere the slice did not overwrite
                    Object covered = storageSum(e, e.call(CreationOps.ONES, src.shape(), out.dtype()), slice, out);
                    Object kept = e.call(PointwiseOps.EQ_SCALAR, storageGather(e, covered, out, 0, false), 0L);
                    selfGrad = e.call(PointwiseOps.MUL_TENSOR, g.grad(), kept);
                }
                // as ATen's as_strided_scatter_backward: every src element gets the gradient at its position, also where two share one
                if (g.needs(1)) srcGrad = storageGather(e, storageSum(e, g.grad(), out, out), slice, 0, false);
                return new Object[] {selfGrad, srcGrad};
            })
            .register();

    /** ATen's unfold geometry (its checks and words): the dim's windows, then a new last dim through each window. */
    static TensorMeta unfold(TensorMeta self, int dimension, int size, int step) {
        int nd = self.dim();
        int d = Shapes.wrapDim("unfold", dimension, Math.max(nd, 1));
        int maxSize = nd == 0 ? 1 : self.shape()[d];
        if (size < 0) throw new IllegalArgumentException("size is " + size + " but must be >= 0");
        if (size > maxSize) throw new IllegalArgumentException("maximum size for tensor at dimension " + d + " is " + maxSize + " but size is " + size);
        if (step <= 0) throw new IllegalArgumentException("step is " + step + " but must be > 0");
        int[] shape = Arrays.copyOf(self.shape(), nd + 1), strides = Arrays.copyOf(self.strides(), nd + 1);
        shape[nd] = size;
        strides[nd] = nd == 0 ? 1 : self.strides()[d];
        if (nd > 0) {
            shape[d] = (self.shape()[d] - size) / step + 1;
            strides[d] *= step;
        }
        return new TensorMeta(self.dtype(), shape, strides, self.storageOffset());
    }

    /** ATen's as_strided checks (setStrided), the storage bound only where there is a storage (not for a fake tensor). */
    private static TensorMeta asStrided(Tensor self, int[] size, int[] stride, int offset) {
        if (size.length != stride.length) throw new IllegalArgumentException("mismatch in length of strides and shape");
        for (int s : stride) {
            if (s < 0) throw new IllegalArgumentException("as_strided: Negative strides are not supported at the moment, got strides: " + Shapes.format(stride));
        }
        for (int s : size) {
            if (s < 0) throw new IllegalArgumentException("Storage size calculation overflowed with sizes=" + Shapes.format(size) + " and strides=" + Shapes.format(stride));
        }
        if (self.storage() != null) checkInStorage(size, stride, offset, self.dtype(), self.storage().length());
        if (offset < 0) throw new IllegalArgumentException("Tensor: invalid storage offset " + offset);
        return new TensorMeta(self.dtype(), size.clone(), stride.clone(), offset);
    }

    /** ATen's checkInBoundsForStorage, in its words (sizes in bytes). */
    private static void checkInStorage(int[] size, int[] stride, int offset, DType dtype, int storageLength) {
        long needed = 0;
        if (Shapes.numel(size) > 0) {
            needed = 1;
            for (int i = 0; i < size.length; i++) needed += (long) stride[i] * (size[i] - 1);
        }
        if (needed == 0) return;
        int item = dtype.itemSize();
        if (needed + offset > storageLength) {
            throw new IllegalArgumentException("setStorage: sizes " + Shapes.format(size) + ", strides " + Shapes.format(stride) + ", storage offset " + offset
                    + ", and itemsize " + item + " requiring a storage size of " + (needed + offset) * item + " are out of bounds for storage of size "
                    + (long) storageLength * item);
        }
    }

    /** The strides {@code clone()} keeps: self's when its elements tile a block of memory exactly (no gaps, no overlap), else contiguous. */
    static int[] clonedStrides(TensorMeta self) {
        int[] shape = self.shape(), strides = self.strides();
        Integer[] order = new Integer[shape.length];
        for (int i = 0; i < order.length; i++) order[i] = i;
        Arrays.sort(order, (x, y) -> Integer.compare(strides[x], strides[y]));
        long expected = 1;
        for (int d : order) {
            if (shape[d] == 1) continue;
            if (strides[d] != expected) return Shapes.contiguousStrides(shape);
            expected *= shape[d];
        }
        return strides.clone();
    }

    /**
     * {@code values} (shaped as {@code view}) summed into a zeroed 1-d buffer by storage position,
     * the buffer spanning the positions of both {@code view} and {@code base}: its element 0 is the
     * lower of their lowest positions ({@link #span}), the origin {@link #storageGather} takes.
     */
    private static Object storageSum(OpEmitter e, Object values, TensorMeta view, TensorMeta base) {
        long[] span = span(view, base);
        Object flat = e.call(ShapeOps.RESHAPE, values, new int[] {-1});
        Object buffer = e.call(CreationOps.ZEROS, new int[] {(int) (span[1] - span[0])}, view.dtype());
        if (view.numel() == 0) return buffer;
        return e.call(ScatterOps.INDEX_ADD, buffer, 0L, positions(e, view, span[0]), flat);
    }

    /**
     * The elements of {@code base} read from a {@link #storageSum} buffer whose element 0 is storage
     * position {@code origin}; with {@code share}, where base's own elements share a position each gets
     * an equal part of it (ATen's as_strided_backward divides by the count).
     */
    private static Object storageGather(OpEmitter e, Object buffer, TensorMeta base, long origin, boolean share) {
        if (base.numel() == 0) return e.call(CreationOps.ZEROS, base.shape(), e.meta(buffer).dtype());
        int bufferLength = e.meta(buffer).shape()[0];
        Object at = positions(e, base, origin);
        if (share && overlaps(base)) {
            Object counts = e.call(ScatterOps.INDEX_ADD, e.call(CreationOps.ZEROS, new int[] {bufferLength}, e.meta(buffer).dtype()), 0L, at,
                    e.call(CreationOps.ONES, new int[] {base.numel()}, e.meta(buffer).dtype()));
            buffer = e.call(PointwiseOps.DIV_TENSOR, buffer, e.call(PointwiseOps.CLAMP, counts, 1.0, null));
        }
        return e.call(ShapeOps.RESHAPE, e.call(IndexingOps.INDEX_SELECT, buffer, 0L, at), base.shape());
    }

    /** The lowest storage position either geometry reaches, and one past the highest. */
    private static long[] span(TensorMeta a, TensorMeta b) {
        long lo = Long.MAX_VALUE, hi = Long.MIN_VALUE;
        for (TensorMeta m : new TensorMeta[] {a, b}) {
            if (m.numel() == 0) continue;
            long max = m.storageOffset();
            for (int i = 0; i < m.dim(); i++) max += (long) m.strides()[i] * (m.shape()[i] - 1);
            lo = Math.min(lo, m.storageOffset());
            hi = Math.max(hi, max + 1);
        }
        return lo > hi ? new long[] {0, 0} : new long[] {lo, hi};
    }

    /** The storage position (less {@code origin}) of each element of {@code m}, flattened: an int64 tensor of {@code m.numel()}. */
    private static Object positions(OpEmitter e, TensorMeta m, long origin) {
        int nd = m.dim();
        int[] ones = new int[nd];
        Arrays.fill(ones, 1);
        Object pos = e.call(CreationOps.FULL, ones, m.storageOffset() - origin, DType.INT64);
        for (int i = 0; i < nd; i++) {
            int[] along = ones.clone();
            along[i] = m.shape()[i];
            Object steps = e.call(PointwiseOps.MUL_SCALAR, e.call(CreationOps.ARANGE, 0L, (long) m.shape()[i], 1L, DType.INT64), (long) m.strides()[i]);
            pos = e.call(PointwiseOps.ADD_TENSOR, pos, e.call(ShapeOps.RESHAPE, steps, along));
        }
        return e.call(ShapeOps.RESHAPE, pos, new int[] {-1});
    }

    private static boolean overlaps(TensorMeta m) {
        int[] shape = m.shape(), strides = m.strides();
        Integer[] order = new Integer[shape.length];
        for (int i = 0; i < order.length; i++) order[i] = i;
        Arrays.sort(order, (x, y) -> Integer.compare(strides[x], strides[y]));
        long extent = 0;
        for (int d : order) {
            if (shape[d] <= 1) continue;
            if (strides[d] <= extent) return true;
            extent += (long) strides[d] * (shape[d] - 1);
        }
        return false;
    }
}
