package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;
import java.util.List;

/**
 * torch.linalg's determinants, inverse and solver, on one LU factorization with partial pivoting
 * (LAPACK's getrf, as ATen's CPU kernels call it) per matrix of a batch, computed in float64 and
 * rounded once to the input's dtype. Each op is one definition with ATen's checks and words and
 * its derivatives.yaml formula: {@code det}: {@code g·det·A⁻ᵀ}; {@code slogdet}'s logabsdet:
 * {@code g·A⁻ᵀ}; {@code inv}: {@code −A⁻ᵀ g A⁻ᵀ}; {@code solve}: {@code gB = A⁻ᵀ g},
 * {@code gA = −gB Xᵀ}. (ATen's det backward also covers singular matrices through an SVD; here a
 * singular A's det gradient is refused by the inverse it needs.) Under Ember.compile each runs its
 * kernel (a batch of small dense factorizations).
 */
public final class LuOps {
    private LuOps() {}

    public static final OpOverload LINALG_DET = OpOverload.define("linalg_det(Tensor A) -> Tensor")
            .meta(a -> TensorMeta.contiguous(a.tensor(0).dtype(), batchShape(checkSquare("linalg.det", a.tensor(0)))))
            .kernel((a, m) -> {
                Factors f = factor(a.tensor(0));
                double[] det = new double[f.count];
                for (int b = 0; b < f.count; b++) det[b] = f.det(b);
                return result(det, (TensorMeta) m);
            })
            .derivative(g -> new Object[] {g.mul(g.call(ShapeOps.UNSQUEEZE, g.call(ShapeOps.UNSQUEEZE, g.mul(g.grad(), g.result()), -1L), -1L), inverseTransposed(g))})
            .register();

    public static final OpOverload DET = ComposedOps.define("det(Tensor self) -> Tensor", a -> checkSquare("linalg.det", a.tensor(0)),
            (e, a) -> e.call(LINALG_DET, a[0]));

    public static final OpOverload LINALG_SLOGDET = OpOverload.define("linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)")
            .meta(a -> {
                Tensor self = checkSquare("linalg.slogdet", a.tensor(0));
                TensorMeta one = TensorMeta.contiguous(self.dtype(), batchShape(self));
                return List.of(one, one);
            })
            .kernel((a, m) -> {
                Factors f = factor(a.tensor(0));
                double[] sign = new double[f.count], logAbs = new double[f.count];
                for (int b = 0; b < f.count; b++) {
                    double[] s = f.signAndLogAbsDet(b);
                    sign[b] = s[0];
                    logAbs[b] = s[1];
                }
                List<?> metas = (List<?>) m;
                return List.of(result(sign, (TensorMeta) metas.get(0)), result(logAbs, (TensorMeta) metas.get(1)));
            })
            .derivative(g -> new Object[] {g.mul(g.call(ShapeOps.UNSQUEEZE, g.call(ShapeOps.UNSQUEEZE, g.grad(1), -1L), -1L), inverseTransposed(g))})
            .nonDifferentiableOutputs(0)
            .register();

    public static final OpOverload SLOGDET = ComposedOps.define("slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet)",
            a -> checkSquare("linalg.slogdet", a.tensor(0)), (e, a) -> e.call(LINALG_SLOGDET, a[0]));

    /** log(det): NaN for a negative determinant, -inf for a zero one (ATen's sign-aware formula). */
    public static final OpOverload LOGDET = ComposedOps.define("logdet(Tensor self) -> Tensor", a -> checkSquare("logdet", a.tensor(0)), (e, a) -> {
        @SuppressWarnings("unchecked")
        List<Object> parts = (List<Object>) e.call(LINALG_SLOGDET, a[0]);
        Object nanWhereNegative = e.call(PointwiseOps.WHERE_SCALAR, e.call(PointwiseOps.LT_SCALAR, parts.get(0), 0L), Double.NaN, 0.0);
        return e.call(PointwiseOps.ADD_TENSOR, parts.get(1), nanWhereNegative);
    });

    public static final OpOverload LINALG_INV = OpOverload.define("linalg_inv(Tensor A) -> Tensor")
            .meta(a -> {
                Tensor self = checkSquare("linalg.inv", a.tensor(0));
                return TensorMeta.contiguous(self.dtype(), self.shape());
            })
            .kernel((a, m) -> invert(a.tensor(0), (TensorMeta) m, "linalg.inv").get(0))
            .derivative(LuOps::inverseBackward)
            .register();

    /** derivatives.yaml's linalg_inv_ex: {@code −A⁻ᵀ g A⁻ᵀ}, from the result (output 0). */
    static Object[] inverseBackward(Grad g) {
        Object invT = g.call(ShapeOps.TRANSPOSE, g.result(), -2L, -1L);
        return new Object[] {g.neg(g.call(LinalgOps.MATMUL, g.call(LinalgOps.MATMUL, invT, g.grad()), invT))};
    }

