package dev.ember.tensor;

import dev.ember.ops.DistanceOps;
import dev.ember.ops.LinalgLuOps;
import dev.ember.ops.LuOps;
import dev.ember.ops.OrthogonalOps;
import dev.ember.ops.OutTuples;

import java.util.Arrays;
import java.util.List;

/**
 * torch.linalg's names for Ember's linear-algebra ops: each method is the op of the same name
 * (snake_case to camelCase), on the last two dims as matrices, batched over the leading ones.
 */
public final class Linalg {
    private Linalg() {}

    /** torch.linalg.det. */
    public static Tensor det(Tensor a) { return LuOps.LINALG_DET.callTensor(a); }

    /** The product of a chain of matrices, the first and last may be vectors (torch.linalg.multi_dot). */
    public static Tensor multiDot(Tensor... tensors) { return dev.ember.ops.LinalgOps.LINALG_MULTI_DOT.callTensor(List.of(tensors)); }

    /** The dot product of x and y along the last dim, broadcast (torch.linalg.vecdot). */
    public static Tensor vecdot(Tensor x, Tensor y) { return vecdot(x, y, -1); }

    /** torch.linalg.vecdot(x, y, dim=dim). */
    public static Tensor vecdot(Tensor x, Tensor y, int dim) { return dev.ember.ops.LinalgOps.LINALG_VECDOT.callTensor(x, y, (long) dim); }

    /** The inverse of {@code a} as a matrix of its first {@code ind} dims against the rest (torch.linalg.tensorinv). */
    public static Tensor tensorinv(Tensor a, int ind) { return LuOps.LINALG_TENSORINV.callTensor(a, (long) ind); }

    /** torch.linalg.tensorinv(a): ind = 2. */
    public static Tensor tensorinv(Tensor a) { return tensorinv(a, 2); }

    /** The X with {@code tensordot(a, X, X.ndim) == b} (torch.linalg.tensorsolve). */
    public static Tensor tensorsolve(Tensor a, Tensor b) { return LuOps.LINALG_TENSORSOLVE.callTensor(a, b, null); }

    /** torch.linalg.tensorsolve(a, b, dims): a's dims in {@code dims} moved last first. */
    public static Tensor tensorsolve(Tensor a, Tensor b, int[] dims) { return LuOps.LINALG_TENSORSOLVE.callTensor(a, b, dims); }

    /** torch.linalg.slogdet: [sign, log|det|] (sign 0 and -inf for a singular matrix). */
    public static List<Tensor> slogdet(Tensor a) { return LuOps.LINALG_SLOGDET.callList(a); }

    /** torch.linalg.inv; a singular matrix is refused with ATen's message. */
    public static Tensor inv(Tensor a) { return LuOps.LINALG_INV.callTensor(a); }

    /** torch.linalg.solve: X with {@code A X = B}, B a matrix or a vector, batch dims broadcast. */
    public static Tensor solve(Tensor a, Tensor b) { return LuOps.LINALG_SOLVE.callTensor(a, b, true); }

    /** torch.linalg.cholesky: lower L with {@code A = L Lᵀ}. */
    public static Tensor cholesky(Tensor a) { return cholesky(a, false); }

    /** torch.linalg.cholesky with {@code upper}: Lᵀ instead of L. */
    public static Tensor cholesky(Tensor a, boolean upper) { return LuOps.LINALG_CHOLESKY.callTensor(a, upper); }

    /** torch.linalg.matrix_exp: e^A of a (batch of) square matrices. */
    public static Tensor matrixExp(Tensor a) { return dev.ember.ops.MatrixExpOps.LINALG_MATRIX_EXP.callTensor(a); }

    /** The cross product of 3-vectors along {@code dim} (torch.linalg.cross; same number of dims, broadcast otherwise). */
    public static Tensor cross(Tensor a, Tensor b, int dim) { return a.cross(b, dim); }

    /** {@code cross(a, b, -1)}: torch.linalg.cross's default dim. */
    public static Tensor cross(Tensor a, Tensor b) { return a.cross(b, -1); }

    /** torch.linalg.matrix_power: A to the n (negative: of its inverse; 0: the identity). */
    public static Tensor matrixPower(Tensor a, int n) { return LuOps.LINALG_MATRIX_POWER.callTensor(a, (long) n); }

    /** torch.linalg.matrix_norm(A): the Frobenius norm of each matrix. */
    public static Tensor matrixNorm(Tensor a) { return matrixNorm(a, "fro"); }

