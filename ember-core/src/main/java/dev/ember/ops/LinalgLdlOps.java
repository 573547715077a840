package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;
import java.util.List;

/**
 * torch.linalg's LDL family: {@code A = P L D Lᵀ Pᵀ} of a symmetric matrix (ldl_factor_ex,
 * ldl_factor) and solves with it (ldl_solve). The factorization is LAPACK's sytrf with
 * {@code uplo='L'} — Bunch-Kaufman's diagonal pivoting, D block diagonal with 1x1 and 2x2 blocks —
 * computed in float64 and rounded once, so that LD and the pivots are the ones libtorch returns:
 * LD holds L's strict lower triangle (its unit diagonal implied) and D's blocks (a 2x2 block's
 * off-diagonal entry where L has its implied zero), its strict upper triangle zeroed; a positive
 * pivot {@code p} at {@code k} means rows {@code k} and {@code p} were swapped for a 1x1 block, a
 * pair of equal negative pivots {@code -p} at {@code k, k+1} means rows {@code k+1} and {@code p}
 * were swapped for a 2x2 block (1-based, as LAPACK's ipiv). Only A's lower triangle is read; for
 * real inputs {@code hermitian} changes nothing. Like ATen, none of these ops has a derivative.
 */
public final class LinalgLdlOps {
    private LinalgLdlOps() {}

    /** Bunch-Kaufman's threshold (1 + √17) / 8, which bounds the growth of the factors' elements. */
    private static final double ALPHA = (1 + Math.sqrt(17)) / 8;

    /** LD, the pivots (int32) and info (int32: the first 1-based column where D has an exact zero, 0 for none). */
    public static final OpOverload LINALG_LDL_FACTOR_EX = OpOverload.define(
                    "linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False) -> (Tensor LD, Tensor pivots, Tensor info)")
            .meta(a -> factorMeta("torch.linalg.ldl_factor_ex", a.tensor(0)))
            .kernel((a, m) -> factor(a.tensor(0), (List<?>) m, a.bool(2) ? "torch.linalg.ldl_factor_ex" : null))
            .register();

    /** linalg_ldl_factor_ex without info: a matrix whose D has an exact zero is refused. */
    public static final OpOverload LINALG_LDL_FACTOR = OpOverload.define(
                    "linalg_ldl_factor(Tensor self, *, bool hermitian=False) -> (Tensor LD, Tensor pivots)")
            .meta(a -> factorMeta("torch.linalg.ldl_factor_ex", a.tensor(0)).subList(0, 2))
            .kernel((a, m) -> factor(a.tensor(0), (List<?>) m, "torch.linalg.ldl_factor").subList(0, 2))
            .register();

    /**
     * X with {@code A X = B} from A's LDL factorization, B's batch broadcast with LD's, as LAPACK's
     * sytrs solves: the row swaps and L's columns forward, D's blocks, then Lᵀ and the swaps back.
     */
    public static final OpOverload LINALG_LDL_SOLVE = OpOverload.define(
                    "linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False) -> Tensor")
            .meta(a -> solveMeta(a.tensor(0), a.tensor(1), a.tensor(2)))
            .kernel((a, m) -> solve(a.tensor(0), a.tensor(1), a.tensor(2), (TensorMeta) m))
            .register();

    public static final OpOverload LINALG_LDL_SOLVE_OUT = OutForms.of(
            "linalg_ldl_solve.out(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False, Tensor(a!) out) -> Tensor(a!)", LINALG_LDL_SOLVE);

    // ------------------------------------------------------------------ checks and metadata (ATen's meta functions, in their order)

    private static List<TensorMeta> factorMeta(String op, Tensor A) {
        checkSquare(op, A);
        checkFloating(op, A.dtype());
        int[] batch = Arrays.copyOf(A.shape(), A.dim() - 2);
        return List.of(TensorMeta.contiguous(A.dtype(), A.shape()), TensorMeta.contiguous(DType.INT32, Arrays.copyOf(A.shape(), A.dim() - 1)),
                TensorMeta.contiguous(DType.INT32, batch));
    }

