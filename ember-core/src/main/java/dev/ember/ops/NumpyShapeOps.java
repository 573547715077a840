package dev.ember.ops;

import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * numpy-named shape ops, each a composite of Ember's own as ATen writes it: hsplit, vsplit and
 * dsplit (tensor_split along dim 1, 0 and 2; views), msort (sort along dim 0) and diagflat (the
 * flattened input on a diagonal); fliplr, flipud, ravel, broadcast_to, broadcast_tensors and
 * sum_to_size; the matrix-transpose views mT, mH, adjoint, T (numpy_T) and H (matrix_H); and the
 * unsafe_split family (split's pieces as tensors of their own).
 */
public final class NumpyShapeOps {
    private NumpyShapeOps() {}

    public static final OpOverload HSPLIT_INT = splitSections("hsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]", "hsplit", 1, -1);
    public static final OpOverload HSPLIT_ARRAY = splitIndices("hsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]", "hsplit", 1, -1);
    public static final OpOverload VSPLIT_INT = splitSections("vsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]", "vsplit", 2, 0);
    public static final OpOverload VSPLIT_ARRAY = splitIndices("vsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]", "vsplit", 2, 0);
    public static final OpOverload DSPLIT_INT = splitSections("dsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]", "dsplit", 3, 2);
    public static final OpOverload DSPLIT_ARRAY = splitIndices("dsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]", "dsplit", 3, 2);

    /** The dim each split cuts: {@code dim}, or for hsplit (-1) dim 1, dim 0 of a 1-d tensor. */
    private static int splitDim(int rank, int dim) { return dim >= 0 ? dim : rank == 1 ? 0 : 1; }

    private static void checkRank(String op, Tensor self, int minRank) {
        if (self.dim() < minRank) {
            throw new IllegalArgumentException("torch." + op + " requires a tensor with at least " + minRank + " dimension, but got a tensor with " + self.dim() + " dimensions!");
        }
    }

    private static OpOverload splitSections(String schema, String op, int minRank, int dim) {
        return ComposedOps.define(schema,
                a -> {
                    Tensor self = a.tensor(0);
                    checkRank(op, self, minRank);
                    int d = splitDim(self.dim(), dim);
                    long sections = a.lng(1);
                    if (sections == 0 || self.size(d) % sections != 0) {
                        throw new IllegalArgumentException("torch." + op + " attempted to split along dimension " + d + ", but the size of the dimension "
                                + self.size(d) + " is not divisible by the split_size " + sections + "!");
                    }
                },
                (e, a) -> e.call(ShapeOps.TENSOR_SPLIT_SECTIONS, a[0], a[1], (long) splitDim(e.meta(a[0]).dim(), dim)));
    }

    private static OpOverload splitIndices(String schema, String op, int minRank, int dim) {
        return ComposedOps.define(schema,
                a -> checkRank(op, a.tensor(0), minRank),
                (e, a) -> e.call(ShapeOps.TENSOR_SPLIT_INDICES, a[0], a[1], (long) splitDim(e.meta(a[0]).dim(), dim)));
    }

    /** The values of a stable sort along dim 0 (NaN last), as ATen's msort. */
    public static final OpOverload MSORT = ComposedOps.define("msort(Tensor self) -> Tensor",
            (e, a) -> ((List<?>) e.call(SortOps.SORT, a[0], 0L, false)).get(0));

    /** The flattened input on the {@code offset}-th diagonal of a square matrix (ATen's diagflat: diag of the flattened tensor). */
    public static final OpOverload DIAGFLAT = ComposedOps.define("diagflat(Tensor self, int offset=0) -> Tensor",
            (e, a) -> e.call(ShapeOps.DIAG, e.call(ShapeOps.RESHAPE, a[0], new int[] {-1}), a[1]));

    /** The columns in reverse order (flip along dim 1), ATen's fliplr. */
    public static final OpOverload FLIPLR = ComposedOps.define("fliplr(Tensor self) -> Tensor",
            a -> { if (a.tensor(0).dim() < 2) throw new IllegalArgumentException("fliplr: Input must be >= 2-d."); },
            (e, a) -> e.call(ShapeOps.FLIP, a[0], new int[] {1}));

    /** The rows in reverse order (flip along dim 0), ATen's flipud. */
    public static final OpOverload FLIPUD = ComposedOps.define("flipud(Tensor self) -> Tensor",
            a -> { if (a.tensor(0).dim() < 1) throw new IllegalArgumentException("flipud: Input must be >= 1-d."); },
            (e, a) -> e.call(ShapeOps.FLIP, a[0], new int[] {0}));

    /** The elements as one dim: a view where the layout allows one, else a copy (ATen's {@code contiguous().view(-1)}). */
    public static final OpOverload RAVEL = ComposedOps.define("ravel(Tensor(a) self) -> Tensor(a)",
            (e, a) -> e.call(ShapeOps.RESHAPE, a[0], new int[] {-1}));

    /** The tensor expanded to {@code size} (a view; -1 keeps a size), ATen's broadcast_to. */
    public static final OpOverload BROADCAST_TO = ComposedOps.define("broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)",
            (e, a) -> e.call(ShapeOps.EXPAND, a[0], a[1]));

    /** The tensors expanded to their common broadcast shape (views), ATen's broadcast_tensors. */
    public static final OpOverload BROADCAST_TENSORS = ComposedOps.define("broadcast_tensors(Tensor[] tensors) -> Tensor[]",
            (e, a) -> {
                List<?> tensors = (List<?>) a[0];
                int[] shape = new int[0];
                for (Object t : tensors) shape = dev.ember.tensor.Shapes.broadcast("broadcast_tensors", shape, e.meta(t).shape());
                List<Object> out = new java.util.ArrayList<>();
                for (Object t : tensors) out.add(e.call(ShapeOps.EXPAND, t, shape));
                return out;
            });

    /**
     * The tensor summed down to {@code size}, which it must expand to (autograd's sum_to: the leading
     * dims it lacks, and its size-1 dims where the tensor's are larger, summed away), ATen's sum_to_size.
     */
    public static final OpOverload SUM_TO_SIZE = ComposedOps.define("sum_to_size(Tensor self, SymInt[] size) -> Tensor",
            a -> {
                int[] size = a.ints(1), shape = a.tensor(0).shape();
                if (!expandable(size, shape)) {
                    throw new IllegalArgumentException("sum_to_size: size {" + dev.ember.tensor.Shapes.format(size) + "} is not expandable to size {"
                            + dev.ember.tensor.Shapes.format(shape) + "}.");
                }
            },
            (e, a) -> {
                int[] size = Composites.toInts(a[1]), shape = e.meta(a[0]).shape();
                if (size.length == 0) return e.call(ReductionOps.SUM, a[0]);
                int leading = shape.length - size.length;
                List<Integer> dims = new java.util.ArrayList<>();
                for (int i = 0; i < shape.length; i++) if (i < leading || size[i - leading] == 1 && shape[i] != 1) dims.add(i);
                Object summed = dims.isEmpty() ? a[0] : e.call(ReductionOps.SUM_DIM, a[0], dims.stream().mapToInt(Integer::intValue).toArray(), true);
                return leading > 0 ? e.call(ShapeOps.RESHAPE, summed, size) : summed;
            });

    /** ATen's is_expandable_to: {@code shape} (no more dims than {@code desired}) matches its trailing sizes or is 1 there. */
    private static boolean expandable(int[] shape, int[] desired) {
        if (shape.length > desired.length) return false;
        for (int i = 0; i < shape.length; i++) {
            int size = shape[shape.length - 1 - i], target = desired[desired.length - 1 - i];
            if (size != target && size != 1) return false;
        }
        return true;
    }

    /** The last two dims swapped (a view), ATen's mT; a 0-d tensor is itself, a 1-d one refused. */
    public static final OpOverload MT = ComposedOps.define("mT(Tensor(a) self) -> Tensor(a)",
            a -> checkMatrices("tensor.mT", a.tensor(0)), NumpyShapeOps::lastTwoSwapped);

    /** The conjugate transpose of the last two dims; for real tensors mT (ATen's mH). */
    public static final OpOverload MH = ComposedOps.define("mH(Tensor(a) self) -> Tensor(a)",
            a -> checkMatrices("tensor.mH", a.tensor(0)), NumpyShapeOps::lastTwoSwapped);

    /** torch.adjoint: mH by another name (its refusal names mH, as libtorch 2.7's does). */
    public static final OpOverload ADJOINT = ComposedOps.define("adjoint(Tensor(a) self) -> Tensor(a)",
            a -> checkMatrices("tensor.mH", a.tensor(0)), NumpyShapeOps::lastTwoSwapped);

    /** ATen's _adjoint: a 0-d tensor as it is, else dims −2 and −1 swapped. */
    private static Object lastTwoSwapped(OpEmitter e, Object[] a) {
        return e.meta(a[0]).dim() == 0 ? a[0] : e.call(ShapeOps.TRANSPOSE, a[0], -2L, -1L);
    }

    /** {@code x.T}: the dims in reverse order (a view; ATen's numpy_T, which PyTorch deprecates for tensors other than 0-d and 2-d). */
    public static final OpOverload NUMPY_T = ComposedOps.define("numpy_T(Tensor(a) self) -> Tensor(a)",
            (e, a) -> {
                int n = e.meta(a[0]).dim();
                int[] reversed = new int[n];
                for (int i = 0; i < n; i++) reversed[i] = n - 1 - i;
                return e.call(ShapeOps.PERMUTE, a[0], reversed);
            });

    /** {@code x.H}: the conjugate transpose of a matrix (0-d or 2-d only), ATen's matrix_H. */
    public static final OpOverload MATRIX_H = ComposedOps.define("matrix_H(Tensor(a) self) -> Tensor(a)",
            a -> {
                int n = a.tensor(0).dim();
                if (n != 0 && n != 2) throw new IllegalArgumentException("matrix_H: tensor.H is only supported on matrices (2-D tensors). Got " + n + "-D tensor.");
            },
            (e, a) -> e.call(NUMPY_T, a[0]));

    /** ATen's _adjoint check: only a 1-d tensor is refused (a 0-d one is its own transpose). */
    private static void checkMatrices(String what, Tensor self) {
        if (self.dim() == 1) {
            throw new IllegalArgumentException(what + " is only supported on matrices or batches of matrices. Got " + self.dim() + "-D tensor.");
        }
    }

    /** split's pieces, each a tensor of its own (ATen's unsafe_split gives views autograd does not track; a copy is what that promises). */
    public static final OpOverload UNSAFE_SPLIT = ComposedOps.define("unsafe_split.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]",
            (e, a) -> copies(e, e.call(ShapeOps.SPLIT, a[0], a[1], a[2])));

    /** split_with_sizes' pieces, each a tensor of its own. */
    public static final OpOverload UNSAFE_SPLIT_WITH_SIZES = ComposedOps.define(
            "unsafe_split_with_sizes(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]",
            (e, a) -> copies(e, e.call(ShapeOps.SPLIT_WITH_SIZES, a[0], a[1], a[2])));

    /** chunk's pieces, each a tensor of its own. */
    public static final OpOverload UNSAFE_CHUNK = ComposedOps.define("unsafe_chunk(Tensor self, int chunks, int dim=0) -> Tensor[]",
            (e, a) -> copies(e, e.call(ShapeOps.CHUNK, a[0], a[1], a[2])));

    private static List<Object> copies(OpEmitter e, Object pieces) {
        List<Object> out = new java.util.ArrayList<>();
        for (Object piece : (List<?>) pieces) out.add(e.call(ShapeOps.CLONE, piece));
        return out;
    }
}