    /**
     * Each matrix's inverse and LAPACK's info (int32, the first zero diagonal element of U, 0 for an
     * invertible matrix); a singular matrix is refused under {@code refuseAs} unless it is null
     * (then its inverse holds the infinities and NaNs the division by zero gives, as ATen's).
     */
    static List<Tensor> invert(Tensor self, TensorMeta meta, String refuseAs) {
        // Aᵀ is factored, as ATen's LAPACK call sees a row-major A (column-major Aᵀ), so a singular
        // matrix is refused naming the diagonal element ATen names; column j of (Aᵀ)⁻¹ is row j of A⁻¹
        Factors f = factor(self.transpose(-2, -1).contiguous());
        int n = f.n;
        double[] out = new double[f.count * n * n];
        int[] info = new int[f.count];
        for (int b = 0; b < f.count; b++) {
            if (refuseAs != null) f.requireInvertible(b, refuseAs, "the inversion could not be completed because the input matrix is singular.");
            info[b] = f.firstZero[b];
            double[] column = new double[n];
            for (int j = 0; j < n; j++) {
                Arrays.fill(column, 0);
                column[j] = 1;
                f.solveInPlace(b, column);
                System.arraycopy(column, 0, out, b * n * n + j * n, n);
            }
        }
        return List.of(result(out, meta), Tensor.of(info, batchShape(self)));
    }

    public static final OpOverload INVERSE = ComposedOps.define("inverse(Tensor self) -> Tensor", a -> checkSquare("linalg.inv", a.tensor(0)),
            (e, a) -> e.call(LINALG_INV, a[0]));

    /**
     * {@code A X = B} for X: B a matrix ({@code [..., n, k]}) or a vector ({@code [n]}, or
     * {@code [..., n]} with A's batch shape), batch dims broadcast as ATen's linalg_solve does.
     * With {@code left=False}, {@code X A = B} (B {@code [..., k, n]}, a matrix only, as in ATen),
     * solved as {@code Aᵀ Xᵀ = Bᵀ}. The gradient is derivatives.yaml's linalg_solve_backward:
     * {@code gB = A⁻ᵀ gX}, {@code gA = -gB Xᵀ} (left), {@code gB = gX A⁻ᵀ}, {@code gA = -Xᵀ gB} (right).
     */
    public static final OpOverload LINALG_SOLVE = OpOverload.define("linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor")
            .meta(a -> solveMeta(a.tensor(0), a.tensor(1), a.bool(2)))
            .kernel((a, m) -> solve(a.tensor(0), a.tensor(1), a.bool(2), (TensorMeta) m, "torch.linalg.solve").get(0))
            .derivative(LuOps::solveBackward)
            .register();

    /** derivatives.yaml's linalg_solve_backward, from the solution (output 0); A, B, left are arguments 0, 1, 2. */
    static Object[] solveBackward(Grad g) {
        Object A = g.arg(0), X = g.result();
        boolean left = (Boolean) g.value(2);
        Object At = g.call(ShapeOps.TRANSPOSE, A, -2L, -1L);
        if (!left) {
            Object gB = g.call(LuOps.LINALG_SOLVE, At, g.grad(), false);
            Object gA = g.needs(0) ? g.neg(g.call(LinalgOps.MATMUL, g.call(ShapeOps.TRANSPOSE, X, -2L, -1L), gB)) : null;
            return new Object[] {gA, g.needs(1) ? gB : null, null};
        }
        boolean vector = isVectorCase(g.argMeta(0), g.argMeta(1));
        Object gB = g.call(LuOps.LINALG_SOLVE, At, g.grad(), true);
        Object gA = null;
        if (g.needs(0)) {
            Object gBm = vector ? g.call(ShapeOps.UNSQUEEZE, gB, -1L) : gB, Xm = vector ? g.call(ShapeOps.UNSQUEEZE, X, -1L) : X;
            gA = g.neg(g.call(LinalgOps.MATMUL, gBm, g.call(ShapeOps.TRANSPOSE, Xm, -2L, -1L)));
        }
        return new Object[] {gA, g.needs(1) ? gB : null, null};
    }

    /**
     * The Cholesky factor of each symmetric positive-definite matrix: L lower with {@code A = L Lᵀ}
     * (Lᵀ with {@code upper}), read from A's lower triangle, in float64 and rounded once. The
     * gradient is derivatives.yaml's cholesky_backward: {@code Φ(Lᵀ gL)} (the lower triangle, its
     * diagonal halved) taken to A by {@code L⁻ᵀ · L⁻¹} and symmetrized.
     */
    public static final OpOverload LINALG_CHOLESKY = OpOverload.define("linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor")
            .meta(a -> {
                Tensor self = checkSquare("linalg.cholesky", a.tensor(0));
                return TensorMeta.contiguous(self.dtype(), self.shape());
            })
            .kernel((a, m) -> choleskyFactor(a.tensor(0), a.bool(1), "linalg.cholesky").get(0))
            .derivative(LuOps::choleskyBackward)
            .register();

