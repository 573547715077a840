package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;
import java.util.List;

/**
 * QR in LAPACK's compact form: {@code geqrf} (the Householder reflectors below R's diagonal and
 * their scales tau, as dgeqrf leaves them) and {@code linalg_householder_product} (orgqr: Q's
 * first n columns from reflectors and taus). geqrf is a kernel in float64, rounded once, with no
 * gradient (ATen has none); householder_product is composed of matmuls, so it differentiates and
 * compiles through them.
 */
public final class HouseholderOps {
    private HouseholderOps() {}

    /** {@code A = Q R} with R on and above the diagonal and Q's reflectors {@code H_i = I − tau_i v_i v_iᵀ} below it (v_i's leading 1 implied). */
    public static final OpOverload GEQRF = OpOverload.define("geqrf(Tensor self) -> (Tensor a, Tensor tau)")
            .meta(a -> {
                Tensor A = a.tensor(0);
                if (A.dim() < 2) throw new IllegalArgumentException("torch.geqrf: input must have at least 2 dimensions.");
                if (!A.dtype().isFloatingPoint()) throw new IllegalArgumentException("\"geqrf_cpu\" not implemented for '" + A.dtype().scalarTypeName() + "'");
                int[] tau = Arrays.copyOf(A.shape(), A.dim() - 1);
                tau[A.dim() - 2] = Math.min(A.size(-2), A.size(-1));
                return List.of(TensorMeta.contiguous(A.dtype(), A.shape()), TensorMeta.contiguous(A.dtype(), tau));
            })
            .kernel((a, m) -> geqrf(a.tensor(0), (List<?>) m))
            .derivative(g -> { throw new UnsupportedOperationException("the derivative for 'geqrf' is not implemented."); })
            .register();

    /** Q's first n columns, {@code H_0 H_1 … H_(k−1)} applied to the identity's, from geqrf's reflectors and taus (torch.linalg.householder_product, torch.orgqr). */
    public static final OpOverload LINALG_HOUSEHOLDER_PRODUCT = ComposedOps.define("linalg_householder_product(Tensor input, Tensor tau) -> Tensor",
            a -> checkHouseholderProduct(a.tensor(0), a.tensor(1)),
            (e, a) -> {
                TensorMeta in = e.meta(a[0]);
                int m = in.shape()[in.dim() - 2], n = in.shape()[in.dim() - 1], k = e.meta(a[1]).shape()[e.meta(a[1]).dim() - 1];
                DType dtype = in.dtype();
                Object eye = e.call(CreationOps.EYE, (long) m, dtype);
                Object below = e.call(ShapeOps.TRIL, e.call(CreationOps.ONES, new int[] {m, m}, dtype), -1L);
                Object q = e.call(ShapeOps.EXPAND, e.call(ShapeOps.NARROW, eye, -1L, 0L, (long) n), in.shape(), false);
                for (int i = k - 1; i >= 0; i--) {
                    // v_i: 1 at row i, the reflector's entries below it, 0 above
                    Object column = e.call(ShapeOps.NARROW, a[0], -1L, (long) i, 1L);
                    Object v = e.call(PointwiseOps.ADD_TENSOR, e.call(PointwiseOps.MUL_TENSOR, column, e.call(ShapeOps.NARROW, below, -1L, (long) i, 1L)),
                            e.call(ShapeOps.NARROW, eye, -1L, (long) i, 1L));
                    Object tau = e.call(ShapeOps.UNSQUEEZE, e.call(ShapeOps.NARROW, a[1], -1L, (long) i, 1L), -1L);
                    Object vtq = e.call(LinalgOps.MATMUL, e.call(ShapeOps.TRANSPOSE, v, -2L, -1L), q);
                    q = e.call(PointwiseOps.SUB_TENSOR, q, e.call(PointwiseOps.MUL_TENSOR, tau, e.call(LinalgOps.MATMUL, v, vtq)));
                }
                return k == 0 ? e.call(ShapeOps.CLONE, q, null) : q;
            });

