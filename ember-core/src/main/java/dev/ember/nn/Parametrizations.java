package dev.ember.nn;

import dev.ember.autograd.GradMode;
import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * {@code torch.nn.utils.parametrizations}: {@link #weightNorm weight_norm} and
 * {@link #spectralNorm spectral_norm} as {@link Parametrize parametrizations} (the originals are
 * {@code parametrizations.weight.original0/1}, or {@code original} with spectral norm's {@code _u}
 * and {@code _v} in {@code parametrizations.weight.0}), as PyTorch's.
 */
public final class Parametrizations {
    private Parametrizations() {}

    // ------------------------------------------------------------------ weight_norm

    /** {@link #weightNorm(Module, String, Integer)} of {@code weight} along dim 0. */
    public static Module weightNorm(Module module) { return weightNorm(module, "weight", 0); }

    /**
     * {@code weight = g · v / ‖v‖}, the norm over every dim but {@code dim} ({@code null}: over the
     * whole tensor), with {@code g} ({@code original0}) and {@code v} ({@code original1}) learned.
     * A state dict with old-style {@code weight_g}/{@code weight_v} keys loads too, as in PyTorch.
     */
    public static Module weightNorm(Module module, String name, Integer dim) {
        Parametrize.registerParametrization(module, name, new WeightNormParametrization(dim == null ? -1 : dim), true);
        module.addLoadStateDictPreHook((stateDict, prefix) -> {
            String g = prefix + name + "_g", v = prefix + name + "_v";
            if (stateDict.containsKey(g) && stateDict.containsKey(v)) {
                stateDict.put(prefix + "parametrizations." + name + ".original0", stateDict.remove(g));
                stateDict.put(prefix + "parametrizations." + name + ".original1", stateDict.remove(v));
            }
        });
        return module;
    }

    /** PyTorch's {@code _WeightNorm}: {@code torch._weight_norm(v, g, dim)}. */
    public static final class WeightNormParametrization extends Module implements Parametrize.SplitRightInverse {
        public final int dim;

        public WeightNormParametrization(int dim) { this.dim = dim; }

        @Override
        public Tensor forward(List<Tensor> originals) { return weightNormOf(originals.get(1), originals.get(0), dim); }

        @Override
        public List<Tensor> rightInverse(Tensor weight) { return List.of(normExceptDim(weight, dim), weight); }
    }

    /** ATen's {@code _weight_norm(v, g, dim)}: {@code v · g / norm_except_dim(v, 2, dim)}. */
    static Tensor weightNormOf(Tensor v, Tensor g, int dim) { return v.mul(g.div(normExceptDim(v, dim))); }

    /** ATen's {@code norm_except_dim(v, 2, dim)}: the 2-norm over every dim but {@code dim}, kept as size-1 dims; dim -1 is the whole tensor's norm. */
    static Tensor normExceptDim(Tensor v, int dim) {
        if (dim == -1) return v.norm(2.0);
        int rank = v.dim();
        if (dim < -rank || dim >= rank) {
            throw new IndexOutOfBoundsException("Dimension out of range (expected to be in range of [" + (-rank) + ", " + (rank - 1) + "], but got " + dim + ")");
        }
        int d = dim < 0 ? dim + rank : dim;
        int[] others = new int[rank - 1];
        for (int i = 0, k = 0; i < rank; i++) if (i != d) others[k++] = i;
        return others.length == 0 ? v.abs() : v.norm(2.0, others, true);
    }

    // ------------------------------------------------------------------ spectral_norm

    /** {@link #spectralNorm(Module, String, int, double, Integer)} of {@code weight}: one power iteration, eps 1e-12, dim 0 (1 for transposed convolutions). */
    public static Module spectralNorm(Module module) { return spectralNorm(module, "weight", 1, 1e-12, null); }

    /**
     * {@code weight / σ(weight)}, σ the largest singular value of the weight flattened to a matrix
     * around {@code dim}, estimated by power iteration: {@code nPowerIterations} steps at each
     * forward in training mode, updating the buffers {@code _u} and {@code _v}
     * ({@code parametrizations.weight.0._u}); a 1-d weight is simply normalized.
     */
    public static Module spectralNorm(Module module, String name, int nPowerIterations, double eps, Integer dim) {
        Tensor weight = module.hasTensorSlot(name) || Parametrize.isParametrized(module, name) ? module.tensor(name) : null;
        if (weight == null) throw new IllegalArgumentException("Module '" + module + "' has no parameter or buffer with name '" + name + "'");
        int d = dim != null ? dim : module instanceof ConvTransposeNd ? 1 : 0;
        Parametrize.registerParametrization(module, name, new SpectralNormParametrization(weight, nPowerIterations, d, eps));
        return module;
    }

    /** PyTorch's {@code _SpectralNorm}. */
    public static final class SpectralNormParametrization extends Module implements Parametrize.RightInverse {
        public final int dim;
        public final double eps;
        public final int nPowerIterations;
        /** The left and right singular vector estimates (absent for a 1-d weight). */
        public Tensor _u;
        public Tensor _v;

        public SpectralNormParametrization(Tensor weight, int nPowerIterations, int dim, double eps) {
            int ndim = weight.dim();
            if (dim >= ndim || dim < -ndim) {
                throw new IndexOutOfBoundsException("Dimension out of range (expected to be in range of [" + (-ndim) + ", " + (ndim - 1) + "] but got " + dim + ")");
            }
            if (nPowerIterations <= 0) {
                throw new IllegalArgumentException("Expected n_power_iterations to be positive, but got n_power_iterations=" + nPowerIterations);
            }
            this.dim = dim >= 0 ? dim : dim + ndim;
            this.eps = eps;
            this.nPowerIterations = nPowerIterations;
            if (ndim > 1) {
                try (var unused = GradMode.noGrad()) {
                    Tensor mat = toMatrix(weight.detach());
                    int h = mat.shape()[0], w = mat.shape()[1];
                    _u = F.normalize(Tensor.empty(weight.dtype(), h).normal_(0, 1), 2.0, 0, eps);
                    _v = F.normalize(Tensor.empty(weight.dtype(), w).normal_(0, 1), 2.0, 0, eps);
                    powerMethod(mat, 15);
                }
            }
        }

        Tensor toMatrix(Tensor weight) { return SpectralNorm.asMatrix(weight, dim); }

        /** The power iteration, in place in {@code _u} and {@code _v}, outside autograd (as PyTorch's {@code out=}). */
        void powerMethod(Tensor weightMat, int iterations) {
            try (var unused = GradMode.noGrad()) {
                for (int i = 0; i < iterations; i++) {
                    _u.copy_(F.normalize(weightMat.mv(_v), 2.0, 0, eps));
                    _v.copy_(F.normalize(weightMat.t().mv(_u), 2.0, 0, eps));
                }
            }
        }

        @Override
        public Tensor forward(Tensor weight) {
            if (weight.dim() == 1) return F.normalize(weight, 2.0, 0, eps);
            Tensor mat = toMatrix(weight);
            if (isTraining()) powerMethod(mat.detach(), nPowerIterations);
            Tensor u = _u.clone(), v = _v.clone();
            Tensor sigma = u.vdot(mat.mv(v));
            return weight.div(sigma);
        }

        @Override
        public Tensor rightInverse(Tensor value) { return value; }
    }

    // ------------------------------------------------------------------ orthogonal

    /** {@link #orthogonal(Module, String, String, boolean)} of {@code weight}: the default map, trivialization on. */
    public static Module orthogonal(Module module) { return orthogonal(module, "weight", null, true); }

    /**
     * Keeps {@code name} an orthogonal matrix (or a batch of them; for a non-square one, its columns
     * or rows orthonormal), as PyTorch's {@code orthogonal}: {@code orthogonalMap} is
     * {@code "matrix_exp"} (the default for a square matrix), {@code "cayley"} or
     * {@code "householder"} (the default otherwise). With {@code useTrivialization} the current
     * weight, made orthogonal, becomes the buffer {@code base} and the original starts at -I (so the
     * initial weight is kept); assigning through {@link ParametrizationList#rightInverse} works.
     */
    public static Module orthogonal(Module module, String name, String orthogonalMap, boolean useTrivialization) {
        Tensor weight = module.hasTensorSlot(name) || Parametrize.isParametrized(module, name) ? module.tensor(name) : null;
        if (weight == null) throw new IllegalArgumentException("Module '" + module + "' has no parameter or buffer with name '" + name + "'");
        if (weight.dim() < 2) throw new IllegalArgumentException("Expected a matrix or batch of matrices. Got a tensor of " + weight.dim() + " dimensions.");
        int[] shape = weight.shape();
        String map = orthogonalMap != null ? orthogonalMap : shape[shape.length - 2] == shape[shape.length - 1] ? "matrix_exp" : "householder";
        if (!List.of("matrix_exp", "cayley", "householder").contains(map)) {
            throw new IllegalArgumentException("orthogonal_map has to be one of \"matrix_exp\", \"cayley\", \"householder\". Got: " + map);
        }
        Parametrize.registerParametrization(module, name, new OrthogonalParametrization(weight, map, useTrivialization), true);
        return module;
    }

    /** PyTorch's {@code _Orthogonal}. */
    public static final class OrthogonalParametrization extends Module implements Parametrize.RightInverse {
        public final String orthogonalMap;
        private final int[] shape;
        private final boolean useTrivialization;
        /** The orthogonal matrix the parametrization starts from (trivialization only). */
        public Tensor base;

        public OrthogonalParametrization(Tensor weight, String orthogonalMap, boolean useTrivialization) {
            this.shape = weight.shape();
            this.orthogonalMap = orthogonalMap;
            this.useTrivialization = useTrivialization;
        }

        @Override
        public Tensor forward(Tensor x) {
            int n = x.shape()[x.dim() - 2], k = x.shape()[x.dim() - 1];
            boolean transposed = n < k;
            if (transposed) {
                x = x.mT();
                int t = n;
                n = k;
                k = t;
            }
            Tensor q;
            if (!orthogonalMap.equals("householder")) {
                x = x.tril();
                if (n != k) {
                    int[] zerosShape = x.shape().clone();
                    zerosShape[zerosShape.length - 1] = n - k;
                    x = Tensor.cat(List.of(x, Tensor.zeros(x.dtype(), zerosShape)), -1);
                }
                Tensor a = x.sub(x.mT());
                if (orthogonalMap.equals("matrix_exp")) {
                    q = a.matrixExp();
                } else {
                    Tensor id = Tensor.eye(n).to(a.dtype());
                    q = Tensor.linalgSolve(id.sub(a.mul(0.5)), id.add(a.mul(0.5)));
                }
                if (n != k) q = q.narrow(-1, 0, k);
            } else {
                Tensor a = x.tril(-1);
                Tensor tau = a.mul(a).sum(new int[] {-2}, false).add(1.0).reciprocal().mul(2.0);
                q = dev.ember.ops.HouseholderOps.LINALG_HOUSEHOLDER_PRODUCT.callTensor(a, tau);
                q = q.mul(x.diagonal(0, -2, -1).to(dev.ember.tensor.DType.INT32).unsqueeze(-2));
            }
            if (useTrivialization && base != null) q = base.matmul(q);
            return transposed ? q.mT() : q;
        }

        @Override
        public Tensor rightInverse(Tensor q) {
            try (var unused = GradMode.noGrad()) {
                if (!dev.ember.tensor.Shapes.same(q.shape(), shape)) {
                    throw new IllegalArgumentException("Expected a matrix or batch of matrices of shape torch.Size(" + dev.ember.tensor.Shapes.format(shape)
                            + "). Got a tensor of shape torch.Size(" + dev.ember.tensor.Shapes.format(q.shape()) + ").");
                }
                Tensor qInit = q;
                int n = q.shape()[q.dim() - 2], k = q.shape()[q.dim() - 1];
                boolean transpose = n < k;
                if (transpose) {
                    q = q.mT();
                    int t = n;
                    n = k;
                    k = t;
                }
                if (!useTrivialization) {
                    if (!orthogonalMap.equals("householder")) {
                        throw new UnsupportedOperationException("It is not possible to assign to the matrix exponential or the Cayley parametrizations when use_trivialization=False.");
                    }
                    List<Tensor> qr = dev.ember.ops.HouseholderOps.GEQRF.callList(q);
                    Tensor a = qr.get(0).clone(), tau = qr.get(1);
                    Tensor diag = a.diagonal(0, -2, -1);
                    Tensor signs = diag.sign().mul(tau.eq(0.0).to(a.dtype()).mul(-2.0).add(1.0));   // LAPACK's unused reflections (tau 0) flip
                    diag.copy_(signs);
                    return transpose ? a.mT() : a;
                }
                if (n == k) {
                    q = isOrthogonal(q) ? q.clone() : makeOrthogonal(q);
                } else {
                    int[] extra = q.shape().clone();
                    extra[extra.length - 1] = n - k;
                    q = makeOrthogonal(Tensor.cat(List.of(q, Tensor.randn(extra).to(q.dtype())), -1));
                }
                base = q;
                Tensor negId = Tensor.zeros(qInit.dtype(), qInit.shape());
                negId.diagonal(0, -2, -1).fill_(-1.0);
                return negId;
            }
        }

        private static boolean isOrthogonal(Tensor q) {
            int n = q.shape()[q.dim() - 2], k = q.shape()[q.dim() - 1];
            double eps = 10.0 * n * (q.dtype() == dev.ember.tensor.DType.FLOAT64 ? Math.ulp(1.0) : Math.ulp(1.0f));
            Tensor id = Tensor.eye(k).to(q.dtype());   // torch.allclose(Q.mH @ Q, Id, atol=eps): |a - b| <= eps + 1e-5·|b|
            return q.mT().matmul(q).sub(id).abs().sub(id.mul(1e-5).add(eps)).max().item() <= 0;
        }

        private static Tensor makeOrthogonal(Tensor a) {
            List<Tensor> qr = dev.ember.ops.HouseholderOps.GEQRF.callList(a);
            Tensor q = dev.ember.ops.HouseholderOps.LINALG_HOUSEHOLDER_PRODUCT.callTensor(qr.get(0), qr.get(1));
            return q.mul(qr.get(0).diagonal(0, -2, -1).sgn().unsqueeze(-2));
        }
    }
}