    /**
     * Each matrix's Cholesky factor (Lᵀ with {@code upper}) and LAPACK's info (int32: the order of
     * the first leading minor that is not positive-definite, 0 for none); such a matrix is refused
     * under {@code refuseAs} unless it is null. Where the factorization stops, the factor's columns
     * from the failing one on are unspecified (LAPACK's blocked potrf leaves them partly updated).
     */
    static List<Tensor> choleskyFactor(Tensor self, boolean upper, String refuseAs) {
        int n = self.dim() < 2 ? 0 : self.size(-1);
        double[] x = self.contiguous().toDoubleArray();
        int count = n == 0 ? Shapes.numel(batchShape(self)) : x.length / (n * n);
        double[] l = new double[x.length];
        int[] info = new int[count];
        for (int b = 0; b < count; b++) {
            int base = b * n * n;
            for (int j = 0; j < n; j++) {
                double d = x[base + j * n + j];
                for (int k = 0; k < j; k++) d -= l[base + j * n + k] * l[base + j * n + k];
                if (!(d > 0)) {
                    if (refuseAs != null) {
                        throw new IllegalArgumentException(refuseAs + ": " + (count > 1 ? "(Batch element " + b + "): " : "")
                                + "The factorization could not be completed because the input is not positive-definite (the leading minor of order "
                                + (j + 1) + " is not positive-definite).");
                    }
                    info[b] = j + 1;
                    l[base + j * n + j] = d;
                    break;
                }
                double diag = Math.sqrt(d);
                l[base + j * n + j] = diag;
                for (int i = j + 1; i < n; i++) {
                    double s = x[base + i * n + j];
                    for (int k = 0; k < j; k++) s -= l[base + i * n + k] * l[base + j * n + k];
                    l[base + i * n + j] = s / diag;
                }
            }
        }
        Tensor lower = result(l, TensorMeta.contiguous(self.dtype(), self.shape()));
        return List.of(upper ? lower.transpose(-2, -1).contiguous() : lower, Tensor.of(info, batchShape(self)));
    }

    /** derivatives.yaml's cholesky_backward, from the factor (output 0); upper is argument 1. */
    static Object[] choleskyBackward(Grad g) {
        boolean upper = (Boolean) g.arg(1);
        Object L = upper ? g.call(ShapeOps.TRANSPOSE, g.result(), -2L, -1L) : g.result();
        Object gL = upper ? g.call(ShapeOps.TRANSPOSE, g.grad(), -2L, -1L) : g.grad();
        Object lt = g.call(ShapeOps.TRANSPOSE, L, -2L, -1L);
        Object product = g.call(LinalgOps.MATMUL, lt, gL);
        Object phi = g.sub(g.call(ShapeOps.TRIL, product, 0L),
                g.mul(g.call(ShapeOps.DIAG_EMBED, g.call(ShapeOps.DIAGONAL, product, 0L, -2L, -1L), 0L, -2L, -1L), 0.5));
        Object lInv = g.call(LINALG_INV, L);
        Object gA = g.call(LinalgOps.MATMUL, g.call(LinalgOps.MATMUL, g.call(ShapeOps.TRANSPOSE, lInv, -2L, -1L), phi), lInv);
        return new Object[] {g.mul(g.add(gA, g.call(ShapeOps.TRANSPOSE, gA, -2L, -1L)), 0.5), null};
    }

    public static final OpOverload CHOLESKY = ComposedOps.define("cholesky(Tensor self, bool upper=False) -> Tensor", a -> checkSquare("linalg.cholesky", a.tensor(0)),
            (e, a) -> e.call(LINALG_CHOLESKY, a[0], a[1]));

    /** A square matrix to an integer power: repeated squaring (matmul); a negative power of its inverse; the identity for 0. */
    public static final OpOverload LINALG_MATRIX_POWER = ComposedOps.define("linalg_matrix_power(Tensor self, int n) -> Tensor",
            a -> {
                Tensor self = a.tensor(0);
                if (self.dim() < 2) throw new IllegalArgumentException("linalg.matrix_power: The input tensor A must have at least 2 dimensions.");
                if (self.size(-2) != self.size(-1)) {
                    throw new IllegalArgumentException("linalg.matrix_power: A must be batches of square matrices, but they are " + self.size(-2) + " by " + self.size(-1) + " matrices");
                }
                if (a.lng(1) < 0) checkSquare("linalg.inv", self);
            },
            (e, a) -> {
                long n = ((Number) a[1]).longValue();
                TensorMeta meta = e.meta(a[0]);
                if (n == 0) {
                    Object eye = e.call(CreationOps.EYE, (long) meta.shape()[meta.dim() - 1], meta.dtype());
                    return e.call(ShapeOps.CLONE, e.call(ShapeOps.EXPAND, eye, meta.shape()));
                }
                Object base = n < 0 ? e.call(LINALG_INV, a[0]) : a[0];
                long k = Math.abs(n);
                Object result = null;
                while (k > 0) {
                    if ((k & 1) == 1) result = result == null ? base : e.call(LinalgOps.MATMUL, result, base);
                    k >>= 1;
                    if (k > 0) base = e.call(LinalgOps.MATMUL, base, base);
                }
                return result == a[0] ? e.call(ShapeOps.CLONE, a[0]) : result;
            });

