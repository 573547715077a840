package dev.ember.tensor;

import dev.ember.ops.LuOps;

import java.util.List;

/**
 * torch.linalg's names for Ember's linear-algebra ops: each method is the op of the same name
 * (snake_case to camelCase), on the last two dims as matrices, batched over the leading ones.
 */
public final class Linalg {
    private Linalg() {}

    /** torch.linalg.det. */
    public static Tensor det(Tensor a) { return LuOps.LINALG_DET.callTensor(a); }

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

    /** torch.linalg.matrix_power: A to the n (negative: of its inverse; 0: the identity). */
    public static Tensor matrixPower(Tensor a, int n) { return LuOps.LINALG_MATRIX_POWER.callTensor(a, (long) n); }

    /** torch.linalg.matrix_norm(A): the Frobenius norm of each matrix. */
    public static Tensor matrixNorm(Tensor a) { return matrixNorm(a, "fro"); }

    /** torch.linalg.matrix_norm with ord "fro" ("nuc" is refused: Ember has no singular values yet). */
    public static Tensor matrixNorm(Tensor a, String ord) { return matrixNorm(a, ord, -2, -1, false); }

    /** torch.linalg.matrix_norm with a string ord over the matrices spanning {@code dim0}, {@code dim1}. */
    public static Tensor matrixNorm(Tensor a, String ord, int dim0, int dim1, boolean keepdim) {
        return LuOps.LINALG_MATRIX_NORM_STR.callTensor(a, ord, List.of((long) dim0, (long) dim1), keepdim, null);
    }

    /** torch.linalg.matrix_norm with ord 1, -1, inf or -inf (max/min column or row sum of |A|). */
    public static Tensor matrixNorm(Tensor a, double ord) { return matrixNorm(a, ord, -2, -1, false); }

    /** torch.linalg.matrix_norm with a number ord over the matrices spanning {@code dim0}, {@code dim1}. */
    public static Tensor matrixNorm(Tensor a, double ord, int dim0, int dim1, boolean keepdim) {
        return LuOps.LINALG_MATRIX_NORM.callTensor(a, ord, List.of((long) dim0, (long) dim1), keepdim, null);
    }

    /** torch.cholesky_solve(B, L): X with {@code L Lᵀ X = B} ({@code Uᵀ U X = B} with {@code upper}). */
    public static Tensor choleskySolve(Tensor b, Tensor factor, boolean upper) { return LuOps.CHOLESKY_SOLVE.callTensor(b, factor, upper); }
}
