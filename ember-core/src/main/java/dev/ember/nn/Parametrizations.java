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

        @Override
        protected String extraRepr() { return ""; }
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

        Tensor toMatrix(Tensor weight) {
            Tensor w = weight;
            if (dim != 0) {
                int[] order = new int[w.dim()];
                order[0] = dim;
                for (int i = 0, k = 1; i < w.dim(); i++) if (i != dim) order[k++] = i;
                w = w.permute(order);
            }
            return w.flatten(1);
        }

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

        @Override
        protected String extraRepr() { return ""; }
    }
}