    /**
     * {@code A X = B} for X given A's Cholesky factor ({@code A = L Lᵀ}, or {@code Uᵀ U} with
     * {@code upper}): two triangular solves, batch dims broadcast as ATen's. Composed of
     * linalg_solve, whose gradient through both solves is derivatives.yaml's cholesky_solve_backward
     * ({@code gB = A⁻¹ g}, {@code gL = −(gB Xᵀ + X gBᵀ) L}).
     */
    public static final OpOverload CHOLESKY_SOLVE = ComposedOps.define("cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor",
            a -> {
                Tensor b = a.tensor(0), factor = a.tensor(1);
                String op = "cholesky_solve";
                if (b.dim() < 2) throw new IllegalArgumentException(op + ": b should have at least 2 dimensions, but has " + b.dim() + " dimensions instead");
                if (factor.dim() < 2) throw new IllegalArgumentException(op + ": u should have at least 2 dimensions, but has " + factor.dim() + " dimensions instead");
                if (b.dtype() != factor.dtype()) {
                    throw new IllegalArgumentException(op + ": Expected b and A to have the same dtype, but found b of type " + b.dtype().scalarTypeName()
                            + " and A of type " + factor.dtype().scalarTypeName() + " instead.");
                }
                if (factor.size(-1) != factor.size(-2)) {
                    throw new IllegalArgumentException(op + ": A must be batches of square matrices, but they are " + factor.size(-2) + " by " + factor.size(-1) + " matrices");
                }
                if (factor.size(-1) != b.size(-2)) {
                    throw new IllegalArgumentException(op + ": Incompatible matrix sizes for cholesky_solve: each A matrix is " + factor.size(-1) + " by " + factor.size(-1)
                            + " but each b matrix is " + b.size(-2) + " by " + b.size(-1));
                }
            },
            (e, a) -> {
                TensorMeta b = e.meta(a[0]), factor = e.meta(a[1]);
                boolean upper = (Boolean) a[2];
                // both expanded to the broadcast batch, so linalg_solve never reads B as a batch of vectors
                int[] batch = Shapes.broadcast("cholesky_solve", Arrays.copyOf(b.shape(), b.dim() - 2), Arrays.copyOf(factor.shape(), factor.dim() - 2));
                int n = factor.shape()[factor.dim() - 1];
                Object bFull = e.call(ShapeOps.EXPAND, a[0], withMatrix(batch, n, b.shape()[b.dim() - 1]));
                Object lower = e.call(ShapeOps.EXPAND, a[1], withMatrix(batch, n, n));
                if (upper) lower = e.call(ShapeOps.TRANSPOSE, lower, -2L, -1L);
                Object y = e.call(LINALG_SOLVE, lower, bFull, true);
                return e.call(LINALG_SOLVE, e.call(ShapeOps.TRANSPOSE, lower, -2L, -1L), y, true);
            });

    private static int[] withMatrix(int[] batch, int rows, int cols) {
        int[] shape = Arrays.copyOf(batch, batch.length + 2);
        shape[batch.length] = rows;
        shape[batch.length + 1] = cols;
        return shape;
    }

    /**
     * The inverse of a tensor seen as a square matrix (torch.linalg.tensorinv): its first {@code ind}
     * dims flattened against the rest, inverted, and shaped {@code shape[ind:] + shape[:ind]}.
     */
    public static final OpOverload LINALG_TENSORINV = ComposedOps.define("linalg_tensorinv(Tensor self, int ind=2) -> Tensor",
            a -> {
                int ind = a.integer(1), n = a.tensor(0).dim();
                if (ind <= 0) throw new IllegalArgumentException("linalg.tensorinv: Expected a strictly positive integer for 'ind', but got " + ind);
                if (ind > n) throw new IllegalArgumentException("linalg.tensorinv: 'ind' (" + ind + ") is more than the tensor's " + n + " dims");
                int[] shape = a.tensor(0).shape();
                long rows = product(shape, 0, ind), columns = product(shape, ind, n);
                if (rows != columns) {
                    throw new IllegalArgumentException("linalg.tensorinv: Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got "
                            + columns + " != " + rows);
                }
            },
            (e, a) -> {
                int[] shape = e.meta(a[0]).shape();
                int ind = ((Number) a[1]).intValue(), n = (int) product(shape, ind, shape.length);
                int[] resultShape = new int[shape.length];
                System.arraycopy(shape, ind, resultShape, 0, shape.length - ind);
                System.arraycopy(shape, 0, resultShape, shape.length - ind, ind);
                return e.call(ShapeOps.RESHAPE, e.call(LINALG_INV, e.call(ShapeOps.RESHAPE, a[0], new int[] {n, n})), resultShape);
            });

    /**
     * The X with {@code tensordot(self, X, X.ndim) == other} (torch.linalg.tensorsolve): self's dims
     * in {@code dims} moved last, self flattened to a square matrix against other's size, solved.
     */
    public static final OpOverload LINALG_TENSORSOLVE = ComposedOps.define("linalg_tensorsolve(Tensor self, Tensor other, int[]? dims=None) -> Tensor",
            a -> {
                int[] shape = movedLast(a.tensor(0).shape(), a.optInts(2));
                int otherDim = a.tensor(1).dim();
                long result = product(shape, Math.min(otherDim, shape.length), shape.length), other = product(a.tensor(1).shape(), 0, otherDim);
                if (result != other) {
                    throw new IllegalArgumentException("linalg.tensorsolve: Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got "
                            + result + " != " + other);
                }
            },
            (e, a) -> {
                Object self = a[0];
                int ndim = e.meta(self).dim();
                int[] dims = a[2] == null ? null : Composites.toInts(a[2]);
                if (dims != null) {
                    int[] destination = new int[dims.length];
                    for (int i = 0; i < dims.length; i++) destination[i] = ndim - dims.length + i;
                    self = e.call(ShapeOps.MOVEDIM, self, dims, destination);
                }
                int[] shape = e.meta(self).shape();
                int otherDim = e.meta(a[1]).dim();
                int[] resultShape = Arrays.copyOfRange(shape, otherDim, shape.length);
                int n = (int) product(resultShape, 0, resultShape.length);
                Object solved = e.call(LINALG_SOLVE, e.call(ShapeOps.RESHAPE, self, new int[] {n, n}), e.call(ShapeOps.RESHAPE, a[1], new int[] {-1}), true);
                return e.call(ShapeOps.RESHAPE, solved, resultShape);
            });