    /** torch.linalg.matrix_norm with ord "fro" or "nuc" (the sum of the singular values). */
    public static Tensor matrixNorm(Tensor a, String ord) { return matrixNorm(a, ord, -2, -1, false); }

    /** torch.linalg.matrix_norm with a string ord over the matrices spanning {@code dim0}, {@code dim1}. */
    public static Tensor matrixNorm(Tensor a, String ord, int dim0, int dim1, boolean keepdim) {
        return LuOps.LINALG_MATRIX_NORM_STR.callTensor(a, ord, List.of((long) dim0, (long) dim1), keepdim, null);
    }

    /** torch.linalg.matrix_norm with ord 1, -1, inf or -inf (max/min column or row sum of |A|), 2 or -2 (largest/smallest singular value). */
    public static Tensor matrixNorm(Tensor a, double ord) { return matrixNorm(a, ord, -2, -1, false); }

    /** torch.linalg.matrix_norm with a number ord over the matrices spanning {@code dim0}, {@code dim1}. */
    public static Tensor matrixNorm(Tensor a, double ord, int dim0, int dim1, boolean keepdim) {
        return LuOps.LINALG_MATRIX_NORM.callTensor(a, ord, List.of((long) dim0, (long) dim1), keepdim, null);
    }

    /** torch.linalg.vector_norm: the {@code ord}-norm over all elements. */
    public static Tensor vectorNorm(Tensor a, double ord) { return DistanceOps.LINALG_VECTOR_NORM.callTensor(a, ord, null, false, null); }

    /** torch.linalg.vector_norm over {@code dims}. */
    public static Tensor vectorNorm(Tensor a, double ord, int[] dims, boolean keepdim) {
        return DistanceOps.LINALG_VECTOR_NORM.callTensor(a, ord, Arrays.stream(dims).asLongStream().boxed().toList(), keepdim, null);
    }

    /** torch.linalg.norm(A): the 2-norm of all elements (the Frobenius norm of a matrix). */
    public static Tensor norm(Tensor a) { return LuOps.LINALG_NORM.callTensor(a, null, null, false, null); }

    /** torch.linalg.norm with a number ord: a matrix norm of a 2-D input, a vector norm of a 1-D one. */
    public static Tensor norm(Tensor a, double ord) { return LuOps.LINALG_NORM.callTensor(a, ord, null, false, null); }

    /** torch.linalg.norm with a number ord over {@code dims}: one dim a vector norm, two a matrix norm. */
    public static Tensor norm(Tensor a, double ord, int[] dims, boolean keepdim) {
        return LuOps.LINALG_NORM.callTensor(a, ord, Arrays.stream(dims).asLongStream().boxed().toList(), keepdim, null);
    }

    /** torch.linalg.norm with 'fro' or 'nuc' of a 2-D input. */
    public static Tensor norm(Tensor a, String ord) { return LuOps.LINALG_NORM_STR.callTensor(a, ord, null, false, null); }

    /** torch.linalg.norm with 'fro' or 'nuc' over two {@code dims}. */
    public static Tensor norm(Tensor a, String ord, int[] dims, boolean keepdim) {
        return LuOps.LINALG_NORM_STR.callTensor(a, ord, Arrays.stream(dims).asLongStream().boxed().toList(), keepdim, null);
    }

    /** torch.cholesky_solve(B, L): X with {@code L Lᵀ X = B} ({@code Uᵀ U X = B} with {@code upper}). */
    public static Tensor choleskySolve(Tensor b, Tensor factor, boolean upper) { return LuOps.CHOLESKY_SOLVE.callTensor(b, factor, upper); }

    /** torch.linalg.qr: [Q, R], the reduced factors. */
    public static List<Tensor> qr(Tensor a) { return qr(a, "reduced"); }

    /** torch.linalg.qr with mode 'reduced', 'complete' or 'r' (Q empty). */
    public static List<Tensor> qr(Tensor a, String mode) { return OrthogonalOps.LINALG_QR.callList(a, mode); }

    /** torch.linalg.eigh: [eigenvalues ascending, eigenvectors as columns] of symmetric matrices, read from the lower triangle. */
    public static List<Tensor> eigh(Tensor a) { return eigh(a, "L"); }

    /** torch.linalg.eigh with UPLO 'L' or 'U': the triangle read. */
    public static List<Tensor> eigh(Tensor a, String uplo) { return OrthogonalOps.LINALG_EIGH.callList(a, uplo); }

