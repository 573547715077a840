package dev.ember.ops;

import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * numpy-named shape ops, each a composite of Ember's own as ATen writes it: hsplit, vsplit and
 * dsplit (tensor_split along dim 1, 0 and 2; views), msort (sort along dim 0) and diagflat (the
 * flattened input on a diagonal).
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
}