    private static long product(int[] shape, int from, int to) {
        long p = 1;
        for (int i = from; i < to; i++) p *= shape[i];
        return p;
    }

    /** {@code shape} with the dims in {@code dims} (wrapped) moved to the end in their order, as movedim puts them. */
    private static int[] movedLast(int[] shape, int[] dims) {
        if (dims == null) return shape;
        int n = shape.length;
        boolean[] moved = new boolean[n];
        int[] out = new int[n];
        int k = 0;
        for (int d : dims) moved[Shapes.wrapDim("linalg.tensorsolve", d, n)] = true;
        for (int i = 0; i < n; i++) if (!moved[i]) out[k++] = shape[i];
        for (int d : dims) out[k++] = shape[Shapes.wrapDim("linalg.tensorsolve", d, n)];
        return out;
    }

    /**
     * torch.linalg.matrix_norm with a number: ATen's composite, the vector 1-norm down the first of
     * {@code dim} then the max (ord 1) or min (ord -1) across the second; inf and -inf are the same
     * on the swapped dims (the max/min row sum); 2 and -2 the largest and smallest singular value.
     */
    public static final OpOverload LINALG_MATRIX_NORM = ComposedOps.define(
            "linalg_matrix_norm(Tensor self, Scalar ord, int[] dim=[-2,-1], bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
            a -> {
                double ord = a.dbl(1);
                double abs = Math.abs(ord);
                if (abs != 2 && abs != 1 && abs != Double.POSITIVE_INFINITY) {
                    throw new IllegalArgumentException("linalg.matrix_norm: Order " + formatOrder(ord) + " not supported.");
                }
                matrixNormDims(a.tensor(0), a.ints(2));
            },
            (e, a) -> {
                double ord = ((Number) a[1]).doubleValue();
                boolean keepdim = (Boolean) a[3];
                int[] dim = matrixNormDims(new FakeTensor(e.meta(a[0])), toInts(a[2]));
                if (Math.abs(ord) == 2) {
                    Object s = singularValues(e, a[0], dim, a[4]);
                    return keepReduced(e, e.call(ord > 0 ? ReductionOps.AMAX : ReductionOps.AMIN, s, List.of(-1L), false), dim, keepdim);
                }
                if (Math.abs(ord) == Double.POSITIVE_INFINITY) dim = new int[] {dim[1], dim[0]};
                // without keepdim, the first reduction shifts a later second dim down by one
                int second = !keepdim && dim[0] < dim[1] ? dim[1] - 1 : dim[1];
                Object sums = e.call(DistanceOps.LINALG_VECTOR_NORM, a[0], 1L, List.of((long) dim[0]), keepdim, a[4]);
                return e.call(ord > 0 ? ReductionOps.AMAX : ReductionOps.AMIN, sums, List.of((long) second), keepdim);
            });

    /** torch.linalg.matrix_norm with 'fro' (the vector 2-norm over both dims) or 'nuc' (the sum of the singular values). */
    public static final OpOverload LINALG_MATRIX_NORM_STR = ComposedOps.define(
            "linalg_matrix_norm.str_ord(Tensor self, str ord='fro', int[] dim=[-2,-1], bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
            a -> {
                String ord = a.str(1);
                if (!ord.equals("fro") && !ord.equals("nuc")) throw new IllegalArgumentException("linalg.matrix_norm: Order " + ord + " not supported.");
                matrixNormDims(a.tensor(0), a.ints(2));
            },
            (e, a) -> {
                if (a[1].equals("fro")) return e.call(DistanceOps.LINALG_VECTOR_NORM, a[0], 2L, a[2], a[3], a[4]);
                int[] dim = matrixNormDims(new FakeTensor(e.meta(a[0])), toInts(a[2]));
                Object s = singularValues(e, a[0], dim, a[4]);
                return keepReduced(e, e.call(ReductionOps.SUM_DIM, s, new int[] {-1}, false, null), dim, (Boolean) a[3]);
            });

    /**
     * torch.linalg.norm with a number or None, ATen's composite: a matrix norm when ord is given and
     * the norm spans two dims ({@code dim} of length 2, or a 2-D input without dim); otherwise the
     * vector norm (ord 2 when None) over {@code dim}, or over all elements.
     */
    public static final OpOverload LINALG_NORM = ComposedOps.define(
            "linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
            a -> checkNormDims(a.tensor(0), a.optInts(2), a.get(1) != null),
            (e, a) -> {
                int dims = a[2] == null ? e.meta(a[0]).dim() : toInts(a[2]).length;
                if (a[1] != null && dims == 2) return e.call(LINALG_MATRIX_NORM, a[0], a[1], a[2] == null ? List.of(0L, 1L) : a[2], a[3], a[4]);
                return e.call(DistanceOps.LINALG_VECTOR_NORM, a[0], a[1] == null ? 2.0 : a[1], a[2], a[3], a[4]);
            });