    /** torch.linalg.eigvalsh: the eigenvalues, ascending, of symmetric matrices (lower triangle). */
    public static Tensor eigvalsh(Tensor a) { return eigvalsh(a, "L"); }

    /** torch.linalg.eigvalsh with UPLO 'L' or 'U'. */
    public static Tensor eigvalsh(Tensor a, String uplo) { return OrthogonalOps.LINALG_EIGVALSH.callTensor(a, uplo); }

    /** torch.linalg.svd: [U, S, Vh], full_matrices=True (U and Vh square), as PyTorch's default. */
    public static List<Tensor> svd(Tensor a) { return svd(a, true); }

    /** torch.linalg.svd with {@code fullMatrices}; false gives the reduced factors. */
    public static List<Tensor> svd(Tensor a, boolean fullMatrices) { return OrthogonalOps.LINALG_SVD.callList(a, fullMatrices, null); }

    /** torch.linalg.svdvals: the singular values, descending. */
    public static Tensor svdvals(Tensor a) { return OrthogonalOps.LINALG_SVDVALS.callTensor(a, (Object) null); }

    /** torch.linalg.pinv with the default tolerances. */
    public static Tensor pinv(Tensor a) { return pinv(a, null, null, false); }

    /** torch.linalg.pinv: singular values at or below {@code max(atol, rtol · σ_max)} dropped; null for a default; {@code hermitian} uses eigh. */
    public static Tensor pinv(Tensor a, Double atol, Double rtol, boolean hermitian) { return OrthogonalOps.LINALG_PINV.callTensor(a, atol, rtol, hermitian); }

    /** torch.linalg.matrix_rank with the default tolerances. */
    public static Tensor matrixRank(Tensor a) { return matrixRank(a, null, null, false); }

    /** torch.linalg.matrix_rank: the count of singular values above {@code max(atol, rtol · σ_max)}, int64. */
    public static Tensor matrixRank(Tensor a, Double atol, Double rtol, boolean hermitian) { return OrthogonalOps.LINALG_MATRIX_RANK.callTensor(a, atol, rtol, hermitian); }

    /** torch.linalg.lstsq(A, B): [solution, residuals (empty), rank, singular_values (empty)], gelsy's minimum-norm solution. */
    public static List<Tensor> lstsq(Tensor a, Tensor b) { return lstsq(a, b, null); }

    /** torch.linalg.lstsq with {@code rcond} (null: eps · max(m, n)). */
    public static List<Tensor> lstsq(Tensor a, Tensor b, Double rcond) { return OrthogonalOps.LINALG_LSTSQ.callList(a, b, rcond, null); }

    /** torch.linalg.cond: σ_max / σ_min (the 2-norm condition number). */
    public static Tensor cond(Tensor a) { return OrthogonalOps.LINALG_COND.callTensor(a, (Object) null); }

    /** torch.linalg.cond with p 2, -2, 1, -1, inf or -inf. */
    public static Tensor cond(Tensor a, double p) { return OrthogonalOps.LINALG_COND.callTensor(a, p); }

    /** torch.linalg.cond with p 'fro' or 'nuc'. */
    public static Tensor cond(Tensor a, String p) { return OrthogonalOps.LINALG_COND_STR.callTensor(a, p); }

    // ------------------------------------------------------------------ LU, triangular solves, the _ex forms (LinalgLuOps)

    /** torch.linalg.lu_factor: [LU, pivots (int32, 1-based)]; a zero on U's diagonal is refused. */
    public static List<Tensor> luFactor(Tensor a) { return LinalgLuOps.LINALG_LU_FACTOR.callList(a, true); }

    /** torch.linalg.lu_factor_ex: [LU, pivots, info] (info int32: the first zero of U's diagonal, 0 for none); refuses only with {@code checkErrors}. */
    public static List<Tensor> luFactorEx(Tensor a, boolean checkErrors) { return LinalgLuOps.LINALG_LU_FACTOR_EX.callList(a, true, checkErrors); }

    /** torch.linalg.lu: [P, L, U] with {@code A = P L U}. */
    public static List<Tensor> lu(Tensor a) { return LinalgLuOps.LINALG_LU.callList(a, true); }

    /** torch.lu_unpack(LU, pivots): [P, L, U]. */
    public static List<Tensor> luUnpack(Tensor lu, Tensor pivots) { return LinalgLuOps.LU_UNPACK.callList(lu, pivots, true, true); }

