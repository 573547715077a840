package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * torch.linalg's LU family, triangular solves and the {@code _ex} forms of inv, cholesky and solve.
 * The factorizations are {@link LuOps}'s (one LU with partial pivoting, one Cholesky), rounded once
 * to the input's dtype. lu_factor_ex, lu_unpack and solve_triangular are kernels with
 * derivatives.yaml's formulas (linalg_lu_backward, lu_unpack_backward,
 * linalg_solve_triangular_backward); linalg_lu, lu_solve, triangular_solve and cholesky_inverse are
 * composed of them, so their gradients follow. CPU ATen has no LU without pivoting, and neither
 * has Ember: {@code pivot=False} is refused with ATen's words.
 */
public final class LinalgLuOps {
    private LinalgLuOps() {}

    // ------------------------------------------------------------------ LU

    /** A = P L U packed as LAPACK's getrf leaves it, with its 1-based pivots (int32) and info (int32: the first zero of U's diagonal, 0 for none). */
    public static final OpOverload LINALG_LU_FACTOR_EX = OpOverload.define(
                    "linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False) -> (Tensor LU, Tensor pivots, Tensor info)")
            .meta(a -> luFactorMeta("torch.lu_factor", a.tensor(0), a.bool(1)))
            .kernel((a, m) -> luFactor(a.tensor(0), (List<?>) m, a.bool(2) ? "torch.linalg.lu_factor_ex" : null))
            .derivative(LinalgLuOps::luFactorBackward)
            .nonDifferentiableOutputs(1, 2)
            .register();

    /** linalg_lu_factor_ex without info: a matrix with a zero on U's diagonal is refused, as ATen refuses it. */
    public static final OpOverload LINALG_LU_FACTOR = OpOverload.define("linalg_lu_factor(Tensor A, *, bool pivot=True) -> (Tensor LU, Tensor pivots)")
            .meta(a -> luFactorMeta("torch.lu_factor", a.tensor(0), a.bool(1)).subList(0, 2))
            .kernel((a, m) -> luFactor(a.tensor(0), (List<?>) m, "torch.linalg.lu_factor").subList(0, 2))
            .derivative(LinalgLuOps::luFactorBackward)
            .nonDifferentiableOutputs(1)
            .register();

    /**
     * P, L, U from lu_factor's packed LU and pivots: P {@code m x m} (empty without
     * {@code unpack_pivots}), L unit lower {@code m x k}, U upper {@code k x n} (both empty without
     * {@code unpack_data}), in LU's dtype.
     */
    public static final OpOverload LU_UNPACK = OpOverload.define(
                    "lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, bool unpack_pivots=True) -> (Tensor P, Tensor L, Tensor U)")
            .meta(a -> luUnpackMeta(a.tensor(0), a.tensor(1), a.bool(2), a.bool(3)))
            .kernel((a, m) -> luUnpack(a.tensor(0), a.tensor(1), a.bool(2), a.bool(3), (List<?>) m))
            .derivative(LinalgLuOps::luUnpackBackward)
            .nonDifferentiableOutputs(0)
            .register();

    /** {@code A = P L U} (torch.linalg.lu): lu_factor_ex, then lu_unpack. */
    public static final OpOverload LINALG_LU = ComposedOps.define("linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)",
            a -> luFactorMeta("linalg.lu", a.tensor(0), a.bool(1)),
            (e, a) -> {
                List<?> factors = (List<?>) e.call(LINALG_LU_FACTOR_EX, a[0], a[1], false);
                return e.call(LU_UNPACK, factors.get(0), factors.get(1), true, a[1]);
            });

    /**
     * X with {@code A X = B} from A's LU factorization ({@code X A = B} without {@code left}; Aᵀ
     * with {@code adjoint}), B's batch broadcast with LU's: the permutation and two triangular
     * solves, as LAPACK's getrs does.
     */
    public static final OpOverload LINALG_LU_SOLVE = ComposedOps.define(
            "linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False) -> Tensor",
            a -> checkLuSolve(a.tensor(0), a.tensor(1), a.tensor(2), a.bool(3)),
            (e, a) -> luSolve(e, a[0], a[1], a[2], (Boolean) a[3], (Boolean) a[4]));