    /** torch.linalg.norm with 'fro' or 'nuc': the matrix norm over {@code dim} (the two dims of a 2-D input without it). */
    public static final OpOverload LINALG_NORM_STR = ComposedOps.define(
            "linalg_norm.ord_str(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
            a -> checkNormDims(a.tensor(0), a.optInts(2), true),
            (e, a) -> e.call(LINALG_MATRIX_NORM_STR, a[0], a[1], a[2] == null ? List.of(0L, 1L) : a[2], a[3], a[4]));

    /** linalg.norm's checks of {@code dim} against the input's dims. */
    private static void checkNormDims(Tensor x, int[] dim, boolean ordGiven) {
        if (dim != null && dim.length != 1 && dim.length != 2) {
            throw new IllegalArgumentException("linalg.norm: If dim is specified, it must be of length 1 or 2. Got " + Shapes.format(dim));
        }
        if (dim == null && ordGiven && x.dim() != 1 && x.dim() != 2) {
            throw new IllegalArgumentException("linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got " + x.dim() + "D.");
        }
    }

    /** The singular values of the matrices spanning {@code dim} (moved last, as ATen's backshift permutation does), in {@code dtype} when given. */
    private static Object singularValues(OpEmitter e, Object a, int[] dim, Object dtype) {
        Object x = dtype == null ? a : e.call(ShapeOps.TO_COPY, a, dtype);
        Object moved = e.call(ShapeOps.MOVEDIM, x, new int[] {dim[0], dim[1]}, new int[] {-2, -1});
        return e.call(OrthogonalOps.LINALG_SVDVALS, moved, null);
    }

    /** A reduction over both {@code dim} with keepdim: size-1 dims put back where they were. */
    private static Object keepReduced(OpEmitter e, Object reduced, int[] dim, boolean keepdim) {
        if (!keepdim) return reduced;
        Object out = e.call(ShapeOps.UNSQUEEZE, reduced, (long) Math.min(dim[0], dim[1]));
        return e.call(ShapeOps.UNSQUEEZE, out, (long) Math.max(dim[0], dim[1]));
    }

    /** ATen's _linalg_matrix_norm_checks: A a (batch of) matrices of floating dtype, dim two different dims; returns them wrapped. */
    private static int[] matrixNormDims(Tensor a, int[] dim) {
        String op = "linalg.matrix_norm";
        if (a.dim() < 2) throw new IllegalArgumentException(op + ": The input tensor A must have at least 2 dimensions.");
        if (!a.dtype().isFloatingPoint()) {
            throw new IllegalArgumentException(op + ": Expected a floating point or complex tensor as input. Got " + a.dtype().scalarTypeName());
        }
        if (dim.length != 2) throw new IllegalArgumentException(op + ": dim must be a 2-tuple. Got " + Shapes.format(dim));
        int[] wrapped = {Shapes.wrapDim(op, dim[0], a.dim()), Shapes.wrapDim(op, dim[1], a.dim())};
        if (wrapped[0] == wrapped[1]) {
            throw new IllegalArgumentException(op + ": dims must be different. Got (" + wrapped[0] + ", " + wrapped[1] + ")");
        }
        return wrapped;
    }

    /** An int[] argument as a decomposition receives it (int[], long[] or a list of numbers). */
    private static int[] toInts(Object value) {
        if (value instanceof int[] ints) return ints;
        if (value instanceof long[] longs) return Arrays.stream(longs).mapToInt(Math::toIntExact).toArray();
        return ((List<?>) value).stream().mapToInt(x -> ((Number) x).intValue()).toArray();
    }

    /** An order as ATen prints a double: 3 as "3", 0.5 as "0.5", inf as "inf". */
    static String formatOrder(double ord) {
        if (Double.isInfinite(ord)) return ord > 0 ? "inf" : "-inf";
        return ord == Math.rint(ord) ? Long.toString((long) ord) : Double.toString(ord);
    }

    // ------------------------------------------------------------------ checks

    static Tensor checkSquare(String op, Tensor a) {
        if (!a.dtype().isFloatingPoint()) {
            throw new IllegalArgumentException(op + ": Expected a floating point or complex tensor as input. Got " + a.dtype().scalarTypeName());
        }
        if (a.dim() < 2) {
            throw new IllegalArgumentException(op + ": The input tensor A must have at least 2 dimensions.");
        }
        if (a.size(-2) != a.size(-1)) {
            throw new IllegalArgumentException(op + ": A must be batches of square matrices, but they are " + a.size(-2) + " by " + a.size(-1) + " matrices");
        }
        return a;
    }

    static int[] batchShape(Tensor a) { return Arrays.copyOf(a.shape(), a.dim() - 2); }

    /** ATen's linalg_solve_is_vector_rhs: B is a vector when 1-d, or when it is A's shape less the last dim. */
    static boolean isVectorCase(TensorMeta a, TensorMeta b) {
        if (b.dim() == 1) return true;
        int[] want = Arrays.copyOf(a.shape(), a.dim() - 1);
        return b.dim() == a.dim() - 1 && Arrays.equals(b.shape(), want);
    }

