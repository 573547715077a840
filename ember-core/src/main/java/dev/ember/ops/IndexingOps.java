package dev.ember.ops;

import dev.ember.kernels.Parallel;
import dev.ember.kernels.StridedLoop;
import dev.ember.ops.eager.AdvancedIndex;
import dev.ember.ops.eager.Copy;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Ops that read elements at positions given by an index tensor: index_select, gather, embedding;
 * and those that select by the data, whose output's size only the values give: nonzero,
 * masked_select, indexing with a bool mask.
 * Indices are int32 or int64 (gather: int64 only, as in ATen); every index is checked before any output element is written, and an
 * index out of range fails with ATen's "index out of range in self", naming the index and the size.
 */
public final class IndexingOps {
    private IndexingOps() {}

    public static final OpOverload INDEX_SELECT = OpOverload.define("index_select(Tensor self, int dim, Tensor index) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0), index = a.tensor(2);
                int dim = Shapes.wrapDim("index_select", a.integer(1), Math.max(self.dim(), 1));
                if (index.dtype() != DType.INT32 && index.dtype() != DType.INT64) {
                    throw new IllegalArgumentException("index_select(): Expected dtype int32 or int64 for index, but got " + index.dtype());
                }
                if (index.dim() > 1) {
                    throw new IllegalArgumentException("index_select(): Index is supposed to be a vector, got index of shape " + Shapes.format(index.shape()));
                }
                if (self.dim() == 0) {
                    if (index.numel() != 1) {
                        throw new IllegalArgumentException("index_select(): Index to scalar can have only 1 value, got " + index.numel() + " value(s)");
                    }
                    return TensorMeta.contiguous(self.dtype());
                }
                int[] shape = self.shape();
                shape[dim] = index.numel();
                return TensorMeta.contiguous(self.dtype(), shape);
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0);
                int dim = Shapes.wrapDim("index_select", a.integer(1), Math.max(self.dim(), 1));
                return indexSelect("index_select()", self, dim, a.tensor(2), (TensorMeta) m);
            })
            .derivative(g -> new Object[] {g.call(ScatterOps.INDEX_ADD, g.zeros(g.argMeta(0)), g.value(1), g.arg(2), g.grad())})
            .register();

    public static final OpOverload GATHER = OpOverload.define("gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0), index = a.tensor(2);
                int dim = Shapes.wrapDim("gather", a.integer(1), Math.max(self.dim(), 1));
                if (index.numel() == 0) return TensorMeta.contiguous(self.dtype(), index.shape());
                if (index.dtype() != DType.INT64) throw new IllegalArgumentException("gather(): Expected dtype int64 for index, but got " + index.dtype());
                int rank = Math.max(self.dim(), 1);
                if (rank != Math.max(index.dim(), 1)) {
                    throw new IllegalArgumentException("gather(): Index tensor must have the same number of dimensions as input tensor, but index is "
                            + Shapes.format(index.shape()) + " and self is " + Shapes.format(self.shape()));
                }
                for (int d = 0; d < rank; d++) {
                    if (d != dim && sizeOr1(index, d) > sizeOr1(self, d)) {
                        throw new IllegalArgumentException("gather(): Size does not match at dimension " + d + " expected index " + Shapes.format(index.shape())
                                + " to be no larger than self " + Shapes.format(self.shape()) + " apart from dimension " + dim);
                    }
                }
                return TensorMeta.contiguous(self.dtype(), index.shape());
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0), index = a.tensor(2);
                int dim = Shapes.wrapDim("gather", a.integer(1), Math.max(self.dim(), 1));
                return gather(self, dim, index, (TensorMeta) m);
            })
            .derivative(g -> new Object[] {g.call(ScatterOps.SCATTER_ADD, g.zeros(g.argMeta(0)), g.value(1), g.arg(2), g.grad())})
            .register();

    public static final OpOverload INDEX_SELECT_OUT = OutForms.of("index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out) -> Tensor(a!)", INDEX_SELECT,
            (result, out) -> "index_select(): self and result must have the same scalar type");
    public static final OpOverload GATHER_OUT = OutForms.of("gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out) -> Tensor(a!)", GATHER);

    // ------------------------------------------------------------------ composites (defined by their decompositions)

    /**
     * {@code self} gathered along {@code dim} at {@code indices}, the two broadcast against each
     * other in every other dim (ATen's take_along_dim, numpy's take_along_axis); with no dim, the
     * flattened self at the flattened indices.
     */
    public static final OpOverload TAKE_ALONG_DIM = ComposedOps.define("take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor",
            a -> {
                Tensor self = a.tensor(0), indices = a.tensor(1);
                if (indices.dtype() != DType.INT64) {
                    throw new IllegalArgumentException("take_along_dim: torch.take_along_dim(): dtype of indices should be Long but got " + indices.dtype().scalarTypeName());
                }
                if (a.get(2) != null && self.dim() != indices.dim()) {
                    throw new IllegalArgumentException("take_along_dim: torch.take_along_dim(): input and indices should have the same number of dimensions, but got "
                            + self.dim() + " dimensions for input, and " + indices.dim() + " dimensions for indices");
                }
            },
            (e, a) -> {
                if (a[2] == null) {
                    return e.call(GATHER, e.call(ShapeOps.RESHAPE, a[0], new int[] {-1}), 0L, e.call(ShapeOps.RESHAPE, a[1], new int[] {-1}));
                }
                int[] self = e.meta(a[0]).shape(), indices = e.meta(a[1]).shape();
                int dim = Shapes.wrapDim("take_along_dim", ((Number) a[2]).intValue(), Math.max(self.length, 1));
                if (self.length == 0) return e.call(GATHER, a[0], (long) dim, a[1]);
                int[] selfAtIndices = self.clone(), indicesAtSelf = indices.clone();
                selfAtIndices[dim] = indices[dim];
                indicesAtSelf[dim] = self[dim];
                Object index = e.call(ShapeOps.EXPAND, a[1], Shapes.broadcast("take_along_dim", selfAtIndices, indices));
                Object source = e.call(ShapeOps.EXPAND, a[0], Shapes.broadcast("take_along_dim", indicesAtSelf, self));
                return e.call(GATHER, source, (long) dim, index);
            });

    /**
     * {@code self} with the slices at {@code index} along {@code dim} set to {@code value} (ATen's
     * index_fill; negative indices count from the end): a mask along dim, made by a scatter (which
     * checks the indices), then masked_fill. A repeated index fills once, so value's gradient counts
     * each slice once, as ATen's.
     */
    public static final OpOverload INDEX_FILL_SCALAR = ComposedOps.define("index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
            a -> indexFillCheck(a, false), (e, a) -> e.call(PointwiseOps.MASKED_FILL_SCALAR, a[0], indexMask(e, a), a[3]));

    /** index_fill with a 0-d tensor value. */
    public static final OpOverload INDEX_FILL_TENSOR = ComposedOps.define("index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor",
            a -> indexFillCheck(a, true), (e, a) -> e.call(PointwiseOps.MASKED_FILL_TENSOR, a[0], indexMask(e, a), a[3]));

    private static void indexFillCheck(Args a, boolean tensorValue) {
        Tensor self = a.tensor(0), index = a.tensor(2);
        Shapes.wrapDim("index_fill", a.integer(1), Math.max(self.dim(), 1));
        if (index.dtype() != DType.INT64) throw new IllegalArgumentException("index_fill_(): Expected dtype int64 for index.");
        if (index.dim() > 1) throw new IllegalArgumentException("index_fill_(): Index has to be a vector/scalar");
        if (tensorValue && a.tensor(3).dim() != 0) {
            throw new IllegalArgumentException("index_fill_ only supports a 0-dimensional value tensor, but got tensor with " + a.tensor(3).dim() + " dimension(s).");
        }
    }

    /** index_fill's mask: true at the indexed positions of dim (wrapped when negative), shaped to broadcast against self. */
    private static Object indexMask(OpEmitter e, Object[] a) {
        int[] shape = e.meta(a[0]).shape();
        int dim = Shapes.wrapDim("index_fill", ((Number) a[1]).intValue(), Math.max(shape.length, 1));
        long n = shape.length == 0 ? 1 : shape[dim];
        Object index = e.call(ShapeOps.RESHAPE, a[2], new int[] {-1});
        Object wrapped = e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.LT_SCALAR, index, 0L), e.call(PointwiseOps.ADD_SCALAR, index, n), index);
        Object mask = e.call(ScatterOps.SCATTER_VALUE, e.call(CreationOps.ZEROS, new int[] {(int) n}, DType.BOOL), 0L, wrapped, true);
        int[] along = new int[shape.length];
        java.util.Arrays.fill(along, 1);
        if (shape.length > 0) along[dim] = (int) n;
        return e.call(ShapeOps.RESHAPE, mask, along);
    }

    /**
     * {@code self} with its slices along {@code dim} at {@code index} replaced by source's, in order
     * (ATen's index_copy; indices must be in range): a scatter of source along dim with the index
     * expanded to source's shape.
     */
    public static final OpOverload INDEX_COPY = ComposedOps.define("index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor",
            a -> {
                Tensor self = a.tensor(0), index = a.tensor(2), source = a.tensor(3);
                int dim = Shapes.wrapDim("index_copy", a.integer(1), Math.max(self.dim(), 1));
                if (index.dim() > 1) throw new IllegalArgumentException("index_copy_(): Index should have dimension 1 or 0 (got " + index.dim() + ")");
                if (index.dtype() != DType.INT64) {
                    throw new IllegalArgumentException("index_copy_(): Expected a long tensor for index, but got " + index.dtype().scalarTypeName());
                }
                if (self.dtype() != source.dtype()) {
                    throw new IllegalArgumentException("index_copy_(): self and source expected to have the same dtype, but got (self) "
                            + self.dtype().scalarTypeName() + " and (source) " + source.dtype().scalarTypeName());
                }
                if (Math.max(self.dim(), 1) != Math.max(source.dim(), 1)) {
                    throw new IllegalArgumentException("index_copy_(): When source and destination are not scalars, their dimensionality must match. Source dimensionality ("
                            + source.dim() + "), destination dimensionality (" + self.dim() + ")");
                }
                int sliced = source.dim() == 0 ? 1 : source.shape()[dim];
                if (index.numel() != sliced) {
                    throw new IllegalArgumentException("index_copy_(): Number of indices (" + index.numel() + ") should be equal to source.size(dim) (" + sliced + ")");
                }
                for (int d = 0; d < self.dim(); d++) {
                    if (d != dim && self.shape()[d] != source.shape()[d]) {
                        throw new IllegalArgumentException("index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: "
                                + Shapes.format(without(self.shape(), dim)) + " at dimension " + dim + " and source slice shape: "
                                + Shapes.format(without(source.shape(), dim)) + " at dimension " + dim + ".");
                    }
                }
            },
            (e, a) -> {
                int[] selfShape = e.meta(a[0]).shape(), sourceShape = e.meta(a[3]).shape();
                if (selfShape.length == 0) {
                    Object one = e.call(ShapeOps.RESHAPE, a[3], new int[] {1});
                    return e.call(ShapeOps.RESHAPE, e.call(ScatterOps.SCATTER_SRC, e.call(ShapeOps.RESHAPE, a[0], new int[] {1}), 0L,
                            e.call(ShapeOps.RESHAPE, a[2], new int[] {1}), one), new int[0]);
                }
                int dim = Shapes.wrapDim("index_copy", ((Number) a[1]).intValue(), selfShape.length);
                int[] along = new int[sourceShape.length];
                java.util.Arrays.fill(along, 1);
                along[dim] = sourceShape[dim];
                Object index = e.call(ShapeOps.EXPAND, e.call(ShapeOps.RESHAPE, a[2], along), sourceShape);
                return e.call(ScatterOps.SCATTER_SRC, a[0], (long) dim, index, a[3]);
            });

    private static int[] without(int[] shape, int dim) {
        int[] out = new int[shape.length - 1];
        for (int i = 0, j = 0; i < shape.length; i++) if (i != dim) out[j++] = shape[i];
        return out;
    }

    public static final OpOverload EMBEDDING = OpOverload.define(
                    "embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor")
            .meta(a -> {
                Tensor weight = a.tensor(0), indices = a.tensor(1);
                if (weight.dim() != 2) throw new IllegalArgumentException("embedding(): 'weight' must be 2-D, got weight of shape " + Shapes.format(weight.shape()));
                if (indices.dtype() != DType.INT64 && indices.dtype() != DType.INT32) {
                    throw new IllegalArgumentException("embedding(): Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
                            + indices.dtype() + " instead (while checking arguments for embedding)");
                }
                int[] shape = java.util.Arrays.copyOf(indices.shape(), indices.dim() + 1);
                shape[indices.dim()] = weight.size(1);
                return TensorMeta.contiguous(weight.dtype(), shape);
            })
            .kernel((a, m) -> {
                Tensor weight = a.tensor(0), indices = a.tensor(1);
                Tensor flat = indices.reshape(-1);
                TensorMeta rows = TensorMeta.contiguous(weight.dtype(), flat.numel(), weight.size(1));
                return indexSelect("embedding()", weight, 0, flat, rows).viewAs((TensorMeta) m);
            })
            // padding_idx only changes the gradient, so the forward is a row lookup.
            .decomposition((e, a) -> {
                TensorMeta indices = e.meta(a[1]);
                int[] shape = java.util.Arrays.copyOf(indices.shape(), indices.dim() + 1);
                shape[indices.dim()] = e.meta(a[0]).shape()[1];
                Object rows = e.call(IndexingOps.INDEX_SELECT, a[0], 0, e.call(ShapeOps.RESHAPE, a[1], new int[] {-1}));
                return e.call(ShapeOps.VIEW, rows, shape);
            })
            .derivative(IndexingOps::embeddingBackward)
            .register();

    /**
     * The int64 coordinates {@code [n, ndim]} of the nonzero elements (NaN counts as nonzero), in
     * row-major order. n is known only from the data ({@link Tag#DYNAMIC_OUTPUT_SHAPE}): a compiled
     * function breaks its graph here and runs the op eagerly.
     */
    public static final OpOverload NONZERO = OpOverload.define("nonzero(Tensor self) -> Tensor")
            .tags(Tag.DYNAMIC_OUTPUT_SHAPE)
            .meta(a -> {
                Tensor self = readable("nonzero", a.tensor(0));
                return TensorMeta.contiguous(DType.INT64, count(self.toBooleanArray()), self.dim());
            })
            .kernel((a, m) -> coordinates(a.tensor(0), (TensorMeta) m))
            .register();

    /** The coordinates of the nonzero elements, one row each (numpy's argwhere; ATen's is nonzero). */
    public static final OpOverload ARGWHERE = ComposedOps.define("argwhere(Tensor self) -> Tensor", (e, a) -> e.call(NONZERO, a[0]));

    /**
     * Whether each of {@code elements} equals one of {@code test_elements} (compared in their promoted
     * dtype, so NaN is in nothing), a bool tensor of elements' shape; {@code invert} negates it.
     * {@code assume_unique} only lets ATen pick a faster algorithm; the answer is the same.
     */
    public static final OpOverload ISIN_TENSOR_TENSOR = ComposedOps.define(
            "isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor",
            a -> checkIsin(a.tensor(0).dtype(), a.tensor(1).dtype()),
            (e, a) -> isin(e, a[0], a[1], (Boolean) a[3]));

    /** {@link #ISIN_TENSOR_TENSOR} against one number: eq (ne with invert), as ATen's. */
    public static final OpOverload ISIN_TENSOR_SCALAR = ComposedOps.define(
            "isin.Tensor_Scalar(Tensor elements, Scalar test_element, *, bool assume_unique=False, bool invert=False) -> Tensor",
            a -> checkIsin(a.tensor(0).dtype(), TypePromotion.scalarType(a.scalar(1))),
            (e, a) -> e.call((Boolean) a[3] ? PointwiseOps.NE_SCALAR : PointwiseOps.EQ_SCALAR, a[0], a[1]));

    /** {@link #ISIN_TENSOR_TENSOR} for one number, a 0-d bool. */
    public static final OpOverload ISIN_SCALAR_TENSOR = ComposedOps.define(
            "isin.Scalar_Tensor(Scalar element, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor",
            a -> checkIsin(TypePromotion.scalarType(a.scalar(0)), a.tensor(1).dtype()),
            (e, a) -> isin(e, e.call(CreationOps.FULL, new int[0], a[0], TypePromotion.scalarType(a[0])), a[1], (Boolean) a[3]));

    private static Object isin(OpEmitter e, Object elements, Object testElements, boolean invert) {
        Object matches = e.call(PointwiseOps.EQ_TENSOR, e.call(ShapeOps.UNSQUEEZE, elements, -1L), e.call(ShapeOps.RESHAPE, testElements, new int[] {-1}));
        Object found = e.call(ReductionOps.ANY_DIM, matches, -1L, false);
        return invert ? e.call(PointwiseOps.LOGICAL_NOT, found) : found;
    }

    /** ATen's check_for_unsupported_isin_dtype, for both operands. */
    private static void checkIsin(DType elements, DType testElements) {
        for (DType d : new DType[] {elements, testElements}) {
            if (d == DType.BOOL) throw new IllegalArgumentException("isin: Unsupported input type encountered for isin(): Bool");
        }
    }

    /**
     * {@code x.nonzero(as_tuple=True)}: nonzero's coordinates one int64 vector per dim (a 0-d input
     * counts as 1-d, as in ATen).
     */
    public static final OpOverload NONZERO_NUMPY = OpOverload.define("nonzero_numpy(Tensor self) -> Tensor[]")
            .tags(Tag.DYNAMIC_OUTPUT_SHAPE)
            .meta(a -> {
                Tensor self = readable("nonzero_numpy", a.tensor(0));
                TensorMeta column = TensorMeta.contiguous(DType.INT64, count(self.toBooleanArray()));
                return Collections.nCopies(Math.max(self.dim(), 1), column);
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0);
                Tensor at = coordinates(self.dim() == 0 ? self.reshape(1) : self, null);
                List<Tensor> columns = new ArrayList<>();
                for (int d = 0; d < at.size(1); d++) columns.add(at.select(1, d).contiguous());
                return columns;
            })
            .register();

    /**
     * The elements of {@code self} where {@code mask} (bool) is true, self and mask broadcast
     * together, as a 1-d tensor in row-major order; a data-dependent size, as nonzero's. The
     * gradient goes back to the selected positions, zero elsewhere.
     */
    public static final OpOverload MASKED_SELECT = OpOverload.define("masked_select(Tensor self, Tensor mask) -> Tensor")
            .tags(Tag.DYNAMIC_OUTPUT_SHAPE)
            .meta(a -> {
                Tensor self = readable("masked_select", a.tensor(0)), mask = readable("masked_select", a.tensor(1));
                if (mask.dtype() != DType.BOOL) throw new IllegalArgumentException("masked_select: expected BoolTensor for mask");
                // mask first, as ATen broadcasts them (its error names the mask's size as tensor a's)
                int[] shape = Shapes.broadcast("masked_select", mask.shape(), self.shape());
                return TensorMeta.contiguous(self.dtype(), count(mask.expand(shape).toBooleanArray()));
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0), mask = a.tensor(1);
                int[] shape = Shapes.broadcast("masked_select", self.shape(), mask.shape());
                return maskedRows(self.expand(shape), mask.expand(shape), (TensorMeta) m);
            })
            .derivative(g -> {
                int[] shape = Shapes.broadcast("masked_select", g.argMeta(0).shape(), g.argMeta(1).shape());
                Object mask = g.call(ShapeOps.EXPAND, g.arg(1), shape);
                return new Object[] {rowsPutBack(g, g.grad(), mask, shape, shape.length)};
            })
            .register();

    /**
     * {@code x[indices]}, ATen's advanced indexing: one optional index per leading dim (null: the
     * whole dim), int64/int32 positions (negative from the end) broadcast together, or bool masks
     * (their true positions). With integer indices the shape follows from the shapes; a mask's
     * needs its values ({@link Tag#DYNAMIC_OUTPUT_SHAPE}: a compiled function breaks its graph here).
     * Its gradient puts grad back at the positions read, adding repeats (index_put with accumulate).
     */
    public static final OpOverload INDEX_TENSOR = OpOverload.define("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor")
            // positions alone: the shape follows from theirs, and a compiled function keeps x[positions] in its graph
            .dynamicOutputShapeWhen(args -> !(args[1] instanceof List<?> indices)
                    || indices.stream().anyMatch(t -> t instanceof Tensor i && i.dtype() == DType.BOOL))
            .meta(a -> {
                Tensor self = a.tensor(0);
                List<Tensor> indices = IndexPutOps.indices(a, 1);
                for (Tensor t : indices) if (t != null && t.dtype() == DType.BOOL) readable("index", t);
                return TensorMeta.contiguous(self.dtype(), AdvancedIndex.resultShape(self.shape(), indices));
            })
            .kernel((a, m) -> AdvancedIndex.read(a.tensor(0), AdvancedIndex.plan(a.tensor(0), IndexPutOps.indices(a, 1))))
            .derivative(g -> new Object[] {g.call(IndexPutOps.INDEX_PUT, g.zeros(g.argMeta(0)), g.arg(1), g.grad(), true)})
            .register();

    /** A data-dependent op's argument: a real tensor, since only its values give the output's size. */
    private static Tensor readable(String op, Tensor t) {
        if (t.isFake()) {
            throw new IllegalArgumentException(op + ": the output's size depends on the input's values (a dynamic output shape), "
                    + "which fake tensors do not have");
        }
        return t;
    }

    private static int count(boolean[] flags) {
        int n = 0;
        for (boolean f : flags) if (f) n++;
        return n;
    }

    /** Row-major coordinates of self's nonzero elements: {@code [n, ndim]} int64. */
    private static Tensor coordinates(Tensor self, TensorMeta meta) {
        boolean[] flags = self.toBooleanArray();
        int n = count(flags), rank = self.dim();
        long[] at = new long[n * rank];
        int[] shape = self.shape(), index = new int[rank];
        for (int i = 0, row = 0; i < flags.length; i++) {
            if (flags[i]) {
                for (int d = 0; d < rank; d++) at[row * rank + d] = index[d];
                row++;
            }
            for (int d = rank - 1; d >= 0 && ++index[d] == shape[d]; d--) index[d] = 0;   // odometer
        }
        return Tensor.of(at, n, rank);
    }

    /** The rows of self (its leading {@code mask.dim()} dims flattened) where mask is true, copied in order. */
    private static Tensor maskedRows(Tensor self, Tensor mask, TensorMeta meta) {
        Tensor out = Tensor.allocateUninitialized(meta);
        Tensor dense = Tensor.allocateUninitialized(TensorMeta.contiguous(self.dtype(), self.shape()));
        Copy.copy(self, dense);
        boolean[] keep = mask.toBooleanArray();
        int row = keep.length == 0 ? 0 : self.numel() / keep.length;
        Object src = dense.storage().data(), dst = out.storage().data();
        for (int i = 0, o = 0; i < keep.length; i++) {
            if (keep[i]) System.arraycopy(src, i * row, dst, o++ * row, row);
        }
        return out;
    }

    /**
     * The backward of taking the rows where {@code mask} is true: {@code grad}'s rows put back at
     * those rows of a zero tensor of {@code shape} (mask over its leading {@code maskDims} dims), as
     * ATen's masked_scatter into zeros. Written with static shapes: each row's source is the running
     * count of true mask elements before it (a cumsum), and rows the mask drops take zero.
     */
    private static Object rowsPutBack(Grad g, Object grad, Object mask, int[] shape, int maskDims) {
        TensorMeta gm = g.meta(grad);
        if (gm.shape()[0] == 0) return g.zeros(TensorMeta.contiguous(gm.dtype(), shape));
        int rows = 1;
        for (int d = 0; d < maskDims; d++) rows *= shape[d];
        Object flat = g.reshape(mask, new int[] {rows});
        Object before = g.sub(g.call(ScanOps.CUMSUM, flat, 0L, DType.INT64), 1L);
        Object source = g.call(PointwiseOps.CLAMP, before, 0L, null);
        Object picked = g.call(INDEX_SELECT, grad, 0L, source);
        int[] keepShape = new int[shape.length - maskDims + 1];
        java.util.Arrays.fill(keepShape, 1);
        keepShape[0] = rows;
        Object kept = g.where(g.reshape(flat, keepShape), picked, 0.0);
        return g.reshape(kept, shape);
    }

    private static int sizeOr1(Tensor t, int d) { return t.dim() == 0 ? 1 : t.size(d); }

    /** The index values in row-major order, each checked against {@code size} before anything is written. */
    private static long[] checkedIndices(String op, Tensor index, int dim, int size) {
        long[] idx = index.toLongArray();
        for (long v : idx) {
            if (v < 0 || v >= size) {
                throw new IndexOutOfBoundsException(op + ": index out of range in self: index " + v + " is out of bounds for dimension "
                        + dim + " with size " + size);
            }
        }
        return idx;
    }

    private static Tensor indexSelect(String op, Tensor self, int dim, Tensor index, TensorMeta meta) {
        int[] shape = self.dim() == 0 ? new int[] {1} : self.shape();
        int[] strides = self.dim() == 0 ? new int[] {1} : self.strides();
        long[] idx = checkedIndices(op, index, dim, shape[dim]);
        Tensor out = Tensor.allocate(meta);
        int outer = 1, inner = 1, n = idx.length, size = shape[dim];
        for (int d = 0; d < dim; d++) outer *= shape[d];
        for (int d = dim + 1; d < shape.length; d++) inner *= shape[d];
        if (out.numel() == 0) return out;
        if (self.isContiguous()) {
            Object src = self.storage().data(), dst = out.storage().data();
            int base = self.storageOffset(), block = inner;
            Parallel.forRange(outer * n, inner, (lo, hi) -> {
                for (int r = lo; r < hi; r++) {
                    int o = r / n, i = r % n;
                    System.arraycopy(src, base + (int) ((o * (long) size + idx[i]) * block), dst, r * block, block);
                }
            });
            return out;
        }
        // Strided self: copy one slice (dim removed) per index.
        int[] sliceShape = removeDim(shape, dim), sliceStrides = removeDim(strides, dim);
        int[] outSliceStrides = removeDim(Shapes.contiguousStrides(withSize(shape, dim, n)), dim);
        for (int i = 0; i < n; i++) {
            Tensor from = Tensor.wrap(self.storage(), sliceShape, sliceStrides, self.storageOffset() + (int) idx[i] * strides[dim]);
            Tensor to = Tensor.wrap(out.storage(), sliceShape, outSliceStrides, i * inner);
            Copy.copy(from, to);
        }
        return out;
    }

    private static Tensor gather(Tensor self, int dim, Tensor index, TensorMeta meta) {
        Tensor out = Tensor.allocate(meta);
        if (out.numel() == 0) return out;
        int[] selfStrides = self.dim() == 0 ? new int[] {0} : self.strides();
        int size = sizeOr1(self, dim), step = self.dim() == 0 ? 0 : selfStrides[dim];
        long[] idx = checkedIndices("gather()", index, dim, size);
        int[] shape = index.dim() == 0 ? new int[] {1} : index.shape();
        int[] walk = selfStrides.clone();
        walk[dim] = 0;   // the index supplies the position along dim
        StridedLoop loop = new StridedLoop(shape, new int[][] {Shapes.contiguousStrides(shape), walk}, new int[] {0, self.storageOffset()});
        int os = loop.innerStride(0), ss = loop.innerStride(1);
        Storage src = self.storage(), dst = out.storage();
        switch (self.dtype()) {
            case FLOAT32 -> { float[] o = dst.floats(), s = src.floats(); loop.forEachRow((off, c) -> { for (int k = 0, p = off[0], q = off[1]; k < c; k++, p += os, q += ss) o[p] = s[q + (int) idx[p] * step]; }); }
            case FLOAT64 -> { double[] o = dst.doubles(), s = src.doubles(); loop.forEachRow((off, c) -> { for (int k = 0, p = off[0], q = off[1]; k < c; k++, p += os, q += ss) o[p] = s[q + (int) idx[p] * step]; }); }
            case INT32 -> { int[] o = dst.ints(), s = src.ints(); loop.forEachRow((off, c) -> { for (int k = 0, p = off[0], q = off[1]; k < c; k++, p += os, q += ss) o[p] = s[q + (int) idx[p] * step]; }); }
            case INT64 -> { long[] o = dst.longs(), s = src.longs(); loop.forEachRow((off, c) -> { for (int k = 0, p = off[0], q = off[1]; k < c; k++, p += os, q += ss) o[p] = s[q + (int) idx[p] * step]; }); }
            case BOOL -> { byte[] o = dst.bools(), s = src.bools(); loop.forEachRow((off, c) -> { for (int k = 0, p = off[0], q = off[1]; k < c; k++, p += os, q += ss) o[p] = s[q + (int) idx[p] * step]; }); }
        }
        return out;
    }

    private static int[] removeDim(int[] a, int dim) {
        int[] out = new int[a.length - 1];
        for (int i = 0, j = 0; i < a.length; i++) if (i != dim) out[j++] = a[i];
        return out;
    }

    private static int[] withSize(int[] shape, int dim, int size) {
        int[] out = shape.clone();
        out[dim] = size;
        return out;
    }

    /** The rows' gradients added into a zero weight, the padding row's left out (ATen's embedding_dense_backward). */
    private static Object[] embeddingBackward(Grad g) {
        TensorMeta w = g.argMeta(0);
        Object flat = g.reshape(g.arg(1), new int[] {-1});
        Object rows = g.reshape(g.grad(), new int[] {g.argMeta(1).numel(), w.shape()[1]});
        long padding = ((Number) g.value(2)).longValue();
        if (padding >= 0) rows = g.where(g.call(ShapeOps.UNSQUEEZE, g.call(PointwiseOps.EQ_SCALAR, flat, padding), 1), 0.0, rows);
        return new Object[] {g.call(ScatterOps.INDEX_ADD, g.zeros(w), 0, flat, rows)};
    }

    // ------------------------------------------------------------------ take (session 34, ops8)

    /**
     * The elements of self, read as a flat row-major vector, at {@code index} (int64, any shape; a
     * negative index counts from the end), in the index's shape: an index_select of the flattened
     * tensor, so its gradient is index_select's. An index out of range is refused with ATen's words
     * where the index is known (eager calls).
     */
    public static final OpOverload TAKE = ComposedOps.define("take(Tensor self, Tensor index) -> Tensor",
            a -> {
                Tensor self = a.tensor(0), index = a.tensor(1);
                if (index.dtype() != DType.INT64) {
                    throw new IllegalArgumentException("take: take(): Expected a long tensor for index, but got " + index.dtype().scalarTypeName());
                }
                if (self.numel() == 0 && index.numel() != 0) throw new IndexOutOfBoundsException("take: take(): tried to take from an empty tensor");
                if (!(index instanceof dev.ember.tensor.FakeTensor)) {
                    long n = self.numel();
                    for (long i : index.toLongArray()) {
                        if (i < -n || i >= n) throw new IndexOutOfBoundsException("take: out of range: tried to access index " + i + " on a tensor of " + n + " elements.");
                    }
                }
            },
            (e, a) -> {
                int n = e.meta(a[0]).numel();
                Object flatIndex = e.call(ShapeOps.RESHAPE, a[1], new int[] {-1});
                Object wrapped = e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.LT_SCALAR, flatIndex, 0L), e.call(PointwiseOps.ADD_SCALAR, flatIndex, (long) n), flatIndex);
                Object picked = e.call(INDEX_SELECT, e.call(ShapeOps.RESHAPE, a[0], new int[] {-1}), 0L, wrapped);
                return e.call(ShapeOps.RESHAPE, picked, e.meta(a[1]).shape());
            });

    /**
     * self with the positions where mask (broadcast with self) is true filled, in order, by
     * source's first elements (flattened): a where over source gathered at the running count of
     * true positions, so the output's shape does not depend on the data, and eager, autograd
     * (through index_select and where) and the compiler compute one thing. That source holds enough
     * elements is checked where the mask is known (eager calls), with ATen's words.
     */
    public static final OpOverload MASKED_SCATTER = ComposedOps.define("masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor",
            a -> {
                Tensor self = a.tensor(0), mask = a.tensor(1), source = a.tensor(2);
                if (mask.dtype() != DType.BOOL) {
                    throw new IllegalArgumentException("masked_scatter_ only supports boolean masks, but got mask with dtype " + mask.dtype().scalarTypeName());
                }
                if (self.dtype() != source.dtype()) {
                    throw new IllegalArgumentException("masked_scatter: expected self and source to have same dtypes but got " + self.dtype().scalarTypeName()
                            + " and " + source.dtype().scalarTypeName());
                }
                int[] shape = Shapes.broadcast("masked_scatter", self.shape(), mask.shape());
                if (!(mask instanceof dev.ember.tensor.FakeTensor)) {
                    long ones = (long) mask.expand(shape).to(DType.INT64).sum().item();
                    if (ones > source.numel()) throw new IllegalArgumentException("masked_scatter_: Number of elements of source < number of ones in mask");
                }
            },
            (e, a) -> {
                int[] shape = Shapes.broadcast("masked_scatter", e.meta(a[0]).shape(), e.meta(a[1]).shape());
                Object self = e.call(ShapeOps.EXPAND, a[0], shape), mask = e.call(ShapeOps.EXPAND, a[1], shape);
                if (e.meta(a[2]).numel() == 0) return e.call(ShapeOps.CLONE, self);   // then no position is true (checked)
                Object flatMask = e.call(ShapeOps.RESHAPE, e.call(ShapeOps.TO_COPY, mask, DType.INT64), new int[] {-1});
                Object running = e.call(PointwiseOps.SUB_SCALAR, e.call(ScanOps.CUMSUM, flatMask, 0L), 1L);
                Object positions = e.call(PointwiseOps.CLAMP, running, 0L, (long) (e.meta(a[2]).numel() - 1));
                Object picked = e.call(INDEX_SELECT, e.call(ShapeOps.RESHAPE, a[2], new int[] {-1}), 0L, positions);
                return e.call(PointwiseOps.WHERE_SELF, mask, e.call(ShapeOps.RESHAPE, picked, shape), self);
            });
}