    /** torch.linalg.lu_solve: X with {@code A X = B} from A's lu_factor ({@code X A = B} without {@code left}, Aᵀ with {@code adjoint}). */
    public static Tensor luSolve(Tensor lu, Tensor pivots, Tensor b, boolean left, boolean adjoint) {
        return LinalgLuOps.LINALG_LU_SOLVE.callTensor(lu, pivots, b, left, adjoint);
    }

    /** torch.linalg.lu_solve(LU, pivots, B). */
    public static Tensor luSolve(Tensor lu, Tensor pivots, Tensor b) { return luSolve(lu, pivots, b, true, false); }

    /** torch.linalg.solve_triangular: X with {@code A X = B} ({@code X A = B} without {@code left}) reading A's upper or lower triangle. */
    public static Tensor solveTriangular(Tensor a, Tensor b, boolean upper, boolean left, boolean unitriangular) {
        return LinalgLuOps.LINALG_SOLVE_TRIANGULAR.callTensor(a, b, upper, left, unitriangular);
    }

    /** torch.linalg.solve_triangular(A, B, upper=upper). */
    public static Tensor solveTriangular(Tensor a, Tensor b, boolean upper) { return solveTriangular(a, b, upper, true, false); }

    /** torch.triangular_solve(b, A, upper, transpose, unitriangular): [solution, cloned_coefficient]. */
    public static List<Tensor> triangularSolve(Tensor b, Tensor a, boolean upper, boolean transpose, boolean unitriangular) {
        return LinalgLuOps.TRIANGULAR_SOLVE.callList(b, a, upper, transpose, unitriangular);
    }

    /** torch.linalg.inv_ex: [inverse, info]; a singular matrix is refused only with {@code checkErrors}. */
    public static List<Tensor> invEx(Tensor a, boolean checkErrors) { return LinalgLuOps.LINALG_INV_EX.callList(a, checkErrors); }

    /** torch.linalg.cholesky_ex: [L (Lᵀ with upper), info]; refuses only with {@code checkErrors}. */
    public static List<Tensor> choleskyEx(Tensor a, boolean upper, boolean checkErrors) { return LinalgLuOps.LINALG_CHOLESKY_EX.callList(a, upper, checkErrors); }

    /** torch.linalg.solve_ex: [X, info]; refuses a singular A only with {@code checkErrors}. */
    public static List<Tensor> solveEx(Tensor a, Tensor b, boolean left, boolean checkErrors) { return LinalgLuOps.LINALG_SOLVE_EX.callList(a, b, left, checkErrors); }

    /** torch.cholesky_inverse: {@code (L Lᵀ)⁻¹} from the factor L ({@code (Uᵀ U)⁻¹} with upper). */
    public static Tensor choleskyInverse(Tensor factor, boolean upper) { return LinalgLuOps.CHOLESKY_INVERSE.callTensor(factor, upper); }

    /** torch.geqrf: [a, tau], QR in LAPACK's compact form (R on and above the diagonal, the Householder reflectors below). */
    public static List<Tensor> geqrf(Tensor a) { return dev.ember.ops.HouseholderOps.GEQRF.callList(a); }

    /** torch.linalg.householder_product: Q's first n columns from geqrf's reflectors and taus. */
    public static Tensor householderProduct(Tensor reflectors, Tensor tau) { return dev.ember.ops.HouseholderOps.LINALG_HOUSEHOLDER_PRODUCT.callTensor(reflectors, tau); }

    // ------------------------------------------------------------------ LDL of symmetric matrices (LinalgLdlOps)

    /** torch.linalg.ldl_factor: [LD, pivots (int32, 1-based, a negative pair for a 2x2 block)] with {@code A = P L D Lᵀ Pᵀ}; a D with an exact zero is refused. */
    public static List<Tensor> ldlFactor(Tensor a) { return dev.ember.ops.LinalgLdlOps.LINALG_LDL_FACTOR.callList(a, false); }

    /** torch.linalg.ldl_factor_ex: [LD, pivots, info] (info int32: the first column where D has an exact zero, 0 for none); refuses only with {@code checkErrors}. */
    public static List<Tensor> ldlFactorEx(Tensor a, boolean checkErrors) { return dev.ember.ops.LinalgLdlOps.LINALG_LDL_FACTOR_EX.callList(a, false, checkErrors); }