    /** torch.orgqr, householder_product's older name. */
    public static final OpOverload ORGQR = ComposedOps.define("orgqr(Tensor self, Tensor input2) -> Tensor",
            a -> checkHouseholderProduct(a.tensor(0), a.tensor(1)),
            (e, a) -> e.call(LINALG_HOUSEHOLDER_PRODUCT, a[0], a[1]));

    public static final OpOverload LINALG_HOUSEHOLDER_PRODUCT_OUT = OutForms.of(
            "linalg_householder_product.out(Tensor input, Tensor tau, *, Tensor(a!) out) -> Tensor(a!)", LINALG_HOUSEHOLDER_PRODUCT);
    public static final OpOverload ORGQR_OUT = OutForms.of("orgqr.out(Tensor self, Tensor input2, *, Tensor(a!) out) -> Tensor(a!)", ORGQR);

    /** ATen's householder_product checks, in its order. */
    private static void checkHouseholderProduct(Tensor input, Tensor tau) {
        String op = "torch.linalg.householder_product";
        if (input.dim() < 2) throw new IllegalArgumentException(op + ": input must have at least 2 dimensions.");
        if (input.size(-2) < input.size(-1)) throw new IllegalArgumentException(op + ": input.shape[-2] must be greater than or equal to input.shape[-1]");
        if (tau.dim() == 0 || input.size(-1) < tau.size(-1)) {
            throw new IllegalArgumentException(op + ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
        }
        if (input.dim() - tau.dim() != 1) {
            throw new IllegalArgumentException(op + ": Expected tau to have one dimension less than input, but got tau.ndim equal to " + tau.dim()
                    + " and input.ndim is equal to " + input.dim());
        }
        int[] batch = Arrays.copyOf(input.shape(), input.dim() - 2), tauBatch = Arrays.copyOf(tau.shape(), tau.dim() - 1);
        if (!Arrays.equals(batch, tauBatch)) {
            throw new IllegalArgumentException(op + ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got " + Shapes.format(tauBatch));
        }
        if (tau.dtype() != input.dtype()) {
            throw new IllegalArgumentException(op + ": tau dtype " + tau.dtype().scalarTypeName() + " does not match input dtype "
                    + input.dtype().scalarTypeName());
        }
        if (!input.dtype().isFloatingPoint()) throw new IllegalArgumentException("\"orgqr_cpu\" not implemented for '" + input.dtype().scalarTypeName() + "'");
    }

    /** dgeqr2's column-by-column Householder QR (dlarfg's reflector: β = −sign(α)·‖(α, x)‖, τ = (β − α)/β, v = x/(α − β)). */
    private static List<Tensor> geqrf(Tensor A, List<?> metas) {
        int m = A.size(-2), n = A.size(-1), k = Math.min(m, n);
        double[] a = A.contiguous().toDoubleArray();
        int count = Shapes.numel(Arrays.copyOf(A.shape(), A.dim() - 2));
        double[] taus = new double[count * k];
        for (int b = 0; b < count; b++) {
            int base = b * m * n;
            for (int j = 0; j < k; j++) {
                double alpha = a[base + j * n + j], xnorm = 0;
                for (int i = j + 1; i < m; i++) xnorm = Math.hypot(xnorm, a[base + i * n + j]);
                double tau = 0;
                if (xnorm != 0) {
                    double beta = -Math.copySign(Math.hypot(alpha, xnorm), alpha);
                    tau = (beta - alpha) / beta;
                    double scale = 1 / (alpha - beta);
                    for (int i = j + 1; i < m; i++) a[base + i * n + j] *= scale;
                    a[base + j * n + j] = beta;
                }
                taus[b * k + j] = tau;
                if (tau == 0) continue;
                // H = I − τ v vᵀ on the columns to the right
                for (int c = j + 1; c < n; c++) {
                    double w = a[base + j * n + c];
                    for (int i = j + 1; i < m; i++) w += a[base + i * n + j] * a[base + i * n + c];
                    w *= tau;
                    a[base + j * n + c] -= w;
                    for (int i = j + 1; i < m; i++) a[base + i * n + c] -= w * a[base + i * n + j];
                }
            }
        }
        return List.of(LuOps.result(a, (TensorMeta) metas.get(0)), LuOps.result(taus, (TensorMeta) metas.get(1)));
    }
}
