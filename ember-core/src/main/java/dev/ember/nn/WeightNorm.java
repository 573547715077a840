package dev.ember.nn;

import dev.ember.autograd.GradMode;
import dev.ember.tensor.Tensor;

/**
 * The old-style {@code torch.nn.utils.weight_norm}: the parameter {@code weight} is replaced by
 * {@code weight_g} (its norm over every dim but {@code dim}) and {@code weight_v} (its direction),
 * and this forward pre-hook computes {@code weight = weight_g · weight_v / ‖weight_v‖} before each
 * {@link Module#call}, as PyTorch's hook sets the attribute {@code module.weight}. The newer
 * {@link Parametrizations#weightNorm} recomputes at every read instead.
 */
public final class WeightNorm implements ForwardPreHook {
    public final String name;
    /** The kept dim; -1: the norm is over the whole tensor. */
    public final int dim;

    private WeightNorm(String name, int dim) {
        this.name = name;
        this.dim = dim;
    }

    /** {@link #weightNorm(Module, String, Integer)} of {@code weight} along dim 0. */
    public static Module weightNorm(Module module) { return weightNorm(module, "weight", 0); }

    /** Applies weight normalization to {@code module}'s parameter {@code name} ({@code dim} null: over the whole tensor); returns the module. */
    public static Module weightNorm(Module module, String name, Integer dim) {
        for (ForwardPreHook hook : module.forwardPreHooks()) {
            if (hook instanceof WeightNorm w && w.name.equals(name)) {
                throw new IllegalStateException("Cannot register two weight_norm hooks on the same parameter " + name);
            }
        }
        if (!module.hasTensorSlot(name) || !module.isParameterSlot(name) || module.tensor(name) == null) {
            throw new IllegalArgumentException("Module '" + module + "' has no parameter '" + name + "'");
        }
        WeightNorm fn = new WeightNorm(name, dim == null ? -1 : dim);
        Tensor weight = module.takeTensorSlot(name);
        try (var unused = GradMode.noGrad()) {
            module.registerParameter(name + "_g", new Parameter(Parametrizations.normExceptDim(weight.detach(), fn.dim).contiguous()));
        }
        module.registerParameter(name + "_v", new Parameter(weight.detach()));
        module.setComputedTensor(name, fn.compute(module));
        module.registerForwardPreHook(fn);
        return module;
    }

    /** Undoes {@link #weightNorm}: the parameter {@code name} comes back holding the current computed weight. */
    public static Module removeWeightNorm(Module module, String name) {
        for (ForwardPreHook hook : module.forwardPreHooks()) {
            if (hook instanceof WeightNorm w && w.name.equals(name)) {
                Tensor weight = w.compute(module);
                module.setComputedTensor(name, null);
                module.removeRegisteredParameter(name + "_g");
                module.removeRegisteredParameter(name + "_v");
                module.forwardPreHooks().remove(hook);
                module.restoreTensorSlot(name, new Parameter(weight.detach()));
                return module;
            }
        }
        throw new IllegalArgumentException("weight_norm of '" + name + "' not found in " + module);
    }

    Tensor compute(Module module) {
        return Parametrizations.weightNormOf(module.parameter(name + "_v"), module.parameter(name + "_g"), dim);
    }

    @Override
    public Tensor apply(Module module, Tensor input) {
        module.setComputedTensor(name, compute(module));
        return null;
    }
}
