package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import static dev.ember.ops.ComposedOps.composed;
import static dev.ember.ops.ActivationOps.number;

/**
 * Norms and distances, as ATen's Distance.cpp and linalg_vector_norm: each defined by its
 * decomposition ({@link ComposedOps#composed}), so autograd differentiates through it and the
 * compiler sees the same ops.
 */
public final class DistanceOps {
    private DistanceOps() {}

    /**
     * {@code (Σ |x|^ord)^(1/ord)} over {@code dim} (all dims when None), with ord = inf, −inf, 0 (the
     * count of nonzeros), 1 and 2 as ATen special-cases them. Where the sum is 0 the root is taken
     * of 1 and the result set to 0, so its gradient there is 0, as ATen's norm_backward makes it,
     * not the NaN of {@code 0 · ∞}.
     */
    public static final OpOverload LINALG_VECTOR_NORM = composed(
                    "linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
                    a -> {
                        Tensor self = a.tensor(0);
                        DType dtype = a.optDtype(4) != null ? a.optDtype(4) : self.dtype();
                        if (!self.dtype().isFloatingPoint()) {
                            throw new IllegalArgumentException("linalg_vector_norm: linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                                    + self.dtype().scalarTypeName());
                        }
                        TensorMeta reduced = (TensorMeta) ReductionOps.SUM_DIM.inferMeta(ReductionOps.SUM_DIM.bind(self, a.get(2), a.bool(3)));
                        return TensorMeta.contiguous(dtype, reduced.shape());
                    },
                    DistanceOps::vectorNorm)
            .tags(Tag.REDUCTION).register();

    /** The p-norm of {@code self − other} (broadcast), ATen's dist: {@code norm(self - other, p)}. */
    public static final OpOverload DIST = ComposedOps.define("dist(Tensor self, Tensor other, Scalar p=2) -> Tensor",
            (e, a) -> e.call(ReductionOps.NORM, e.call(PointwiseOps.SUB_TENSOR, a[0], a[1]), a[2]));

    /**
     * ATen's formula: {@code Σ (x1 / max(‖x1‖, eps)) · (x2 / max(‖x2‖, eps))} over {@code dim}, the
     * inputs broadcast together (integers converted to the common floating dtype). ATen clamps the
     * norms with autograd off, so its gradient flows through a norm below eps as if unclamped; here
     * the clamp is an op, whose gradient there is 0 (the two agree at a zero vector).
     */
    public static final OpOverload COSINE_SIMILARITY = composed("cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor",
                    a -> {
                        Tensor x1 = a.tensor(0), x2 = a.tensor(1);
                        DType common = TypePromotion.resultType(x1, x2);
                        if (!common.isFloatingPoint()) {
                            throw new IllegalArgumentException("cosine_similarity: expected common dtype to be floating point, yet common dtype is "
                                    + common.scalarTypeName());
                        }
                        int[] shape = Shapes.broadcast("cosine_similarity", x1.shape(), x2.shape());
                        int dim = Shapes.wrapDim("cosine_similarity", a.integer(2), shape.length);
                        return TensorMeta.contiguous(common, shape.length == 0 ? shape : LossOps.without(shape, dim));
                    },
                    (e, a) -> {
                        DType common = TypePromotion.resultType(new FakeTensor(e.meta(a[0])), new FakeTensor(e.meta(a[1])));
                        int[] shape = Shapes.broadcast("cosine_similarity", e.meta(a[0]).shape(), e.meta(a[1]).shape());
                        int given = ((Number) a[2]).intValue();
                        int[] dim = {given < 0 ? given + Math.max(shape.length, 1) : given};
                        Object product = null;
                        for (int i = 0; i < 2; i++) {
                            Object x = a[i];
                            if (e.meta(x).dtype() != common) x = e.call(ShapeOps.TO_COPY, x, common);
                            if (!java.util.Arrays.equals(e.meta(x).shape(), shape)) x = e.call(ShapeOps.EXPAND, x, shape);
                            Object norm = e.call(PointwiseOps.CLAMP, e.call(LINALG_VECTOR_NORM, x, 2L, dim, true), a[3], null);
                            Object unit = e.call(PointwiseOps.DIV_TENSOR, x, norm);
                            product = product == null ? unit : e.call(PointwiseOps.MUL_TENSOR, product, unit);
                        }
                        return e.call(ReductionOps.SUM_DIM, product, dim, false);
                    })
            .register();

    /** ATen's {@code norm(x1 − x2 + eps, p, innermost dim, keepdim)}. */
    public static final OpOverload PAIRWISE_DISTANCE = composed(
                    "pairwise_distance(Tensor x1, Tensor x2, float p=2, float eps=1e-06, bool keepdim=False) -> Tensor",
                    a -> {
                        int[] shape = Shapes.broadcast("pairwise_distance", a.tensor(0).shape(), a.tensor(1).shape());
                        DType common = TypePromotion.resultType(a.tensor(0), a.tensor(1));
                        Tensor difference = new FakeTensor(TensorMeta.contiguous(common, shape));
                        return LINALG_VECTOR_NORM.inferMeta(LINALG_VECTOR_NORM.bind(difference, a.get(2), innermost(a.tensor(0).dim(), a.tensor(1).dim()), a.get(4)));
                    },
                    (e, a) -> {
                        Object difference = e.call(PointwiseOps.ADD_SCALAR, e.call(PointwiseOps.SUB_TENSOR, a[0], a[1]), a[3]);
                        return e.call(LINALG_VECTOR_NORM, difference, a[2], innermost(e.meta(a[0]).dim(), e.meta(a[1]).dim()), a[4]);
                    })
            .register();

    /**
     * The p-norm distance between every row of {@code x1 [..., P, M]} and every row of
     * {@code x2 [..., R, M]} (batch dims broadcast): {@code [..., P, R]}, as
     * {@code linalg_vector_norm(x1[..., :, None, :] - x2[..., None, :, :], p, -1)}, whose gradient at a
     * zero distance is 0, as ATen's cdist backward. ATen's p = 2 on more than 25 rows takes a matrix
     * product instead ({@code |a|² + |b|² - 2ab}, compute_mode's default); this direct form is the
     * one it uses below that, and agrees with it to rounding.
     */
    public static final OpOverload CDIST = composed("cdist(Tensor x1, Tensor x2, float p=2, int? compute_mode=None) -> Tensor",
                    a -> {
                        Tensor x1 = a.tensor(0), x2 = a.tensor(1);
                        if (x1.dim() < 2) throw new IllegalArgumentException("cdist only supports at least 2D tensors, X1 got: " + x1.dim() + "D");
                        if (x2.dim() < 2) throw new IllegalArgumentException("cdist only supports at least 2D tensors, X2 got: " + x2.dim() + "D");
                        if (!x1.dtype().isFloatingPoint()) throw new IllegalArgumentException("cdist only supports floating-point dtypes, X1 got: " + x1.dtype().scalarTypeName());
                        if (!x2.dtype().isFloatingPoint()) throw new IllegalArgumentException("cdist only supports floating-point dtypes, X2 got: " + x2.dtype().scalarTypeName());
                        if (x1.size(-1) != x2.size(-1)) {
                            throw new IllegalArgumentException("X1 and X2 must have the same number of columns. X1: " + x1.size(-1) + " X2: " + x2.size(-1));
                        }
                        if (!(a.dbl(2) >= 0)) throw new IllegalArgumentException("cdist only supports non-negative p values");
                        int[] b1 = java.util.Arrays.copyOf(x1.shape(), x1.dim() - 2), b2 = java.util.Arrays.copyOf(x2.shape(), x2.dim() - 2);
                        int[] batch = Shapes.broadcast("cdist", b1, b2);
                        int[] out = java.util.Arrays.copyOf(batch, batch.length + 2);
                        out[batch.length] = x1.size(-2);
                        out[batch.length + 1] = x2.size(-2);
                        return TensorMeta.contiguous(TypePromotion.resultType(x1, x2), out);
                    },
                    (e, a) -> {
                        Object rows = e.call(ShapeOps.UNSQUEEZE, a[0], -2L), cols = e.call(ShapeOps.UNSQUEEZE, a[1], -3L);
                        return e.call(LINALG_VECTOR_NORM, e.call(PointwiseOps.SUB_TENSOR, rows, cols), a[2], new int[] {-1}, false);
                    })
            .register();

    /**
     * The p-norm distances between each pair of rows i < j of a 2-d input, in row-major order of the
     * pairs ({@code n (n - 1) / 2} of them), as ATen's pdist: the rows at triu_indices(n, n, 1)
     * differenced and linalg_vector_norm'd, so a zero distance's gradient is 0, as ATen's.
     */
    public static final OpOverload PDIST = ComposedOps.define("pdist(Tensor self, float p=2) -> Tensor",
            a -> {
                Tensor self = a.tensor(0);
                if (self.dim() != 2) throw new IllegalArgumentException("pdist only supports 2D tensors, got: " + self.dim() + "D");
                if (!self.dtype().isFloatingPoint()) throw new IllegalArgumentException("pdist only supports floating-point dtypes");
                if (a.dbl(1) < 0) throw new IllegalArgumentException("pdist only supports non-negative p values");
            },
            (e, a) -> {
                int n = e.meta(a[0]).shape()[0];
                // rows of no elements are all 0 apart (where a max over nothing would refuse)
                if (e.meta(a[0]).shape()[1] == 0) return e.call(CreationOps.ZEROS, new int[] {n * (n - 1) / 2}, e.meta(a[0]).dtype());
                Object pairs = e.call(ShapeOps.TRIU_INDICES, (long) n, (long) n, 1L, DType.INT64);
                Object first = e.call(IndexingOps.INDEX_SELECT, a[0], 0L, e.call(ShapeOps.SELECT, pairs, 0L, 0L));
                Object second = e.call(IndexingOps.INDEX_SELECT, a[0], 0L, e.call(ShapeOps.SELECT, pairs, 0L, 1L));
                return e.call(LINALG_VECTOR_NORM, e.call(PointwiseOps.SUB_TENSOR, first, second), a[1], new int[] {1}, false, null);
            });

    /** The last dim of two inputs broadcast together. */
    private static int[] innermost(int dims1, int dims2) { return new int[] {Math.max(dims1, dims2) - 1}; }

    private static Object vectorNorm(OpEmitter e, Object[] a) {
        Object x = a[4] != null ? e.call(ShapeOps.TO_COPY, a[0], a[4]) : a[0];
        double ord = number(a[1]);
        int[] dims = Composites.dims(e, x, a[2]);
        boolean keepdim = (Boolean) a[3];
        if (ord == 0) return e.call(ShapeOps.TO_COPY, e.call(ReductionOps.SUM_DIM, e.call(PointwiseOps.NE_SCALAR, x, 0L), dims, keepdim), e.meta(x).dtype());
        Object abs = e.call(PointwiseOps.ABS, x);
        if (ord == Double.POSITIVE_INFINITY) return e.call(ReductionOps.AMAX, abs, dims, keepdim);
        if (ord == Double.NEGATIVE_INFINITY) return e.call(ReductionOps.AMIN, abs, dims, keepdim);
        if (ord == 1) return e.call(ReductionOps.SUM_DIM, abs, dims, keepdim);
        Object powered = ord == 2 ? e.call(PointwiseOps.MUL_TENSOR, x, x) : e.call(PointwiseOps.POW_TENSOR_SCALAR, abs, ord);
        if (ord > 0 && ord < 1) {
            // |x|^ord has an infinite slope at 0 for 0 < ord < 1: the zeros take their power from 1 and are set to 0 after,
            // so their gradient is 0, as ATen's norm_backward masks it (masked_fill(self == 0, 0))
            Object isZero = e.call(PointwiseOps.EQ_SCALAR, abs, 0L);
            Object fromOne = e.call(PointwiseOps.POW_TENSOR_SCALAR, e.call(PointwiseOps.WHERE_SCALAR_SELF, isZero, 1.0, abs), ord);
            powered = e.call(PointwiseOps.WHERE_SCALAR_SELF, isZero, 0.0, fromOne);
        }
        Object sum = e.call(ReductionOps.SUM_DIM, powered, dims, keepdim);
        Object zero = e.call(PointwiseOps.EQ_SCALAR, sum, 0L);
        Object safe = e.call(PointwiseOps.WHERE_SCALAR_SELF, zero, 1.0, sum);
        Object root = ord == 2 ? e.call(PointwiseOps.SQRT, safe) : e.call(PointwiseOps.POW_TENSOR_SCALAR, safe, 1 / ord);
        return e.call(PointwiseOps.WHERE_SCALAR_SELF, zero, 0.0, root);
    }
}
