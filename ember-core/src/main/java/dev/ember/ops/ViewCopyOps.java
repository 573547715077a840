package dev.ember.ops;

/**
 * The {@code *_copy} forms of the views (ATen's functional variants, which functionalized graphs
 * and export use): each is its view followed by a contiguous copy, so it never shares memory with
 * its input; checks, results and gradients are the view's. One definition, {@link #copyOf}, for all.
 */
public final class ViewCopyOps {
    private ViewCopyOps() {}

    public static final OpOverload VIEW_COPY = copyOf(ShapeOps.VIEW, "view_copy(Tensor self, int[] size) -> Tensor");
    public static final OpOverload PERMUTE_COPY = copyOf(ShapeOps.PERMUTE, "permute_copy(Tensor self, int[] dims) -> Tensor");
    public static final OpOverload EXPAND_COPY = copyOf(ShapeOps.EXPAND, "expand_copy(Tensor self, int[] size, *, bool implicit=False) -> Tensor");
    public static final OpOverload TRANSPOSE_COPY = copyOf(ShapeOps.TRANSPOSE, "transpose_copy.int(Tensor self, int dim0, int dim1) -> Tensor");
    public static final OpOverload T_COPY = copyOf(ShapeOps.T, "t_copy(Tensor self) -> Tensor");
    public static final OpOverload SQUEEZE_COPY = copyOf(ShapeOps.SQUEEZE, "squeeze_copy(Tensor self) -> Tensor");
    public static final OpOverload SQUEEZE_COPY_DIM = copyOf(ShapeOps.SQUEEZE_DIM, "squeeze_copy.dim(Tensor self, int dim) -> Tensor");
    public static final OpOverload UNSQUEEZE_COPY = copyOf(ShapeOps.UNSQUEEZE, "unsqueeze_copy(Tensor self, int dim) -> Tensor");
    public static final OpOverload SELECT_COPY = copyOf(ShapeOps.SELECT, "select_copy.int(Tensor self, int dim, int index) -> Tensor");
    public static final OpOverload SLICE_COPY = copyOf(ShapeOps.SLICE,
            "slice_copy.Tensor(Tensor self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor");
    public static final OpOverload NARROW_COPY = copyOf(ShapeOps.NARROW, "narrow_copy(Tensor self, int dim, int start, int length) -> Tensor");
    public static final OpOverload DIAGONAL_COPY = copyOf(ShapeOps.DIAGONAL, "diagonal_copy(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor");
    public static final OpOverload DETACH_COPY = copyOf(ShapeOps.DETACH, "detach_copy(Tensor self) -> Tensor");
    public static final OpOverload UNFOLD_COPY = copyOf(StridedViewOps.UNFOLD, "unfold_copy(Tensor self, int dimension, int size, int step) -> Tensor");
    public static final OpOverload AS_STRIDED_COPY = copyOf(StridedViewOps.AS_STRIDED,
            "as_strided_copy(Tensor self, int[] size, int[] stride, int? storage_offset=None) -> Tensor");
    /** alias_copy: the alias view is the tensor itself, so its copy is a clone. */
    public static final OpOverload ALIAS_COPY = ComposedOps.define("alias_copy(Tensor self) -> Tensor", (e, a) -> e.call(ShapeOps.CLONE, a[0], null));

    /** {@code schema}, the copy form of {@code view} taking the same arguments: the view, then a contiguous clone. */
    private static OpOverload copyOf(OpOverload view, String schema) {
        return ComposedOps.define(schema, (e, a) -> e.call(ShapeOps.CLONE, e.call(view, a), null));
    }
}