    static TensorMeta solveMeta(Tensor A, Tensor B, boolean left) {
        String op = "linalg.solve";
        checkSquare(op, A);
        if (A.dtype() != B.dtype()) {
            throw new IllegalArgumentException(op + ": Expected A and B to have the same dtype, but found A of type " + A.dtype().scalarTypeName()
                    + " and B of type " + B.dtype().scalarTypeName() + " instead");
        }
        boolean vector = isVectorCase(A.meta(), B.meta());
        if (!left) return solveRightMeta(op, A, B, vector);
        int n = A.size(-1);
        int rows = vector ? B.size(-1) : (B.dim() >= 2 ? B.size(-2) : -1);
        if (B.dim() == 0 || rows != n) {
            String bShape = vector ? B.size(-1) + "" : (B.dim() >= 2 ? B.size(-2) + "x" + B.size(-1) : Shapes.format(B.shape()));
            throw new IllegalArgumentException(op + ": Incompatible shapes of A and B for the equation " + (vector ? "Ax = b" : "AX = B")
                    + " (" + n + "x" + n + " and " + bShape + ")");
        }
        int[] aBatch = Arrays.copyOf(A.shape(), A.dim() - 2);
        int[] bBatch = vector ? Arrays.copyOf(B.shape(), B.dim() - 1) : Arrays.copyOf(B.shape(), B.dim() - 2);
        int[] batch = Shapes.broadcast(op, aBatch, bBatch);
        int[] shape = vector ? Arrays.copyOf(batch, batch.length + 1) : Arrays.copyOf(batch, batch.length + 2);
        if (vector) shape[batch.length] = n;
        else {
            shape[batch.length] = n;
            shape[batch.length + 1] = B.size(-1);
        }
        return TensorMeta.contiguous(A.dtype(), shape);
    }

    /** {@code X A = B}'s result: B's batch broadcast with A's, then B's {@code k x n}; a vector B is refused as ATen refuses it. */
    private static TensorMeta solveRightMeta(String op, Tensor A, Tensor B, boolean vector) {
        int n = A.size(-1);
        // ATen reads a vector B as the column B.unsqueeze(-1) and checks that shape first
        int rows = vector ? B.size(-1) : B.size(-2), columns = vector ? 1 : B.size(-1);
        if (columns != n) {
            throw new IllegalArgumentException(op + ": Incompatible shapes of A and B for the equation XA = B (" + n + "x" + n + " and " + rows + "x" + columns + ")");
        }
        if (vector) {
            throw new IllegalArgumentException(op + ": Vector broadcasting of the left hand side is not supported for left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)");
        }
        int[] batch = Shapes.broadcast(op, Arrays.copyOf(A.shape(), A.dim() - 2), Arrays.copyOf(B.shape(), B.dim() - 2));
        int[] shape = Arrays.copyOf(batch, batch.length + 2);
        shape[batch.length] = B.size(-2);
        shape[batch.length + 1] = n;
        return TensorMeta.contiguous(A.dtype(), shape);
    }

    // ------------------------------------------------------------------ kernels

    /**
     * linalg.solve's solution ({@code X A = B} as {@code Aᵀ Xᵀ = Bᵀ} when not {@code left}) and
     * LAPACK's info per matrix of the broadcast batch (int32); a singular A is refused under
     * {@code refuseAs} unless it is null (then its solution holds what the division by zero gives).
     */
    static List<Tensor> solve(Tensor A, Tensor B, boolean left, TensorMeta meta, String refuseAs) {
        if (left) return solveLeft(A, B, meta, refuseAs);
        int[] transposed = meta.shape().clone();
        transposed[meta.dim() - 2] = meta.shape()[meta.dim() - 1];
        transposed[meta.dim() - 1] = meta.shape()[meta.dim() - 2];
        List<Tensor> xt = solveLeft(A.transpose(-2, -1), B.transpose(-2, -1), TensorMeta.contiguous(meta.dtype(), transposed), refuseAs);
        return List.of(xt.get(0).transpose(-2, -1).contiguous(), xt.get(1));
    }

    private static Object inverseTransposed(Grad g) {
        return g.call(ShapeOps.TRANSPOSE, g.call(LINALG_INV, g.arg(0)), -2L, -1L);
    }

    private static List<Tensor> solveLeft(Tensor A, Tensor B, TensorMeta meta, String refuseAs) {
        boolean vector = isVectorCase(A.meta(), B.meta());
        int n = A.size(-1);
        int k = vector ? 1 : B.size(-1);
        int[] batch = Arrays.copyOf(meta.shape(), meta.dim() - (vector ? 1 : 2));
        int[] aShape = Arrays.copyOf(batch, batch.length + 2);
        aShape[batch.length] = n;
        aShape[batch.length + 1] = n;
        int[] bShape = Arrays.copyOf(batch, batch.length + 2);
        bShape[batch.length] = n;
        bShape[batch.length + 1] = k;
        Tensor a = A.expand(aShape).contiguous();
        Tensor b = (vector ? B.unsqueeze(-1) : B).expand(bShape).contiguous();
        Factors f = factor(a);
        double[] rhs = b.toDoubleArray();
        double[] column = new double[n];
        int[] info = new int[f.count];
        for (int m = 0; m < f.count; m++) {
            if (refuseAs != null) f.requireInvertible(m, refuseAs, null);
            info[m] = f.firstZero[m];
            for (int j = 0; j < k; j++) {
                for (int i = 0; i < n; i++) column[i] = rhs[m * n * k + i * k + j];
                f.solveInPlace(m, column);
                for (int i = 0; i < n; i++) rhs[m * n * k + i * k + j] = column[i];
            }
        }
        return List.of(result(rhs, meta), Tensor.of(info, batch));
    }