    /** torch.lu_solve(b, LU_data, LU_pivots), the older spelling of linalg_lu_solve(LU_data, LU_pivots, b). */
    public static final OpOverload LU_SOLVE = ComposedOps.define("lu_solve(Tensor self, Tensor LU_data, Tensor LU_pivots) -> Tensor",
            a -> checkLuSolve(a.tensor(1), a.tensor(2), a.tensor(0), true),
            (e, a) -> e.call(LINALG_LU_SOLVE, a[1], a[2], a[0], true, false));

    // ------------------------------------------------------------------ triangular solves

    /**
     * X with {@code A X = B} (or {@code X A = B} without {@code left}) for A triangular: only its
     * {@code upper} or lower triangle is read, its diagonal taken as ones with {@code unitriangular};
     * batch dims broadcast. Substitution in float64, rounded once; a zero on the diagonal gives the
     * infinities and NaNs the division gives, as LAPACK's trsm.
     */
    public static final OpOverload LINALG_SOLVE_TRIANGULAR = OpOverload.define(
                    "linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, bool unitriangular=False) -> Tensor")
            .meta(a -> solveTriangularMeta(a.tensor(0), a.tensor(1), a.bool(3)))
            .kernel((a, m) -> solveTriangular(a.tensor(0), a.tensor(1), a.bool(2), a.bool(3), a.bool(4), (TensorMeta) m))
            .derivative(LinalgLuOps::solveTriangularBackward)
            .register();

    /**
     * torch.triangular_solve(b, A, upper, transpose, unitriangular): X with {@code op(A) X = b}
     * ({@code op(A) = Aᵀ} with {@code transpose}), and A broadcast to the batch, cloned.
     */
    public static final OpOverload TRIANGULAR_SOLVE = ComposedOps.define(
            "triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, bool unitriangular=False) -> (Tensor solution, Tensor cloned_coefficient)",
            a -> checkTriangularSolve(a.tensor(0), a.tensor(1)),
            (e, a) -> {
                TensorMeta b = e.meta(a[0]), A = e.meta(a[1]);
                int n = A.shape()[A.dim() - 1];
                int[] batch = Shapes.broadcast("triangular_solve", Arrays.copyOf(A.shape(), A.dim() - 2), Arrays.copyOf(b.shape(), b.dim() - 2));
                int[] aShape = Arrays.copyOf(batch, batch.length + 2);
                aShape[batch.length] = n;
                aShape[batch.length + 1] = n;
                Object coefficient = e.call(ShapeOps.EXPAND, a[1], aShape, false);
                boolean upper = (Boolean) a[2], transpose = (Boolean) a[3];
                Object op = transpose ? e.call(ShapeOps.TRANSPOSE, coefficient, -2L, -1L) : coefficient;
                Object solution = e.call(LINALG_SOLVE_TRIANGULAR, op, a[0], transpose != upper, true, a[4]);
                return List.of(solution, e.call(ShapeOps.CLONE, coefficient, null));
            });

    // ------------------------------------------------------------------ the _ex forms

    /** torch.linalg.inv_ex: the inverse and LAPACK's info (int32); a singular matrix is refused only with {@code check_errors}. */
    public static final OpOverload LINALG_INV_EX = OpOverload.define("linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)")
            .meta(a -> {
                Tensor A = LuOps.checkSquare("linalg.inv", a.tensor(0));
                return List.of(TensorMeta.contiguous(A.dtype(), A.shape()), TensorMeta.contiguous(DType.INT32, LuOps.batchShape(A)));
            })
            .kernel((a, m) -> LuOps.invert(a.tensor(0), (TensorMeta) ((List<?>) m).get(0), a.bool(1) ? "linalg.inv_ex" : null))
            .derivative(LuOps::inverseBackward)
            .nonDifferentiableOutputs(1)
            .register();

    /** torch.linalg.cholesky_ex: the factor and LAPACK's info (int32); a matrix that is not positive-definite is refused only with {@code check_errors}. */
    public static final OpOverload LINALG_CHOLESKY_EX = OpOverload.define(
                    "linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> (Tensor L, Tensor info)")
            .meta(a -> {
                Tensor A = LuOps.checkSquare("linalg.cholesky", a.tensor(0));
                return List.of(TensorMeta.contiguous(A.dtype(), A.shape()), TensorMeta.contiguous(DType.INT32, LuOps.batchShape(A)));
            })
            .kernel((a, m) -> LuOps.choleskyFactor(a.tensor(0), a.bool(1), a.bool(2) ? "linalg.cholesky_ex" : null))
            .derivative(LuOps::choleskyBackward)
            .nonDifferentiableOutputs(1)
            .register();