    private static TensorMeta solveMeta(Tensor LD, Tensor pivots, Tensor B) {
        String op = "torch.linalg.ldl_solve";
        checkSquare(op, LD);
        checkFloating(op, LD.dtype());
        // ATen's linearSolveCheckInputs reads B.size(-2) before its own "at least 2 dimensions" check, so a vector B
        // gets an IndexError there; Ember gives the check ATen meant
        if (B.dim() < 2) throw new IllegalArgumentException(op + ": Expected B to have at least 2 dimensions, but it has " + B.dim() + " dimensions instead");
        if (B.dtype() != LD.dtype()) {
            throw new IllegalArgumentException("Expected b and A to have the same dtype, but found b of type " + B.dtype().scalarTypeName()
                    + " and A of type " + LD.dtype().scalarTypeName() + " instead.");
        }
        int n = LD.size(-1);
        if (B.size(-2) != n) {
            throw new IllegalArgumentException("Incompatible matrix sizes for " + op + ": each A matrix is " + n + " by " + n
                    + " but each b matrix is " + B.size(-2) + " by " + B.size(-1));
        }
        if (!Arrays.equals(pivots.shape(), Arrays.copyOf(LD.shape(), LD.dim() - 1))) {
            throw new IllegalArgumentException(op + ": Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with shape "
                    + Shapes.format(pivots.shape()) + " instead");
        }
        if (!pivots.dtype().isIntegral()) {
            throw new IllegalArgumentException(op + ": Expected pivots to be integers. Got " + pivots.dtype().scalarTypeName());
        }
        int[] batch = broadcastBatches(Arrays.copyOf(B.shape(), B.dim() - 2), Arrays.copyOf(LD.shape(), LD.dim() - 2));
        int[] shape = Arrays.copyOf(batch, batch.length + 2);
        shape[batch.length] = n;
        shape[batch.length + 1] = B.size(-1);
        return TensorMeta.contiguous(B.dtype(), shape);
    }