    /** {@code values} (float64, the meta's element order) as a tensor of the meta's dtype. */
    static Tensor result(double[] values, TensorMeta meta) {
        return Tensor.of(values, meta.shape()).to(meta.dtype());
    }

    static Factors factor(Tensor a) {
        int m = a.size(-2), n = a.size(-1);
        int count = m == 0 || n == 0 ? Shapes.numel(batchShape(a)) : a.numel() / (m * n);
        return new Factors(a.toDoubleArray(), m, n, count);
    }

    /**
     * The LU factors of each {@code m x n} matrix of a batch ({@code P A = L U}, L unit lower
     * {@code m x k}, U upper {@code k x n}, k = min(m, n)), in place as LAPACK's getrf leaves them,
     * with the (0-based) pivot rows. The one LU factorization of Ember's linear algebra.
     */
    static final class Factors {
        final double[] lu;
        /** Rows, columns (n is also the order of a square matrix) and matrices. */
        final int m, n, count;
        final int[] pivots;
        /** Per matrix, the first (1-based) zero diagonal element of U, or 0: LAPACK's info. */
        final int[] firstZero;
        final boolean[] oddSwaps;

        Factors(double[] lu, int m, int n, int count) {
            this.lu = lu;
            this.m = m;
            this.n = n;
            this.count = count;
            this.pivots = new int[count * Math.min(m, n)];
            this.firstZero = new int[count];
            this.oddSwaps = new boolean[count];
            for (int b = 0; b < count; b++) factorOne(b);
        }

        /** getrf's right-looking elimination with partial pivoting (the first row of the largest magnitude). */
        private void factorOne(int b) {
            int base = b * m * n, k = Math.min(m, n);
            for (int j = 0; j < k; j++) {
                int p = j;
                double best = Math.abs(lu[base + j * n + j]);
                for (int i = j + 1; i < m; i++) {
                    double v = Math.abs(lu[base + i * n + j]);
                    if (v > best) {
                        best = v;
                        p = i;
                    }
                }
                pivots[b * k + j] = p;
                if (p != j) {
                    oddSwaps[b] = !oddSwaps[b];
                    for (int c = 0; c < n; c++) {
                        double t = lu[base + j * n + c];
                        lu[base + j * n + c] = lu[base + p * n + c];
                        lu[base + p * n + c] = t;
                    }
                }
                double pivot = lu[base + j * n + j];
                if (pivot == 0) {
                    if (firstZero[b] == 0) firstZero[b] = j + 1;
                    continue;
                }
                for (int i = j + 1; i < m; i++) {
                    double l = lu[base + i * n + j] / pivot;
                    lu[base + i * n + j] = l;
                    if (l == 0) continue;
                    for (int c = j + 1; c < n; c++) lu[base + i * n + c] -= l * lu[base + j * n + c];
                }
            }
        }

        double det(int b) {
            double d = oddSwaps[b] ? -1 : 1;
            for (int i = 0; i < n; i++) d *= lu[b * n * n + i * n + i];
            return d;
        }

        /** {sign, log|det|}: sign 0 and -inf for a singular matrix, as ATen's. */
        double[] signAndLogAbsDet(int b) {
            double sign = oddSwaps[b] ? -1 : 1, logAbs = 0;
            for (int i = 0; i < n; i++) {
                double u = lu[b * n * n + i * n + i];
                if (u == 0) return new double[] {0, Double.NEGATIVE_INFINITY};
                if (u < 0) sign = -sign;
                logAbs += Math.log(Math.abs(u));
            }
            return new double[] {sign, logAbs};
        }

        void requireInvertible(int b, String op, String singular) {
            if (firstZero[b] == 0) return;
            String where = count > 1 ? "(Batch element " + b + "): " : "";
            if (singular == null) throw new IllegalArgumentException(op + ": " + where + "The solver failed because the input matrix is singular.");
            throw new IllegalArgumentException(op + ": " + where + "The diagonal element " + firstZero[b] + " is zero, " + singular);
        }

        /** {@code x ← A⁻¹ x} for matrix {@code b}: the row swaps, then L and U by substitution. */
        void solveInPlace(int b, double[] x) {
            int base = b * n * n;
            for (int j = 0; j < n; j++) {
                int p = pivots[b * n + j];
                if (p != j) {
                    double t = x[j];
                    x[j] = x[p];
                    x[p] = t;
                }
            }
            for (int i = 0; i < n; i++) {
                double s = x[i];
                for (int c = 0; c < i; c++) s -= lu[base + i * n + c] * x[c];
                x[i] = s;
            }
            for (int i = n - 1; i >= 0; i--) {
                double s = x[i];
                for (int c = i + 1; c < n; c++) s -= lu[base + i * n + c] * x[c];
                x[i] = s / lu[base + i * n + i];
            }
        }
    }
}