    /** torch.linalg.solve_ex: linalg.solve's solution and LAPACK's info (int32) per matrix of A. */
    public static final OpOverload LINALG_SOLVE_EX = OpOverload.define(
                    "linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> (Tensor result, Tensor info)")
            .meta(a -> List.of(LuOps.solveMeta(a.tensor(0), a.tensor(1), a.bool(2)), TensorMeta.contiguous(DType.INT32, LuOps.batchShape(a.tensor(0)))))
            .kernel((a, m) -> {
                Tensor A = a.tensor(0);
                Tensor x = LuOps.solve(A, a.tensor(1), a.bool(2), (TensorMeta) ((List<?>) m).get(0), a.bool(3) ? "torch.linalg.solve_ex" : null).get(0);
                // info is A's own (its batch, not the broadcast one): ATen factors Aᵀ, the copy-free form of a row-major A
                return List.of(x, Tensor.of(LuOps.factor(A.transpose(-2, -1).contiguous()).firstZero, LuOps.batchShape(A)));
            })
            .derivative(LuOps::solveBackward)
            .nonDifferentiableOutputs(1)
            .register();

    /**
     * {@code (L Lᵀ)⁻¹} from a Cholesky factor L ({@code (Uᵀ U)⁻¹} with {@code upper}), reading its
     * triangle only: two triangular solves against the identity. The gradient is derivatives.yaml's
     * cholesky_inverse_backward, {@code −(A⁻¹ (g + gᵀ) A⁻¹) L} ({@code −U (…)} with upper), which
     * treats the whole of L as the factor, as ATen's does.
     */
    public static final OpOverload CHOLESKY_INVERSE = ComposedOps.composed("cholesky_inverse(Tensor self, bool upper=False) -> Tensor",
                    a -> {
                        Tensor L = a.tensor(0);
                        if (L.dim() < 2) throw new IllegalArgumentException("cholesky_inverse: The input tensor A must have at least 2 dimensions.");
                        if (L.size(-1) != L.size(-2)) {
                            throw new IllegalArgumentException("cholesky_inverse: A must be batches of square matrices, but they are " + L.size(-2) + " by " + L.size(-1) + " matrices");
                        }
                        notImplementedUnlessFloating("cholesky_inverse_out_cpu", L.dtype());
                        return TensorMeta.contiguous(L.dtype(), L.shape());
                    },
                    (e, a) -> {
                        TensorMeta meta = e.meta(a[0]);
                        boolean upper = (Boolean) a[1];
                        Object eye = e.call(ShapeOps.EXPAND, e.call(CreationOps.EYE, (long) meta.shape()[meta.dim() - 1], meta.dtype()), meta.shape(), false);
                        Object inverse = e.call(LINALG_SOLVE_TRIANGULAR, a[0], eye, upper, true, false);
                        Object inverseT = e.call(ShapeOps.TRANSPOSE, inverse, -2L, -1L);
                        return upper ? e.call(LinalgOps.MATMUL, inverse, inverseT) : e.call(LinalgOps.MATMUL, inverseT, inverse);
                    })
            .derivative(g -> {
                Object common = g.add(g.grad(), mT(g, g.grad()));
                common = mm(g, g.result(), mm(g, common, g.result()));
                boolean upper = (Boolean) g.value(1);
                return new Object[] {g.neg(upper ? mm(g, g.arg(0), common) : mm(g, common, g.arg(0))), null};
            })
            .register();

    // ------------------------------------------------------------------ out= (out must have the result's dtype and shape)