    /** B's and LD's batch shapes broadcast, refused in infer_size's words as ATen's _linalg_broadcast_batch_dims refuses them. */
    private static int[] broadcastBatches(int[] a, int[] b) {
        int n = Math.max(a.length, b.length);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            int da = i - (n - a.length), db = i - (n - b.length);
            int sa = da >= 0 ? a[da] : 1, sb = db >= 0 ? b[db] : 1;
            if (sa != sb && sa != 1 && sb != 1) {
                throw new IllegalArgumentException("The size of tensor a (" + sa + ") must match the size of tensor b (" + sb + ") at non-singleton dimension " + i);
            }
            out[i] = sa == 1 ? sb : sa;
        }
        return out;
    }

    private static void checkSquare(String op, Tensor A) {
        if (A.dim() < 2) throw new IllegalArgumentException(op + ": The input tensor A must have at least 2 dimensions.");
        if (A.size(-2) != A.size(-1)) {
            throw new IllegalArgumentException(op + ": A must be batches of square matrices, but they are " + A.size(-2) + " by " + A.size(-1) + " matrices");
        }
    }

    private static void checkFloating(String op, DType dtype) {
        if (!dtype.isFloatingPoint()) throw new IllegalArgumentException(op + ": Expected a floating point or complex tensor as input. Got " + dtype.scalarTypeName());
    }

    // ------------------------------------------------------------------ sytrf: the factorization

    private static List<Tensor> factor(Tensor A, List<?> metas, String refuseAs) {
        int n = A.size(-1);
        int[] batch = Arrays.copyOf(A.shape(), A.dim() - 2);
        int count = Shapes.numel(batch);
        double[] a = n == 0 ? new double[0] : A.toDoubleArray();
        int[] pivots = new int[count * n], info = new int[count];
        for (int b = 0; b < count; b++) {
            info[b] = factorOne(a, b * n * n, pivots, b * n, n);
            if (info[b] != 0 && refuseAs != null) {
                // ATen reaches an internal assert here ("Unknown error code"): LAPACK's own account of info > 0 instead
                throw new IllegalArgumentException(refuseAs + (A.dim() > 2 ? ": (Batch element " + b + ")" : "") + ": D[" + info[b] + "," + info[b]
                        + "] is exactly zero: the factorization was completed, but D is singular and solving with it would divide by zero. "
                        + "If you still want the factors, call torch.linalg.ldl_factor_ex(A) and check info");
            }
        }
        return List.of(LuOps.result(a, (TensorMeta) metas.get(0)), Tensor.of(pivots, ((TensorMeta) metas.get(1)).shape()), Tensor.of(info, batch));
    }

    /**
     * LAPACK's dsytf2 with {@code uplo='L'} on the {@code n x n} row-major matrix at {@code off}
     * (A(i, j) at {@code off + i n + j}, only {@code i ≥ j} read), in place; the 1-based pivots go
     * to {@code piv[pOff..]}. The strict upper triangle is zeroed afterwards, as ATen does. Returns
     * LAPACK's info.
     */
    private static int factorOne(double[] a, int off, int[] piv, int pOff, int n) {
        int info = 0;
        for (int k = 0; k < n; ) {
            int kstep = 1, kp;
            double absakk = Math.abs(a[off + k * n + k]);
            int imax = k;
            double colmax = 0;
            if (k < n - 1) {
                imax = firstLargest(a, off, n, k + 1, n, k, true);
                colmax = Math.abs(a[off + imax * n + k]);
            }
            if (Math.max(absakk, colmax) == 0 || Double.isNaN(absakk)) {
                // column k is zero (or its diagonal NaN): D[k,k] is that value, and nothing below it moves
                if (info == 0) info = k + 1;
                kp = k;
            } else {
                if (absakk >= ALPHA * colmax) {
                    kp = k;
                } else {
                    // the largest off-diagonal element of row/column imax, from the lower triangle: row imax left of the diagonal, column imax below it
                    int jmax = firstLargest(a, off, n, k, imax, imax, false);
                    double rowmax = Math.abs(a[off + imax * n + jmax]);
                    if (imax < n - 1) {
                        jmax = firstLargest(a, off, n, imax + 1, n, imax, true);
                        rowmax = Math.max(rowmax, Math.abs(a[off + jmax * n + imax]));
                    }
                    if (absakk >= ALPHA * colmax * (colmax / rowmax)) {
                        kp = k;
                    } else if (Math.abs(a[off + imax * n + imax]) >= ALPHA * rowmax) {
                        kp = imax;
                    } else {
                        kp = imax;
                        kstep = 2;
                    }
                }
                int kk = k + kstep - 1;
                if (kp != kk) swapSymmetric(a, off, n, k, kk, kp, kstep);
                if (kstep == 1) {
                    // A22 -= x xᵀ / d for x the column below the pivot, then L's column is x / d
                    double d = a[off + k * n + k];
                    for (int j = k + 1; j < n; j++) {
                        double xj = a[off + j * n + k] / d;
                        for (int i = j; i < n; i++) a[off + i * n + j] -= a[off + i * n + k] * xj;
                    }
                    for (int i = k + 1; i < n; i++) a[off + i * n + k] /= d;
                } else if (k < n - 2) {
                    // the 2x2 block [[d11, d21], [d21, d22]] (d21 below the diagonal): its inverse applied as dsytf2 does
                    double d21 = a[off + (k + 1) * n + k];
                    double d11 = a[off + (k + 1) * n + k + 1] / d21, d22 = a[off + k * n + k] / d21;
                    double t = 1 / (d11 * d22 - 1);
                    d21 = t / d21;
                    for (int j = k + 2; j < n; j++) {
                        double wk = d21 * (d11 * a[off + j * n + k] - a[off + j * n + k + 1]);
                        double wkp1 = d21 * (d22 * a[off + j * n + k + 1] - a[off + j * n + k]);
                        for (int i = j; i < n; i++) a[off + i * n + j] -= a[off + i * n + k] * wk + a[off + i * n + k + 1] * wkp1;
                        a[off + j * n + k] = wk;
                        a[off + j * n + k + 1] = wkp1;
                    }
                }
            }
            if (kstep == 1) {
                piv[pOff + k] = kp + 1;
            } else {
                piv[pOff + k] = -(kp + 1);
                piv[pOff + k + 1] = -(kp + 1);
            }
            k += kstep;
        }
        for (int i = 0; i < n; i++) for (int j = i + 1; j < n; j++) a[off + i * n + j] = 0;
        return info;
    }

    /** BLAS's idamax: the first index in {@code [from, to)} of the largest magnitude, down column {@code fixed} or along row {@code fixed}. */
    private static int firstLargest(double[] a, int off, int n, int from, int to, int fixed, boolean down) {
        int best = from;
        double max = -1;
        for (int i = from; i < to; i++) {
            double v = Math.abs(down ? a[off + i * n + fixed] : a[off + fixed * n + i]);
            if (v > max) {
                max = v;
                best = i;
            }
        }
        return best;
    }

    /** Interchanges rows and columns {@code kk} and {@code kp} of the trailing lower triangle (dsytf2's swaps; kk < kp). */
    private static void swapSymmetric(double[] a, int off, int n, int k, int kk, int kp, int kstep) {
        for (int i = kp + 1; i < n; i++) swap(a, off + i * n + kk, off + i * n + kp);
        for (int j = kk + 1; j < kp; j++) swap(a, off + j * n + kk, off + kp * n + j);
        swap(a, off + kk * n + kk, off + kp * n + kp);
        if (kstep == 2) swap(a, off + (k + 1) * n + k, off + kp * n + k);
    }

    private static void swap(double[] a, int i, int j) {
        double t = a[i];
        a[i] = a[j];
        a[j] = t;
    }

    // ------------------------------------------------------------------ sytrs: the solve

    private static Tensor solve(Tensor LD, Tensor pivotsTensor, Tensor B, TensorMeta meta) {
        int n = LD.size(-1), nrhs = B.size(-1);
        int[] shape = meta.shape();
        int[] batch = Arrays.copyOf(shape, shape.length - 2);
        int count = Shapes.numel(batch);
        double[] x = new double[count * n * nrhs];
        if (x.length == 0) return LuOps.result(x, meta);
        double[] ld = LD.toDoubleArray(), b = B.toDoubleArray();
        long[] pivots = pivotsTensor.toLongArray();
        int[] ldBatch = Arrays.copyOf(LD.shape(), LD.dim() - 2), bBatch = Arrays.copyOf(B.shape(), B.dim() - 2);
        int[] index = new int[batch.length];
        for (int r = 0; r < count; r++) {
            int ldIndex = sourceIndex(index, batch, ldBatch), bIndex = sourceIndex(index, batch, bBatch);
            System.arraycopy(b, bIndex * n * nrhs, x, r * n * nrhs, n * nrhs);
            checkPivots(pivots, ldIndex * n, n, ldIndex, LD.dim() > 2);
            solveOne(ld, ldIndex * n * n, pivots, ldIndex * n, x, r * n * nrhs, n, nrhs);
            for (int d = batch.length - 1; d >= 0 && ++index[d] == batch[d]; d--) index[d] = 0;
        }
        return LuOps.result(x, meta);
    }

    /** The row-major position in a batch of shape {@code source} (broadcast to {@code target}) of the batch index {@code index}. */
    private static int sourceIndex(int[] index, int[] target, int[] source) {
        int at = 0, lead = target.length - source.length;
        for (int d = 0; d < source.length; d++) at = at * source[d] + (source[d] == 1 ? 0 : index[lead + d]);
        return at;
    }

    /**
     * Pivots as ldl_factor makes them. LAPACK's sytrs trusts them and reads out of bounds on others;
     * Ember refuses them, saying which.
     */
    private static void checkPivots(long[] p, int off, int n, int batchIndex, boolean batched) {
        for (int k = 0; k < n; k++) {
            long v = p[off + k];
            boolean ok;
            if (v > 0) {
                ok = v <= n;
            } else {
                // a 2x2 block: the same negative value twice, the second row's partner at or below it
                ok = v < 0 && k + 1 < n && p[off + k + 1] == v && -v >= k + 2 && -v <= n;
                if (ok) k++;
            }
            if (!ok) {
                throw new IllegalArgumentException("torch.linalg.ldl_solve: " + (batched ? "(Batch element " + batchIndex + ") " : "") + "pivots[" + k + "] = " + v
                        + " is not a pivot of linalg.ldl_factor, which gives values in [1, " + n + "] for 1x1 blocks and a pair of equal negative ones for a 2x2 block;"
                        + " did you pass the pivots that linalg.ldl_factor returned with LD?");
            }
        }
    }

    /** LAPACK's dsytrs with {@code uplo='L'} on the {@code n x nrhs} row-major right-hand sides at {@code bOff}, in place. */
    private static void solveOne(double[] a, int off, long[] piv, int pOff, double[] b, int bOff, int n, int nrhs) {
        // L D X = B: forward through the blocks
        for (int k = 0; k < n; ) {
            if (piv[pOff + k] > 0) {
                swapRows(b, bOff, nrhs, k, (int) piv[pOff + k] - 1);
                for (int i = k + 1; i < n; i++) {
                    double l = a[off + i * n + k];
                    for (int j = 0; j < nrhs; j++) b[bOff + i * nrhs + j] -= l * b[bOff + k * nrhs + j];
                }
                double d = a[off + k * n + k];
                for (int j = 0; j < nrhs; j++) b[bOff + k * nrhs + j] /= d;
                k++;
            } else {
                swapRows(b, bOff, nrhs, k + 1, (int) -piv[pOff + k] - 1);
                for (int i = k + 2; i < n; i++) {
                    double l0 = a[off + i * n + k], l1 = a[off + i * n + k + 1];
                    for (int j = 0; j < nrhs; j++) b[bOff + i * nrhs + j] -= l0 * b[bOff + k * nrhs + j] + l1 * b[bOff + (k + 1) * nrhs + j];
                }
                double akm1k = a[off + (k + 1) * n + k];
                double akm1 = a[off + k * n + k] / akm1k, ak = a[off + (k + 1) * n + k + 1] / akm1k;
                double denom = akm1 * ak - 1;
                for (int j = 0; j < nrhs; j++) {
                    double bkm1 = b[bOff + k * nrhs + j] / akm1k, bk = b[bOff + (k + 1) * nrhs + j] / akm1k;
                    b[bOff + k * nrhs + j] = (ak * bkm1 - bk) / denom;
                    b[bOff + (k + 1) * nrhs + j] = (akm1 * bk - bkm1) / denom;
                }
                k += 2;
            }
        }
        // Lᵀ X = Y: backward, undoing the swaps
        for (int k = n - 1; k >= 0; ) {
            if (piv[pOff + k] > 0) {
                subtractBelow(a, off, b, bOff, n, nrhs, k, k);
                swapRows(b, bOff, nrhs, k, (int) piv[pOff + k] - 1);
                k--;
            } else {
                subtractBelow(a, off, b, bOff, n, nrhs, k, k);
                subtractBelow(a, off, b, bOff, n, nrhs, k - 1, k);
                swapRows(b, bOff, nrhs, k, (int) -piv[pOff + k] - 1);
                k -= 2;
            }
        }
    }

    /** {@code B[row] -= Σ_{i > below} L[i, row] B[i]}: one row of the solve with Lᵀ. */
    private static void subtractBelow(double[] a, int off, double[] b, int bOff, int n, int nrhs, int row, int below) {
        for (int i = below + 1; i < n; i++) {
            double l = a[off + i * n + row];
            for (int j = 0; j < nrhs; j++) b[bOff + row * nrhs + j] -= l * b[bOff + i * nrhs + j];
        }
    }

    private static void swapRows(double[] b, int bOff, int nrhs, int r, int s) {
        if (r == s) return;
        for (int j = 0; j < nrhs; j++) swap(b, bOff + r * nrhs + j, bOff + s * nrhs + j);
    }
}
