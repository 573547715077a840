package dev.ember.ops;

import dev.ember.ops.eager.Orthogonal;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * torch.linalg's orthogonal factorizations — QR, the symmetric eigendecomposition (eigh) and the
 * SVD — per matrix of a batch in float64 (kernels in {@link Orthogonal}), rounded once to the
 * input's dtype, with ATen's checks and words and the derivatives of FunctionsManual.cpp
 * (linalg_qr_backward, linalg_eig_backward's Hermitian case, svd_backward); and the ops ATen
 * composes of them: pinv, matrix_rank, lstsq, cond. Eigenvectors and singular vectors are unique
 * only up to sign: Ember's signs are its own (Jacobi rotations), not LAPACK's, so code that depends
 * on them was already depending on the LAPACK build. Under Ember.compile the three factorizations
 * run their kernels (extern calls); the composites decompose into them.
 */
public final class OrthogonalOps {
    private OrthogonalOps() {}

    // ------------------------------------------------------------------ QR

    /** Q and R with {@code A = Q R}: mode 'reduced' (Q m×k, R k×n), 'complete' (Q m×m, R m×n) or 'r' (Q empty, R k×n). */
    public static final OpOverload LINALG_QR = OpOverload.define("linalg_qr(Tensor A, str mode='reduced') -> (Tensor Q, Tensor R)")
            .meta(a -> {
                Tensor self = checkMatrix("linalg.qr", a.tensor(0));
                QrShape s = qrShape(a.str(1), self.size(-2), self.size(-1));
                TensorMeta q = s.qCols < 0 ? TensorMeta.contiguous(self.dtype(), 0) : TensorMeta.contiguous(self.dtype(), withMatrix(batch(self), self.size(-2), s.qCols));
                return List.of(q, TensorMeta.contiguous(self.dtype(), withMatrix(batch(self), s.rRows, self.size(-1))));
            })
            .kernel((a, meta) -> {
                Tensor self = a.tensor(0);
                int m = self.size(-2), n = self.size(-1);
                QrShape s = qrShape(a.str(1), m, n);
                int qCols = Math.max(s.qCols, 0);
                double[] in = self.contiguous().toDoubleArray();
                int count = count(self);
                double[] q = new double[count * m * qCols], r = new double[count * s.rRows * n];
                for (int b = 0; b < count; b++) {
                    Orthogonal.Qr f = Orthogonal.qr(Arrays.copyOfRange(in, b * m * n, (b + 1) * m * n), m, n, qCols, s.rRows);
                    System.arraycopy(f.q(), 0, q, b * m * qCols, m * qCols);
                    System.arraycopy(f.r(), 0, r, b * s.rRows * n, s.rRows * n);
                }
                List<?> metas = (List<?>) meta;
                return List.of(result(q, (TensorMeta) metas.get(0)), result(r, (TensorMeta) metas.get(1)));
            })
            .derivative(OrthogonalOps::qrBackward)
            .register();

    /** torch.qr: linalg.qr with {@code some} for 'reduced' and its negation for 'complete'. */
    public static final OpOverload QR = ComposedOps.define("qr(Tensor self, bool some=True) -> (Tensor Q, Tensor R)",
            a -> checkMatrix("linalg.qr", a.tensor(0)),
            (e, a) -> e.call(LINALG_QR, a[0], (Boolean) a[1] ? "reduced" : "complete"));

    private record QrShape(int qCols, int rRows) {}

    /** Q's column count (-1 for mode 'r': Q is empty) and R's row count for a mode; ATen's words for an unknown one. */
    private static QrShape qrShape(String mode, int m, int n) {
        int k = Math.min(m, n);
        return switch (mode) {
            case "reduced" -> new QrShape(k, k);
            case "complete" -> new QrShape(m, m);
            case "r" -> new QrShape(-1, k);
            default -> throw new IllegalArgumentException("qr received unrecognized mode '" + mode + "' but expected one of 'reduced' (default), 'r', or 'complete'");
        };
    }

    /**
     * linalg_qr_backward: for {@code m ≥ n}, {@code M = R gRᵀ − gQᵀ Q} and
     * {@code gA = (gQ + Q copyltu(M)) R⁻ᵀ}; for {@code m < n}, with {@code R = [X | Y]}, the square
     * case on X with {@code gQ + A₂ gYᵀ} ({@code A₂ = Q Y}), and {@code Q gY} for Y's columns.
     */
    private static Object[] qrBackward(Grad g) {
        String mode = (String) g.value(1);
        TensorMeta r = g.resultMeta(1);
        int m = g.argMeta(0).shape()[g.argMeta(0).dim() - 2], n = r.shape()[r.dim() - 1];
        if (mode.equals("r")) {
            throw new IllegalArgumentException("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                    + "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
        }
        if (mode.equals("complete") && m > n) {
            throw new IllegalArgumentException("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
        }
        Object Q = g.result(0), R = g.result(1), gQ = g.grad(0), gR = g.grad(1);
        if (m >= n) return new Object[] {qrBackwardTall(g, Q, R, gQ, gR), null};
        Object X = narrow(g, R, 0, m), Y = narrow(g, R, m, n - m), gX = narrow(g, gR, 0, m), gY = narrow(g, gR, m, n - m);
        Object gQY = g.add(gQ, mm(g, mm(g, Q, Y), mT(g, gY)));   // Y = Qᵀ A₂ moves with Q
        return new Object[] {g.call(ShapeOps.CAT, List.of(qrBackwardTall(g, Q, X, gQY, gX), mm(g, Q, gY)), -1L), null};
    }

    private static Object qrBackwardTall(Grad g, Object Q, Object R, Object gQ, Object gR) {
        Object M = g.sub(mm(g, R, mT(g, gR)), mm(g, mT(g, gQ), Q));
        Object copyltu = g.add(g.call(ShapeOps.TRIL, M, 0L), mT(g, g.call(ShapeOps.TRIL, M, -1L)));
        Object b = g.add(gQ, mm(g, Q, copyltu));
        // b R⁻ᵀ = (R⁻¹ bᵀ)ᵀ
        return mT(g, g.call(LuOps.LINALG_SOLVE, R, mT(g, b), true));
    }

    // ------------------------------------------------------------------ eigh

    /**
     * The eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices, read from the
     * lower ({@code UPLO='L'}) or upper triangle. The gradient is linalg_eig_backward's Hermitian
     * case: {@code V (diag(gw) + skew(Vᵀ gV) / E) Vᵀ} with {@code E_ij = w_j − w_i}, symmetric as
     * ATen's (so finite differences, which move one triangle alone, are not its check: libtorch's is).
     */
    public static final OpOverload LINALG_EIGH = OpOverload.define("linalg_eigh(Tensor self, str UPLO='L') -> (Tensor eigenvalues, Tensor eigenvectors)")
            .meta(a -> {
                Tensor self = checkEigh(a.tensor(0));
                checkUplo(a.str(1));
                return List.of(TensorMeta.contiguous(self.dtype(), batchAnd(self, self.size(-1))), TensorMeta.contiguous(self.dtype(), self.shape()));
            })
            .kernel((a, meta) -> {
                Tensor self = a.tensor(0);
                boolean lower = checkUplo(a.str(1));
                int n = self.size(-1), count = count(self);
                double[] in = self.contiguous().toDoubleArray(), w = new double[count * n], v = new double[count * n * n];
                for (int b = 0; b < count; b++) {
                    requireFiniteTriangle(in, b * n * n, n, lower, count > 1 ? "(Batch element " + b + "): " : "");
                    Orthogonal.Eigen f = Orthogonal.eigh(Arrays.copyOfRange(in, b * n * n, (b + 1) * n * n), n, lower);
                    System.arraycopy(f.values(), 0, w, b * n, n);
                    System.arraycopy(f.vectors(), 0, v, b * n * n, n * n);
                }
                List<?> metas = (List<?>) meta;
                return List.of(result(w, (TensorMeta) metas.get(0)), result(v, (TensorMeta) metas.get(1)));
            })
            .derivative(g -> {
                Object w = g.result(0), V = g.result(1);
                Object inner = g.call(ShapeOps.DIAG_EMBED, g.grad(0), 0L, -2L, -1L);
                if (g.hasGrad(1)) {
                    Object vtgv = mm(g, mT(g, V), g.grad(1));
                    Object skew = g.mul(g.sub(vtgv, mT(g, vtgv)), 0.5);
                    inner = g.add(inner, g.div(skew, gapsWithOnesOnDiagonal(g, w)));
                }
                return new Object[] {mm(g, mm(g, V, inner), mT(g, V)), null};
            })
            .register();

    /** torch.linalg.eigvalsh: linalg.eigh's eigenvalues. */
    public static final OpOverload LINALG_EIGVALSH = ComposedOps.define("linalg_eigvalsh(Tensor self, str UPLO='L') -> Tensor",
            a -> {
                checkEigh(a.tensor(0));
                checkUplo(a.str(1));
            },
            (e, a) -> ((List<?>) e.call(LINALG_EIGH, a[0], a[1])).get(0));

    /** ATen's squareCheckInputs, then its CPU kernel's dtype dispatch, in their words. */
    private static Tensor checkEigh(Tensor a) {
        if (a.dim() < 2) throw new IllegalArgumentException("linalg.eigh: The input tensor A must have at least 2 dimensions.");
        if (a.size(-2) != a.size(-1)) {
            throw new IllegalArgumentException("linalg.eigh: A must be batches of square matrices, but they are " + a.size(-2) + " by " + a.size(-1) + " matrices");
        }
        if (!a.dtype().isFloatingPoint()) throw new IllegalArgumentException("\"linalg_eigh_cpu\" not implemented for '" + a.dtype().scalarTypeName() + "'");
        return a;
    }

    /**
     * A NaN or infinity in the triangle eigh reads is refused: LAPACK's syevd fails to converge on it
     * (ATen reports its error code, which depends on the LAPACK build; Ember names the cause).
     */
    private static void requireFiniteTriangle(double[] values, int base, int n, boolean lower, String batchElement) {
        for (int i = 0; i < n; i++) {
            for (int j = 0; j <= i; j++) {
                if (!Double.isFinite(lower ? values[base + i * n + j] : values[base + j * n + i])) {
                    throw new IllegalArgumentException("linalg.eigh: " + batchElement + "The algorithm failed to converge because the input matrix contained non-finite values.");
                }
            }
        }
    }

    /** ATen's checkUplo: 'L' or 'U' in either case; true for the lower triangle. */
    private static boolean checkUplo(String uplo) {
        String upper = uplo.toUpperCase(Locale.ROOT);
        if (!upper.equals("L") && !upper.equals("U")) throw new IllegalArgumentException("Expected UPLO argument to be 'L' or 'U', but got " + uplo);
        return upper.equals("L");
    }

    /** {@code E_ij = x_j − x_i} off the diagonal, 1 on it (the diagonal of what it divides is zero). */
    private static Object gapsWithOnesOnDiagonal(Grad g, Object x) {
        TensorMeta xm = g.meta(x);
        Object gaps = g.sub(g.call(ShapeOps.UNSQUEEZE, x, -2L), g.call(ShapeOps.UNSQUEEZE, x, -1L));
        return g.add(gaps, g.call(CreationOps.EYE, (long) xm.shape()[xm.dim() - 1], xm.dtype()));
    }

    // ------------------------------------------------------------------ SVD

    /**
     * {@code A = U diag(S) Vh}, S descending; full_matrices makes U and Vh square. The gradient is
     * svd_backward (for full_matrices, on U's first k columns and Vh's first k rows, as
     * derivatives.yaml narrows them): defined where the singular values are distinct and, for the
     * vectors, nonzero.
     */
    public static final OpOverload LINALG_SVD = OpOverload.define("linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)")
            .meta(a -> {
                Tensor self = checkMatrix("linalg.svd", a.tensor(0));
                checkDriver("linalg.svd", a.get(2));
                int m = self.size(-2), n = self.size(-1), k = Math.min(m, n);
                boolean full = a.bool(1);
                return List.of(TensorMeta.contiguous(self.dtype(), withMatrix(batch(self), m, full ? m : k)),
                        TensorMeta.contiguous(self.dtype(), batchAnd(self, k)),
                        TensorMeta.contiguous(self.dtype(), withMatrix(batch(self), full ? n : k, n)));
            })
            .kernel((a, meta) -> {
                Tensor self = a.tensor(0);
                boolean full = a.bool(1);
                int m = self.size(-2), n = self.size(-1), k = Math.min(m, n), uCols = full ? m : k, vhRows = full ? n : k;
                int count = count(self);
                double[] in = self.contiguous().toDoubleArray();
                double[] u = new double[count * m * uCols], s = new double[count * k], vh = new double[count * vhRows * n];
                for (int b = 0; b < count; b++) {
                    requireFinite(in, b * m * n, m * n, count > 1 ? "(Batch element " + b + "): " : "");
                    Orthogonal.Svd f = Orthogonal.svd(Arrays.copyOfRange(in, b * m * n, (b + 1) * m * n), m, n, full);
                    System.arraycopy(f.u(), 0, u, b * m * uCols, m * uCols);
                    System.arraycopy(f.s(), 0, s, b * k, k);
                    System.arraycopy(f.vh(), 0, vh, b * vhRows * n, vhRows * n);
                }
                List<?> metas = (List<?>) meta;
                return List.of(result(u, (TensorMeta) metas.get(0)), result(s, (TensorMeta) metas.get(1)), result(vh, (TensorMeta) metas.get(2)));
            })
            .derivative(OrthogonalOps::svdBackward)
            .register();

    /** ATen's refusal of a matrix with a NaN or infinity, which LAPACK's gesdd cannot factor. */
    private static void requireFinite(double[] values, int from, int length, String batchElement) {
        for (int i = from; i < from + length; i++) {
            if (!Double.isFinite(values[i])) {
                throw new IllegalArgumentException("linalg.svd: " + batchElement + "The algorithm failed to converge because the input matrix contained non-finite values.");
            }
        }
    }

    /** torch.linalg.svdvals: the singular values, descending. */
    public static final OpOverload LINALG_SVDVALS = ComposedOps.define("linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor",
            a -> {
                checkMatrix("linalg.svd", a.tensor(0));   // ATen's svdvals names the op it calls
                checkDriver("linalg.svd", a.get(1));
            },
            (e, a) -> ((List<?>) e.call(LINALG_SVD, a[0], false, a[1])).get(1));

    /**
     * torch.svd: U, S and V (not Vh); {@code some} for the reduced factors. Without compute_uv, U
     * and V are zero-filled m×m and n×n matrices, as ATen's.
     */
    public static final OpOverload SVD = ComposedOps.define("svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V)",
            a -> {
                Tensor self = a.tensor(0);   // torch.svd's own words for the dims, then linalg.svd's checks
                if (self.dim() < 2) throw new IllegalArgumentException("linalg.svd: input should have at least 2 dimensions, but has " + self.dim() + " dimensions instead");
                checkMatrix("linalg.svd", self);
            },
            (e, a) -> {
                boolean some = (Boolean) a[1], computeUv = (Boolean) a[2];
                List<?> usv = (List<?>) e.call(LINALG_SVD, a[0], computeUv && !some, null);
                if (computeUv) return List.of(usv.get(0), usv.get(1), e.call(ShapeOps.TRANSPOSE, usv.get(2), -2L, -1L));
                TensorMeta in = e.meta(a[0]);
                int m = in.shape()[in.dim() - 2], n = in.shape()[in.dim() - 1];
                int[] batch = Arrays.copyOf(in.shape(), in.dim() - 2);
                return List.of(e.call(CreationOps.ZEROS, withMatrix(batch, m, m), in.dtype()), usv.get(1),
                        e.call(CreationOps.ZEROS, withMatrix(batch, n, n), in.dtype()));
            });

    /** ATen's CPU check: the driver keyword selects a cuSOLVER algorithm, so it must be None here. */
    private static void checkDriver(String op, Object driver) {
        if (driver != null) {
            throw new IllegalArgumentException("torch." + op + ": keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend.");
        }
    }

    /**
     * svd_backward: with {@code skew(X) = X − Xᵀ} and {@code E_jk = S_k² − S_j²},
     * {@code gA = U ((skew(Uᵀ gU) S + S skew(Vᵀ gV)) / E + diag(gS)) Vh}, plus the part of gU outside
     * U's span ({@code (I − U Uᵀ) gU S⁻¹ Vh}, tall A) or of gV outside V's (wide A).
     */
    private static Object[] svdBackward(Grad g) {
        boolean full = (Boolean) g.value(1);
        TensorMeta sMeta = g.resultMeta(1);
        int k = sMeta.shape()[sMeta.dim() - 1];
        int m = g.argMeta(0).shape()[g.argMeta(0).dim() - 2], n = g.argMeta(0).shape()[g.argMeta(0).dim() - 1];
        Object U = g.result(0), S = g.result(1), Vh = g.result(2);
        boolean hasU = g.hasGrad(0), hasV = g.hasGrad(2);
        Object gU = hasU ? g.grad(0) : null, gVh = hasV ? g.grad(2) : null;
        if (full) {
            U = narrow(g, U, 0, k);
            Vh = g.call(ShapeOps.NARROW, Vh, -2L, 0L, (long) k);
            if (hasU) gU = narrow(g, gU, 0, k);
            if (hasV) gVh = g.call(ShapeOps.NARROW, gVh, -2L, 0L, (long) k);
        }
        Object diagGS = g.call(ShapeOps.DIAG_EMBED, g.grad(1), 0L, -2L, -1L);
        if (!hasU && !hasV) return new Object[] {mm(g, mm(g, U, diagGS), Vh), null, null};
        Object rowS = g.call(ShapeOps.UNSQUEEZE, S, -2L), columnS = g.call(ShapeOps.UNSQUEEZE, S, -1L);
        Object core = null;
        if (hasU) {
            Object utgu = mm(g, mT(g, U), gU);
            core = g.mul(g.sub(utgu, mT(g, utgu)), rowS);
        }
        if (hasV) {
            Object vhgv = mm(g, Vh, mT(g, gVh));
            Object part = g.mul(columnS, g.sub(vhgv, mT(g, vhgv)));
            core = core == null ? part : g.add(core, part);
        }
        Object gA = g.add(g.div(core, gapsWithOnesOnDiagonal(g, g.mul(S, S))), diagGS);
        if (m > n && hasU) {
            Object gUSinv = g.div(gU, rowS);
            gA = g.add(mm(g, U, gA), g.sub(gUSinv, mm(g, U, mm(g, mT(g, U), gUSinv))));
            return new Object[] {mm(g, gA, Vh), null, null};
        }
        if (m < n && hasV) {
            Object sinvGVh = g.div(gVh, columnS);
            gA = g.add(mm(g, gA, Vh), g.sub(sinvGVh, mm(g, mm(g, sinvGVh, mT(g, Vh)), Vh)));
            return new Object[] {mm(g, U, gA), null, null};
        }
        return new Object[] {mm(g, mm(g, U, gA), Vh), null, null};
    }

    // ------------------------------------------------------------------ composites of the SVD

    /**
     * torch.linalg.pinv, ATen's composite: singular values (or |eigenvalues| with {@code hermitian})
     * above {@code max(atol, rtol · σ_max)} inverted, the rest dropped. rtol defaults to
     * {@code eps · max(m, n)}, or to 0 when a positive atol is given.
     */
    public static final OpOverload LINALG_PINV = ComposedOps.define(
            "linalg_pinv.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor",
            a -> checkToleranced("linalg.pinv", a),
            (e, a) -> {
                TensorMeta in = e.meta(a[0]);
                int m = in.shape()[in.dim() - 2], n = in.shape()[in.dim() - 1];
                if (in.numel() == 0) return e.call(CreationOps.ZEROS, withMatrix(Arrays.copyOf(in.shape(), in.dim() - 2), n, m), in.dtype());
                Object atol = a[1], rtol = a[2];
                boolean hermitian = (Boolean) a[3];
                Object u, s, magnitude, right;
                if (hermitian) {
                    List<?> wv = (List<?>) e.call(LINALG_EIGH, a[0], "L");
                    s = wv.get(0);
                    u = wv.get(1);
                    right = u;
                    magnitude = e.call(PointwiseOps.ABS, s);
                } else {
                    List<?> usv = (List<?>) e.call(LINALG_SVD, a[0], false, null);
                    u = usv.get(0);
                    s = usv.get(1);
                    right = e.call(ShapeOps.TRANSPOSE, usv.get(2), -2L, -1L);
                    magnitude = s;
                }
                Object kept = e.call(PointwiseOps.GT_TENSOR, magnitude, tolerance(e, magnitude, in, atol, rtol));
                Object inverted = e.call(PointwiseOps.WHERE_SCALAR_OTHER, kept, e.call(PointwiseOps.RECIPROCAL, s), 0.0);
                Object scaled = e.call(PointwiseOps.MUL_TENSOR, right, e.call(ShapeOps.UNSQUEEZE, inverted, -2L));
                return e.call(LinalgOps.MATMUL, scaled, e.call(ShapeOps.TRANSPOSE, u, -2L, -1L));
            });

    /** torch.pinverse: linalg.pinv with rtol {@code rcond} and atol 0. */
    public static final OpOverload PINVERSE = ComposedOps.define("pinverse(Tensor self, float rcond=1e-15) -> Tensor",
            a -> checkMatrix("linalg.pinv", a.tensor(0)),
            (e, a) -> e.call(LINALG_PINV, a[0], 0.0, a[1], false));

    /**
     * torch.linalg.matrix_rank, ATen's composite: the count of singular values (|eigenvalues| with
     * {@code hermitian}) above {@code max(atol, rtol · σ_max)}, int64.
     */
    public static final OpOverload LINALG_MATRIX_RANK = ComposedOps.define(
            "linalg_matrix_rank.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor",
            a -> checkToleranced("linalg.matrix_rank", a),
            (e, a) -> {
                TensorMeta in = e.meta(a[0]);
                int[] batch = Arrays.copyOf(in.shape(), in.dim() - 2);
                if (in.numel() == 0) return e.call(CreationOps.ZEROS, batch, DType.INT64);
                Object s = (Boolean) a[3] ? e.call(PointwiseOps.ABS, e.call(LINALG_EIGVALSH, a[0], "L")) : e.call(LINALG_SVDVALS, a[0], null);
                Object above = e.call(PointwiseOps.GT_TENSOR, s, tolerance(e, s, in, a[1], a[2]));
                return e.call(ReductionOps.SUM_DIM, above, new int[] {-1}, false, null);
            });

    /** ATen's get_atol_rtol and the tolerance it makes: {@code max(atol, rtol · max(s))}, keepdim over the last dim. */
    private static Object tolerance(OpEmitter e, Object s, TensorMeta input, Object atol, Object rtol) {
        int m = input.shape()[input.dim() - 2], n = input.shape()[input.dim() - 1];
        double atolValue = atol == null ? 0 : ((Number) atol).doubleValue();
        double rtolValue = rtol != null ? ((Number) rtol).doubleValue()
                : atol != null && atolValue > 0 ? 0 : epsilon(input.dtype()) * Math.max(m, n);
        Object largest = e.call(ReductionOps.AMAX, s, new int[] {-1}, true);
        return e.call(PointwiseOps.CLAMP, e.call(PointwiseOps.MUL_SCALAR, largest, rtolValue), atolValue, null);
    }

    /**
     * pinv's and matrix_rank's checks in ATen's order: the default rtol reads the matrix dims and the
     * dtype's epsilon first, then the SVD (or eigh, {@code hermitian}) checks the matrices.
     */
    private static void checkToleranced(String op, Args a) {
        Tensor self = a.tensor(0);
        if (a.get(2) == null) {
            if (self.dim() < 2) Shapes.wrapDim(op, -2, self.dim());
            if (!self.dtype().isFloatingPoint()) throw new IllegalArgumentException(op + ": This function doesn't handle types other than float and double");
        }
        if (a.bool(3)) checkEigh(self);
        else checkMatrix("linalg.svd", self);
    }

    private static double epsilon(DType dtype) { return dtype == DType.FLOAT64 ? Math.ulp(1.0) : Math.ulp(1.0f); }

    /**
     * torch.linalg.lstsq with LAPACK's gelsy semantics (the CPU default): the minimum-norm
     * least-squares solution, through the pseudo-inverse with singular values below
     * {@code rcond · σ_max} dropped (rcond defaults to {@code eps · max(m, n)}), and the effective
     * rank (of A's batch shape); gelsy computes neither residuals nor singular values, which are
     * empty. B may be a matrix or a vector ({@code [..., m]}); batch dims broadcast.
     */
    public static final OpOverload LINALG_LSTSQ = ComposedOps.define(
            "linalg_lstsq(Tensor self, Tensor b, float? rcond=None, *, str? driver=None) -> (Tensor solution, Tensor residuals, Tensor rank, Tensor singular_values)",
            a -> checkLstsq(a.tensor(0), a.tensor(1), a.get(3) == null ? null : a.str(3)),
            (e, a) -> {
                TensorMeta in = e.meta(a[0]), rhs = e.meta(a[1]);
                boolean vector = rhs.dim() == in.dim() - 1;
                int m = in.shape()[in.dim() - 2], n = in.shape()[in.dim() - 1];
                double rcond = a[2] != null ? ((Number) a[2]).doubleValue() : epsilon(in.dtype()) * Math.max(m, n);
                Object pinv = e.call(LINALG_PINV, a[0], null, rcond, false);
                Object x = e.call(LinalgOps.MATMUL, pinv, vector ? e.call(ShapeOps.UNSQUEEZE, a[1], -1L) : a[1]);
                if (vector) x = e.call(ShapeOps.SQUEEZE_DIM, x, -1L);
                Object rank = e.call(LINALG_MATRIX_RANK, a[0], null, rcond, false);   // A's batch shape, not the broadcast one (as ATen's)
                Object none = e.call(CreationOps.ZEROS, new int[] {0}, in.dtype());
                return List.of(x, none, rank, e.call(CreationOps.ZEROS, new int[] {0}, in.dtype()));
            });

    private static void checkLstsq(Tensor a, Tensor b, String driver) {
        String op = "torch.linalg.lstsq";
        if (!a.dtype().isFloatingPoint()) throw new IllegalArgumentException("linalg.lstsq: Expected a floating point or complex tensor as input. Got " + a.dtype().scalarTypeName());
        if (a.dim() < 2) throw new IllegalArgumentException(op + ": input must have at least 2 dimensions.");
        if (b.dim() < 1) throw new IllegalArgumentException(op + ": other must have at least 1 dimension.");
        if (a.dtype() != b.dtype()) {
            throw new IllegalArgumentException(op + ": Expected input and other to have the same dtype, but got input's dtype "
                    + a.dtype().scalarTypeName() + " and other's dtype " + b.dtype().scalarTypeName());
        }
        int diff = a.dim() - b.dim();
        if (diff < 0 || diff > 1) {
            throw new IllegalArgumentException(op + ": input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1");
        }
        int rows = diff == 1 ? b.size(-1) : b.size(-2);
        if (a.size(-2) != rows) {
            throw new IllegalArgumentException(op + (diff == 1 ? ": input.size(-2) should match other.size(-1)" : ": input.size(-2) should match other.size(-2)"));
        }
        if (driver != null && !List.of("gels", "gelsy", "gelsd", "gelss").contains(driver)) {
            throw new IllegalArgumentException(op + ": parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
        }
        if (driver != null && !driver.equals("gelsy")) {
            throw new IllegalArgumentException(op + ": driver '" + driver + "' is not supported by Ember yet; it computes 'gelsy' (the CPU default): pass driver=None");
        }
    }

    /**
     * torch.linalg.cond with a number or None: {@code σ_max / σ_min} for None and 2,
     * {@code σ_min / σ_max} for -2; for ±1 and ±inf {@code ‖A‖ · ‖A⁻¹‖} (a singular A refused by inv).
     */
    public static final OpOverload LINALG_COND = ComposedOps.define("linalg_cond(Tensor self, Scalar? p=None) -> Tensor",
            a -> {
                Tensor self = checkMatrix("linalg.cond", a.tensor(0));
                if (a.get(1) != null) {
                    double p = a.dbl(1);
                    if (Math.abs(p) != 2 && Math.abs(p) != 1 && Math.abs(p) != Double.POSITIVE_INFINITY) {
                        throw new IllegalArgumentException("linalg.cond got an invalid norm type: " + LuOps.formatOrder(p));
                    }
                    String printed = Double.isInfinite(p) ? (p > 0 ? "inf" : "-inf") : String.format(Locale.ROOT, "%f", p);
                    if (Math.abs(p) != 2) LuOps.checkSquare("linalg.cond(ord=" + printed + ")", self);
                }
            },
            (e, a) -> {
                double p = a[1] == null ? 2 : ((Number) a[1]).doubleValue();
                if (Math.abs(p) == 2) {
                    Object s = e.call(LINALG_SVDVALS, a[0], null);
                    Object largest = e.call(ReductionOps.AMAX, s, new int[] {-1}, false), smallest = e.call(ReductionOps.AMIN, s, new int[] {-1}, false);
                    return p > 0 ? e.call(PointwiseOps.DIV_TENSOR, largest, smallest) : e.call(PointwiseOps.DIV_TENSOR, smallest, largest);
                }
                List<Long> dims = List.of(-2L, -1L);
                return e.call(PointwiseOps.MUL_TENSOR, e.call(LuOps.LINALG_MATRIX_NORM, a[0], p, dims, false, null),
                        e.call(LuOps.LINALG_MATRIX_NORM, e.call(LuOps.LINALG_INV, a[0]), p, dims, false, null));
            });

    /** torch.linalg.cond with 'fro' or 'nuc': {@code ‖A‖ · ‖A⁻¹‖} in that norm. */
    public static final OpOverload LINALG_COND_STR = ComposedOps.define("linalg_cond.p_str(Tensor self, str p) -> Tensor",
            a -> {
                if (!a.str(1).equals("fro") && !a.str(1).equals("nuc")) throw new IllegalArgumentException("linalg.cond got an invalid norm type: " + a.str(1));
                LuOps.checkSquare("linalg.cond(ord=" + a.str(1) + ")", checkMatrix("linalg.cond", a.tensor(0)));
            },
            (e, a) -> {
                List<Long> dims = List.of(-2L, -1L);
                return e.call(PointwiseOps.MUL_TENSOR, e.call(LuOps.LINALG_MATRIX_NORM_STR, a[0], a[1], dims, false, null),
                        e.call(LuOps.LINALG_MATRIX_NORM_STR, e.call(LuOps.LINALG_INV, a[0]), a[1], dims, false, null));
            });

    // ------------------------------------------------------------------ helpers

    /** ATen's checkIsMatrix and checkFloatingOrComplex, in that order of words. */
    static Tensor checkMatrix(String op, Tensor a) {
        if (a.dim() < 2) throw new IllegalArgumentException(op + ": The input tensor A must have at least 2 dimensions.");
        if (!a.dtype().isFloatingPoint()) {
            throw new IllegalArgumentException(op + ": Expected a floating point or complex tensor as input. Got " + a.dtype().scalarTypeName());
        }
        return a;
    }

    private static Object mm(Grad g, Object a, Object b) { return g.call(LinalgOps.MATMUL, a, b); }

    private static Object mT(Grad g, Object a) { return g.call(ShapeOps.TRANSPOSE, a, -2L, -1L); }

    /** Columns {@code start..start+length-1} of each matrix. */
    private static Object narrow(Grad g, Object a, int start, int length) { return g.call(ShapeOps.NARROW, a, -1L, (long) start, (long) length); }

    private static int[] batch(Tensor a) { return Arrays.copyOf(a.shape(), a.dim() - 2); }

    private static int[] batchAnd(Tensor a, int last) {
        int[] shape = Arrays.copyOf(a.shape(), a.dim() - 1);
        shape[shape.length - 1] = last;
        return shape;
    }

    static int[] withMatrix(int[] batch, int rows, int cols) {
        int[] shape = Arrays.copyOf(batch, batch.length + 2);
        shape[batch.length] = rows;
        shape[batch.length + 1] = cols;
        return shape;
    }

    /** How many matrices the batch holds (also when they are empty). */
    private static int count(Tensor a) { return Shapes.numel(batch(a)); }

    private static Tensor result(double[] values, TensorMeta meta) { return Tensor.of(values, meta.shape()).to(meta.dtype()); }
}