    public static final OpOverload LINALG_SOLVE_TRIANGULAR_OUT = OutForms.of(
            "linalg_solve_triangular.out(Tensor self, Tensor B, *, bool upper, bool left=True, bool unitriangular=False, Tensor(a!) out) -> Tensor(a!)",
            LINALG_SOLVE_TRIANGULAR);
    public static final OpOverload LINALG_LU_SOLVE_OUT = OutForms.of(
            "linalg_lu_solve.out(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False, Tensor(a!) out) -> Tensor(a!)", LINALG_LU_SOLVE);
    public static final OpOverload LU_SOLVE_OUT = OutForms.of("lu_solve.out(Tensor self, Tensor LU_data, Tensor LU_pivots, *, Tensor(a!) out) -> Tensor(a!)", LU_SOLVE);
    public static final OpOverload CHOLESKY_INVERSE_OUT = OutForms.of("cholesky_inverse.out(Tensor self, bool upper=False, *, Tensor(a!) out) -> Tensor(a!)",
            CHOLESKY_INVERSE);

    // ------------------------------------------------------------------ checks and metadata

    private static void notImplementedUnlessFloating(String kernel, DType dtype) {
        if (!dtype.isFloatingPoint()) throw new IllegalArgumentException("\"" + kernel + "\" not implemented for '" + dtype.scalarTypeName() + "'");
    }

    private static List<TensorMeta> luFactorMeta(String op, Tensor A, boolean pivot) {
        if (A.dim() < 2) throw new IllegalArgumentException(op + ": Expected tensor with 2 or more dimensions. Got size: " + Shapes.format(A.shape()) + " instead");
        notImplementedUnlessFloating("lu_cpu", A.dtype());
        if (!pivot) throw new IllegalArgumentException("linalg.lu_factor: LU without pivoting is not implemented on the CPU");
        int[] batch = LuOps.batchShape(A);
        int[] pivots = Arrays.copyOf(batch, batch.length + 1);
        pivots[batch.length] = Math.min(A.size(-2), A.size(-1));
        return List.of(TensorMeta.contiguous(A.dtype(), A.shape()), TensorMeta.contiguous(DType.INT32, pivots), TensorMeta.contiguous(DType.INT32, batch));
    }