    /** torch.linalg.ldl_solve: X with {@code A X = B} from A's ldl_factor. */
    public static Tensor ldlSolve(Tensor ld, Tensor pivots, Tensor b) { return dev.ember.ops.LinalgLdlOps.LINALG_LDL_SOLVE.callTensor(ld, pivots, b, false); }

    // ------------------------------------------------------------------ out= of the multi-result ops (OutTuples: each result into its out)

    /** torch.linalg.qr(A, mode, out=(Q, R)). */
    public static List<Tensor> qrOut(Tensor a, String mode, Tensor q, Tensor r) {
        return OutTuples.write("linalg_qr", List.of(a), () -> qr(a, mode), q, r);
    }

    /** torch.linalg.svd(A, full_matrices, out=(U, S, Vh)). */
    public static List<Tensor> svdOut(Tensor a, boolean fullMatrices, Tensor u, Tensor s, Tensor vh) {
        return OutTuples.write("linalg_svd", List.of(a), () -> svd(a, fullMatrices), u, s, vh);
    }

    /** torch.linalg.eigh(A, UPLO, out=(eigenvalues, eigenvectors)). */
    public static List<Tensor> eighOut(Tensor a, String uplo, Tensor eigenvalues, Tensor eigenvectors) {
        return OutTuples.write("linalg_eigh", List.of(a), () -> eigh(a, uplo), eigenvalues, eigenvectors);
    }

    /** torch.linalg.slogdet(A, out=(sign, logabsdet)). */
    public static List<Tensor> slogdetOut(Tensor a, Tensor sign, Tensor logabsdet) {
        return OutTuples.write("linalg_slogdet", List.of(a), () -> slogdet(a), sign, logabsdet);
    }

    /** torch.linalg.lu_factor(A, out=(LU, pivots)). */
    public static List<Tensor> luFactorOut(Tensor a, Tensor lu, Tensor pivots) {
        return OutTuples.write("linalg_lu_factor", List.of(a), () -> luFactor(a), lu, pivots);
    }

    /** torch.linalg.lu_factor_ex(A, check_errors, out=(LU, pivots, info)). */
    public static List<Tensor> luFactorExOut(Tensor a, boolean checkErrors, Tensor lu, Tensor pivots, Tensor info) {
        return OutTuples.write("linalg_lu_factor_ex", List.of(a), () -> luFactorEx(a, checkErrors), lu, pivots, info);
    }

    /** torch.linalg.lu(A, out=(P, L, U)). */
    public static List<Tensor> luOut(Tensor a, Tensor p, Tensor l, Tensor u) {
        return OutTuples.write("linalg_lu", List.of(a), () -> lu(a), p, l, u);
    }

    /** torch.linalg.inv_ex(A, check_errors, out=(inverse, info)). */
    public static List<Tensor> invExOut(Tensor a, boolean checkErrors, Tensor inverse, Tensor info) {
        return OutTuples.write("linalg_inv_ex", List.of(a), () -> invEx(a, checkErrors), inverse, info);
    }

    /** torch.linalg.cholesky_ex(A, upper, check_errors, out=(L, info)). */
    public static List<Tensor> choleskyExOut(Tensor a, boolean upper, boolean checkErrors, Tensor l, Tensor info) {
        return OutTuples.write("linalg_cholesky_ex", List.of(a), () -> choleskyEx(a, upper, checkErrors), l, info);
    }

    /** torch.linalg.solve_ex(A, B, left, check_errors, out=(result, info)). */
    public static List<Tensor> solveExOut(Tensor a, Tensor b, boolean left, boolean checkErrors, Tensor result, Tensor info) {
        return OutTuples.write("linalg_solve_ex", List.of(a, b), () -> solveEx(a, b, left, checkErrors), result, info);
    }

    /** torch.linalg.ldl_factor(A, out=(LD, pivots)). */
    public static List<Tensor> ldlFactorOut(Tensor a, Tensor ld, Tensor pivots) {
        return OutTuples.write("linalg_ldl_factor", List.of(a), () -> ldlFactor(a), ld, pivots);
    }

    /** torch.linalg.ldl_factor_ex(A, check_errors, out=(LD, pivots, info)). */
    public static List<Tensor> ldlFactorExOut(Tensor a, boolean checkErrors, Tensor ld, Tensor pivots, Tensor info) {
        return OutTuples.write("linalg_ldl_factor_ex", List.of(a), () -> ldlFactorEx(a, checkErrors), ld, pivots, info);
    }
}
