package dev.ember.nn;

import dev.ember.autograd.GradMode;
import dev.ember.tensor.Tensor;

/**
 * The old-style {@code torch.nn.utils.spectral_norm}: the parameter {@code weight} becomes
 * {@code weight_orig}, with the buffers {@code weight_u} and {@code weight_v} (singular vector
 * estimates), and this forward pre-hook computes {@code weight = weight_orig / σ} before each
 * {@link Module#call}, σ estimated by power iteration (run, and the buffers updated, in training
 * mode only), as PyTorch's hook. The newer {@link Parametrizations#spectralNorm} recomputes at
 * every read instead.
 */
public final class SpectralNorm implements ForwardPreHook {
    public final String name;
    public final int nPowerIterations;
    public final int dim;
    public final double eps;

    private SpectralNorm(String name, int nPowerIterations, int dim, double eps) {
        if (nPowerIterations <= 0) {
            throw new IllegalArgumentException("Expected n_power_iterations to be positive, but got n_power_iterations=" + nPowerIterations);
        }
        this.name = name;
        this.nPowerIterations = nPowerIterations;
        this.dim = dim;
        this.eps = eps;
    }

    /** {@link #spectralNorm(Module, String, int, double, Integer)} of {@code weight}: one power iteration, eps 1e-12, dim 0 (1 for transposed convolutions). */
    public static Module spectralNorm(Module module) { return spectralNorm(module, "weight", 1, 1e-12, null); }

    public static Module spectralNorm(Module module, String name, int nPowerIterations, double eps, Integer dim) {
        for (ForwardPreHook hook : module.forwardPreHooks()) {
            if (hook instanceof SpectralNorm s && s.name.equals(name)) {
                throw new IllegalStateException("Cannot register two spectral_norm hooks on the same parameter " + name);
            }
        }
        if (!module.hasTensorSlot(name) || !module.isParameterSlot(name) || module.tensor(name) == null) {
            throw new IllegalArgumentException("Module '" + module + "' has no parameter '" + name + "'");
        }
        int d = dim != null ? dim : module instanceof ConvTransposeNd ? 1 : 0;
        SpectralNorm fn = new SpectralNorm(name, nPowerIterations, d, eps);
        Tensor weight = module.tensor(name);
        Tensor u, v;
        try (var unused = GradMode.noGrad()) {
            Tensor mat = fn.toMatrix(weight);
            u = F.normalize(Tensor.empty(weight.dtype(), mat.shape()[0]).normal_(0, 1), 2.0, 0, eps);
            v = F.normalize(Tensor.empty(weight.dtype(), mat.shape()[1]).normal_(0, 1), 2.0, 0, eps);
        }
        module.takeTensorSlot(name);
        module.registerParameter(name + "_orig", (Parameter) weight);
        module.setComputedTensor(name, weight.detach());
        module.registerBuffer(name + "_u", u);
        module.registerBuffer(name + "_v", v);
        module.registerForwardPreHook(fn);
        return module;
    }

    /** Undoes {@link #spectralNorm}: {@code name} comes back as a parameter holding the current normalized weight (no power iteration). */
    public static Module removeSpectralNorm(Module module, String name) {
        for (ForwardPreHook hook : module.forwardPreHooks()) {
            if (hook instanceof SpectralNorm s && s.name.equals(name)) {
                Tensor weight;
                try (var unused = GradMode.noGrad()) {
                    weight = s.compute(module, false);
                }
                module.setComputedTensor(name, null);
                module.removeRegisteredParameter(name + "_orig");
                module.removeRegisteredBuffer(name + "_u");
                module.removeRegisteredBuffer(name + "_v");
                module.forwardPreHooks().remove(hook);
                module.restoreTensorSlot(name, new Parameter(weight.detach()));
                return module;
            }
        }
        throw new IllegalArgumentException("spectral_norm of '" + name + "' not found in " + module);
    }

    private Tensor toMatrix(Tensor weight) { return asMatrix(weight, dim); }

    /** {@code weight} with dim {@code dim} first and the rest flattened: the matrix spectral norm's power iteration runs on (both styles). */
    static Tensor asMatrix(Tensor weight, int dim) {
        Tensor w = weight;
        if (dim != 0) {
            int[] order = new int[w.dim()];
            order[0] = dim;
            for (int i = 0, k = 1; i < w.dim(); i++) if (i != dim) order[k++] = i;
            w = w.permute(order);
        }
        return w.dim() == 1 ? w.reshape(w.shape()[0], 1) : w.flatten(1);   // flatten keeps a zero-size weight's shape, where reshape's -1 is ambiguous
    }

    Tensor compute(Module module, boolean doPowerIteration) {
        Tensor weight = module.parameter(name + "_orig"), u = module.buffer(name + "_u"), v = module.buffer(name + "_v");
        Tensor mat = toMatrix(weight);
        if (doPowerIteration) {
            try (var unused = GradMode.noGrad()) {
                for (int i = 0; i < nPowerIterations; i++) {
                    v.copy_(F.normalize(mat.t().mv(u), 2.0, 0, eps));
                    u.copy_(F.normalize(mat.mv(v), 2.0, 0, eps));
                }
            }
            u = u.clone();
            v = v.clone();
        }
        Tensor sigma = u.dot(mat.mv(v));
        return weight.div(sigma);
    }

    @Override
    public Tensor apply(Module module, Tensor input) {
        module.setComputedTensor(name, compute(module, module.isTraining()));
        return null;
    }
}