    private static List<TensorMeta> luUnpackMeta(Tensor LU, Tensor pivots, boolean unpackData, boolean unpackPivots) {
        String op = "torch.lu_unpack";
        if (LU.dim() < 2) throw new IllegalArgumentException(op + ": Expected tensor with 2 or more dimensions. Got size: " + Shapes.format(LU.shape()) + " instead");
        int m = LU.size(-2), n = LU.size(-1), k = Math.min(m, n);
        int[] batch = LuOps.batchShape(LU);
        if (unpackPivots) {
            if (pivots.dtype() != DType.INT32) {
                throw new IllegalArgumentException(op + ": LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                        + "Note: this function is intended to be used with the output produced by torch.linalg.lu_factor");
            }
            int[] want = Arrays.copyOf(batch, batch.length + 1);
            want[batch.length] = k;
            if (!Arrays.equals(pivots.shape(), want)) {
                // ATen reads past a pivots tensor of the wrong shape; Ember says so
                throw new IllegalArgumentException(op + ": Expected LU_pivots of shape " + Shapes.format(want) + " (LU's batch and min(m, n)), but got " + Shapes.format(pivots.shape()));
            }
        }
        TensorMeta empty = TensorMeta.contiguous(LU.dtype(), new int[] {0});
        return List.of(unpackPivots ? TensorMeta.contiguous(LU.dtype(), matrix(batch, m, m)) : empty,
                unpackData ? TensorMeta.contiguous(LU.dtype(), matrix(batch, m, k)) : empty,
                unpackData ? TensorMeta.contiguous(LU.dtype(), matrix(batch, k, n)) : empty);
    }

    /** ATen's linalg_lu_solve meta checks, in its order. */
    private static void checkLuSolve(Tensor LU, Tensor pivots, Tensor B, boolean left) {
        if (!LU.dtype().isFloatingPoint()) {
            throw new IllegalArgumentException("torch.linalg.lu_solve: Expected a floating point or complex tensor as input. Got " + LU.dtype().scalarTypeName());
        }
        String op = "linalg.lu_solve";
        if (LU.dtype() != B.dtype()) {
            throw new IllegalArgumentException(op + ": Expected LU and B to have the same dtype, but found LU of type " + LU.dtype().scalarTypeName()
                    + " and B of type " + B.dtype().scalarTypeName() + " instead");
        }
        if (pivots.dtype() != DType.INT32) throw new IllegalArgumentException(op + ": pivots should be a Tensor of scalar type torch.int32");
        checkSquareMatrices("torch.linalg.lu_solve", LU);
        checkInputsSolver(op, LU, B, left);
        if (pivots.dim() == 0 || LU.size(-1) != pivots.size(-1)) {
            throw new IllegalArgumentException(op + ": Number of pivots per batch should be same as the dimension of the matrix");
        }
        if (!Arrays.equals(Arrays.copyOf(LU.shape(), LU.dim() - 1), pivots.shape())) {
            throw new IllegalArgumentException(op + ": Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with shape " + Shapes.format(pivots.shape()) + " instead");
        }
        Shapes.broadcast(op, LuOps.batchShape(LU), LuOps.batchShape(B));
    }

    /** ATen's squareCheckInputs: at least 2 dims, square. */
    private static void checkSquareMatrices(String op, Tensor A) {
        if (A.dim() < 2) throw new IllegalArgumentException(op + ": The input tensor A must have at least 2 dimensions.");
        if (A.size(-1) != A.size(-2)) {
            throw new IllegalArgumentException(op + ": A must be batches of square matrices, but they are " + A.size(-2) + " by " + A.size(-1) + " matrices");
        }
    }

    /** ATen's checkInputsSolver: A square, B a (batch of) matrices whose rows (columns without {@code left}) match A's order. */
    private static void checkInputsSolver(String op, Tensor A, Tensor B, boolean left) {
        checkSquareMatrices(op, A);
        if (B.dim() < 2) throw new IllegalArgumentException(op + ": The input tensor B must have at least 2 dimensions.");
        boolean fits = left ? A.size(-2) == B.size(-2) : A.size(-1) == B.size(-1);
        if (!fits) {
            throw new IllegalArgumentException(op + ": Incompatible shapes of A and B for the equation " + (left ? "AX = B" : "XA = B")
                    + " (" + A.size(-2) + "x" + A.size(-1) + " and " + B.size(-2) + "x" + B.size(-1) + ")");
        }
    }

    private static TensorMeta solveTriangularMeta(Tensor A, Tensor B, boolean left) {
        String op = "linalg.solve_triangular";
        checkInputsSolver(op, A, B, left);
        DType dtype = TypePromotion.resultType(A, B);
        notImplementedUnlessFloating("triangular_solve_cpu", dtype);
        int[] batch = Shapes.broadcast(op, LuOps.batchShape(A), LuOps.batchShape(B));
        return TensorMeta.contiguous(dtype, matrix(batch, B.size(-2), B.size(-1)));
    }

    /** ATen's triangular_solve meta checks, in its order. */
    private static void checkTriangularSolve(Tensor b, Tensor A) {
        String op = "torch.triangular_solve";
        if (b.dim() < 2) throw new IllegalArgumentException(op + ": Expected b to have at least 2 dimensions, but it has " + b.dim() + " dimensions instead");
        if (A.dim() < 2) throw new IllegalArgumentException(op + ": Expected A to have at least 2 dimensions, but it has " + A.dim() + " dimensions instead");
        if (b.dtype() != A.dtype()) {
            throw new IllegalArgumentException("Expected b and A to have the same dtype, but found b of type " + b.dtype().scalarTypeName()
                    + " and A of type " + A.dtype().scalarTypeName() + " instead.");
        }
        if (A.size(-1) != A.size(-2)) {
            throw new IllegalArgumentException("A must be batches of square matrices, but they are " + A.size(-2) + " by " + A.size(-1) + " matrices");
        }
        if (A.size(-1) != b.size(-2)) {
            throw new IllegalArgumentException("Incompatible matrix sizes for triangular_solve: each A matrix is " + A.size(-1) + " by " + A.size(-1)
                    + " but each b matrix is " + b.size(-2) + " by " + b.size(-1));
        }
        notImplementedUnlessFloating("triangular_solve_cpu", A.dtype());
        Shapes.broadcast("triangular_solve", LuOps.batchShape(A), LuOps.batchShape(b));
    }

    private static int[] matrix(int[] batch, int rows, int columns) {
        int[] shape = Arrays.copyOf(batch, batch.length + 2);
        shape[batch.length] = rows;
        shape[batch.length + 1] = columns;
        return shape;
    }

    // ------------------------------------------------------------------ kernels

    private static List<Tensor> luFactor(Tensor A, List<?> metas, String refuseAs) {
        LuOps.Factors f = LuOps.factor(A);
        int k = Math.min(f.m, f.n);
        if (refuseAs != null) {
            for (int b = 0; b < f.count; b++) {
                int zero = f.firstZero[b];
                if (zero == 0) continue;
                throw new IllegalArgumentException(refuseAs + (A.dim() > 2 ? ": (Batch element " + b + ")" : "") + ": U[" + zero + "," + zero
                        + "] is zero and using it on lu_solve would result in a division by zero. If you still want to perform the factorization, consider calling "
                        + "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)");
            }
        }
        int[] pivots = new int[f.pivots.length];
        for (int i = 0; i < pivots.length; i++) pivots[i] = f.pivots[i] + 1;
        Tensor lu = LuOps.result(f.lu, (TensorMeta) metas.get(0));
        return List.of(lu, Tensor.of(pivots, ((TensorMeta) metas.get(1)).shape()), Tensor.of(f.firstZero.clone(), LuOps.batchShape(A)));
    }

    private static List<Tensor> luUnpack(Tensor LU, Tensor pivotsTensor, boolean unpackData, boolean unpackPivots, List<?> metas) {
        int m = LU.size(-2), n = LU.size(-1), k = Math.min(m, n);
        int count = Shapes.numel(LuOps.batchShape(LU));
        List<Tensor> out = new ArrayList<>(3);
        if (unpackPivots) {
            int[] pivots = pivotsTensor.contiguous().to(DType.INT32).toIntArray();
            double[] p = new double[count * m * m];
            int[] permutation = new int[m];
            for (int b = 0; b < count; b++) {
                for (int i = 0; i < m; i++) permutation[i] = i;
                // the row swaps applied in order give Pᵀ's rows (Pᵀ A = L U); P[perm[i], i] = 1
                for (int i = 0; i < k; i++) {
                    int target = pivots[b * k + i] - 1;
                    if (target < 0 || target >= m) {
                        throw new IllegalArgumentException("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly pass the result of lu_factor?");
                    }
                    int t = permutation[i];
                    permutation[i] = permutation[target];
                    permutation[target] = t;
                }
                for (int i = 0; i < m; i++) p[b * m * m + permutation[i] * m + i] = 1;
            }
            out.add(LuOps.result(p, (TensorMeta) metas.get(0)));
        } else {
            out.add(Tensor.allocate((TensorMeta) metas.get(0)));
        }
        if (!unpackData) {
            out.add(Tensor.allocate((TensorMeta) metas.get(1)));
            out.add(Tensor.allocate((TensorMeta) metas.get(2)));
            return out;
        }
        double[] lu = LU.contiguous().toDoubleArray();
        double[] l = new double[count * m * k], u = new double[count * k * n];
        for (int b = 0; b < count; b++) {
            int base = b * m * n;
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < k; j++) l[b * m * k + i * k + j] = i > j ? lu[base + i * n + j] : i == j ? 1 : 0;
            }
            for (int i = 0; i < k; i++) {
                for (int j = i; j < n; j++) u[b * k * n + i * n + j] = lu[base + i * n + j];
            }
        }
        out.add(LuOps.result(l, (TensorMeta) metas.get(1)));
        out.add(LuOps.result(u, (TensorMeta) metas.get(2)));
        return out;
    }

    /** The four cases of getrs on P, L, U: {@code A = P L U}, {@code Aᵀ = Uᵀ Lᵀ Pᵀ}. */
    private static Object luSolve(OpEmitter e, Object LU, Object pivots, Object B, boolean left, boolean adjoint) {
        List<?> plu = (List<?>) e.call(LU_UNPACK, LU, pivots, true, true);
        Object P = plu.get(0), L = plu.get(1), U = plu.get(2);
        Object Pt = e.call(ShapeOps.TRANSPOSE, P, -2L, -1L);
        if (left && !adjoint) {
            Object y = e.call(LINALG_SOLVE_TRIANGULAR, L, e.call(LinalgOps.MATMUL, Pt, B), false, true, true);
            return e.call(LINALG_SOLVE_TRIANGULAR, U, y, true, true, false);
        }
        if (left) {
            Object y = e.call(LINALG_SOLVE_TRIANGULAR, e.call(ShapeOps.TRANSPOSE, U, -2L, -1L), B, false, true, false);
            y = e.call(LINALG_SOLVE_TRIANGULAR, e.call(ShapeOps.TRANSPOSE, L, -2L, -1L), y, true, true, true);
            return e.call(LinalgOps.MATMUL, P, y);
        }
        if (!adjoint) {
            Object y = e.call(LINALG_SOLVE_TRIANGULAR, U, B, true, false, false);
            y = e.call(LINALG_SOLVE_TRIANGULAR, L, y, false, false, true);
            return e.call(LinalgOps.MATMUL, y, Pt);
        }
        Object y = e.call(LINALG_SOLVE_TRIANGULAR, e.call(ShapeOps.TRANSPOSE, L, -2L, -1L), e.call(LinalgOps.MATMUL, B, P), true, false, true);
        return e.call(LINALG_SOLVE_TRIANGULAR, e.call(ShapeOps.TRANSPOSE, U, -2L, -1L), y, false, false, false);
    }

    private static Tensor solveTriangular(Tensor A, Tensor B, boolean upper, boolean left, boolean unit, TensorMeta meta) {
        int n = A.size(-1);
        int[] batch = Arrays.copyOf(meta.shape(), meta.dim() - 2);
        int rows = meta.shape()[meta.dim() - 2], columns = meta.shape()[meta.dim() - 1];
        // X A = B is Aᵀ Xᵀ = Bᵀ, Aᵀ's triangle the other one
        Tensor a = A.expand(matrix(batch, n, n)), b = B.expand(meta.shape());
        if (!left) {
            a = a.transpose(-2, -1);
            b = b.transpose(-2, -1);
            upper = !upper;
        }
        double[] as = a.contiguous().toDoubleArray(), x = b.contiguous().toDoubleArray();
        int k = left ? columns : rows, count = Shapes.numel(batch);
        for (int m = 0; m < count; m++) {
            int aBase = m * n * n, xBase = m * n * k;
            for (int step = 0; step < n; step++) {
                int i = upper ? n - 1 - step : step;
                for (int c = 0; c < k; c++) {
                    double s = x[xBase + i * k + c];
                    if (upper) for (int p = i + 1; p < n; p++) s -= as[aBase + i * n + p] * x[xBase + p * k + c];
                    else for (int p = 0; p < i; p++) s -= as[aBase + i * n + p] * x[xBase + p * k + c];
                    x[xBase + i * k + c] = unit ? s : s / as[aBase + i * n + i];
                }
            }
        }
        if (left) return LuOps.result(x, meta);
        Tensor xt = LuOps.result(x, TensorMeta.contiguous(meta.dtype(), matrix(batch, columns, rows)));
        return xt.transpose(-2, -1).contiguous();
    }

    // ------------------------------------------------------------------ derivatives

    private static Object mT(Grad g, Object x) { return g.call(ShapeOps.TRANSPOSE, x, -2L, -1L); }

    private static Object mm(Grad g, Object x, Object y) { return g.call(LinalgOps.MATMUL, x, y); }

    private static Object tril(Grad g, Object x, long diagonal) { return g.call(ShapeOps.TRIL, x, diagonal); }

    private static Object triu(Grad g, Object x, long diagonal) { return g.call(ShapeOps.TRIU, x, diagonal); }

    private static Object narrow(Grad g, Object x, long dim, long start, long length) { return g.call(ShapeOps.NARROW, x, dim, start, length); }

    private static Object solveTri(Grad g, Object A, Object B, boolean upper, boolean left, boolean unit) {
        return g.call(LINALG_SOLVE_TRIANGULAR, A, B, upper, left, unit);
    }

    /** derivatives.yaml's linalg_solve_triangular_backward: {@code gB = op(A)⁻ᴴ g}, {@code gA = −gB Xᴴ} (left) or {@code −Xᴴ gB}, cut to A's triangle. */
    private static Object[] solveTriangularBackward(Grad g) {
        boolean upper = (Boolean) g.value(2), left = (Boolean) g.value(3), unit = (Boolean) g.value(4);
        Object gB = solveTri(g, mT(g, g.arg(0)), g.grad(), !upper, left, unit);
        Object gA = null;
        if (g.needs(0)) {
            Object xT = mT(g, g.result());
            gA = g.neg(left ? mm(g, gB, xT) : mm(g, xT, gB));
            gA = upper ? triu(g, gA, unit ? 1 : 0) : tril(g, gA, unit ? -1 : 0);
        }
        return new Object[] {gA, g.needs(1) ? gB : null, null, null, null};
    }

    /** derivatives.yaml's lu_factor_ex_backward: the packed gradient split into L's and U's, then linalg_lu_backward. */
    private static Object[] luFactorBackward(Grad g) {
        TensorMeta lu = g.resultMeta(0);
        int m = lu.shape()[lu.dim() - 2], n = lu.shape()[lu.dim() - 1], k = Math.min(m, n);
        boolean pivot = (Boolean) g.value(1);
        List<?> plu = (List<?>) g.call(LU_UNPACK, g.result(0), g.result(1), true, pivot);
        Object gL = narrow(g, g.grad(0), -1L, 0L, k), gU = narrow(g, g.grad(0), -2L, 0L, k);
        return new Object[] {luBackward(g, gL, gU, plu.get(0), plu.get(1), plu.get(2), pivot, m, n), null, null};
    }

    /** FunctionsManual's linalg_lu_backward for square, wide (m < n) and tall (m > n) A. */
    private static Object luBackward(Grad g, Object gL, Object gU, Object P, Object L, Object U, boolean pivot, int m, int n) {
        int k = Math.min(m, n);
        Object gA;
        if (m == n) {
            // P L⁻ᴴ [Lᴴ gL ∘ 1_L + gU Uᴴ ∘ 1_U] U⁻ᴴ
            gA = g.add(tril(g, mm(g, mT(g, L), gL), -1), triu(g, mm(g, gU, mT(g, U)), 0));
            gA = solveTri(g, mT(g, U), gA, false, false, false);
            gA = solveTri(g, mT(g, L), gA, true, true, true);
        } else if (m < n) {
            Object u1 = narrow(g, U, -1L, 0L, k);
            gA = g.sub(mm(g, mT(g, L), gL), mm(g, triu(g, gU, 0), mT(g, U)));
            gA = solveTri(g, mT(g, u1), tril(g, gA, -1), false, false, false);
            gA = g.call(ShapeOps.CAT, List.of(g.add(gA, triu(g, narrow(g, gU, -1L, 0L, k), 0)), narrow(g, gU, -1L, k, n - k)), -1L);
            gA = solveTri(g, mT(g, L), gA, true, true, true);
        } else {
            Object l1 = narrow(g, L, -2L, 0L, k);
            gA = g.sub(mm(g, gU, mT(g, U)), mm(g, mT(g, L), tril(g, gL, -1)));
            gA = solveTri(g, mT(g, l1), triu(g, gA, 0), true, true, true);
            gA = g.call(ShapeOps.CAT, List.of(g.add(gA, tril(g, narrow(g, gL, -2L, 0L, k), -1)), narrow(g, gL, -2L, k, m - k)), -2L);
            gA = solveTri(g, mT(g, U), gA, false, false, false);
        }
        return pivot ? mm(g, P, gA) : gA;
    }

    /** derivatives.yaml's lu_unpack_backward: L's strict lower triangle and U's upper one, each padded to LU's shape. */
    private static Object[] luUnpackBackward(Grad g) {
        if (!(Boolean) g.value(2)) return new Object[] {null, null, null, null};
        TensorMeta lu = g.argMeta(0);
        int m = lu.shape()[lu.dim() - 2], n = lu.shape()[lu.dim() - 1], k = Math.min(m, n);
        Object lower = tril(g, g.grad(1), -1), upper = triu(g, g.grad(2), 0);
        if (n > k) lower = g.call(NnOps.CONSTANT_PAD_ND, lower, new int[] {0, n - k}, 0.0);
        if (m > k) upper = g.call(NnOps.CONSTANT_PAD_ND, upper, new int[] {0, 0, 0, m - k}, 0.0);
        return new Object[] {g.add(lower, upper), null, null, null};
    }
}
