package dev.ember.nn;

import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code torch.nn.utils.parametrize}: a module's parameter or buffer computed from other tensors.
 * After {@code registerParametrization(linear, "weight", symmetric)} the layer's forward uses
 * {@code symmetric.forward(original)} as its weight, recomputed at every forward (so gradients
 * reach the original and an optimizer stepping the original changes the weight); the original is
 * a parameter of the child {@code parametrizations.weight} and saves under
 * {@code parametrizations.weight.original}, as in PyTorch.
 *
 * <p>A parametrization is a {@link Module} whose {@code forward(Tensor)} maps the original to the
 * value. It may implement {@link RightInverse} (PyTorch's {@code right_inverse}: run once when it
 * is registered to turn the current value into the original, and on
 * {@link ParametrizationList#rightInverse assignment}), or {@link SplitRightInverse} when the value
 * is made of several originals ({@code weight_norm}'s {@code original0}, {@code original1}).
 *
 * <p>Java cannot intercept a field read, so a module reads its tensors through
 * {@link Module#read}, as all built-in layers do (see {@link Module}); {@link Module#tensor(String)}
 * reads a parametrized tensor from outside.
 */
public final class Parametrize {
    private Parametrize() {}

    /** PyTorch's {@code right_inverse} returning one tensor. */
    public interface RightInverse {
        Tensor rightInverse(Tensor value);
    }

    /**
     * A parametrization of several originals: {@code rightInverse} splits the value into them
     * (they become {@code original0}, {@code original1}, …) and {@code forward(originals)} joins
     * them back. Only the first parametrization of a tensor may be one.
     */
    public interface SplitRightInverse {
        List<Tensor> rightInverse(Tensor value);

        Tensor forward(List<Tensor> originals);
    }

    /** {@link #registerParametrization(Module, String, Module, boolean)} with the shape and dtype checks ({@code unsafe = false}). */
    public static Module registerParametrization(Module module, String tensorName, Module parametrization) {
        return registerParametrization(module, tensorName, parametrization, false);
    }

    /**
     * Parametrizes {@code module}'s parameter or buffer {@code tensorName} with
     * {@code parametrization}, or appends it to the ones already there. Unless {@code unsafe}, the
     * parametrization must keep the tensor's shape and dtype (PyTorch's checks and words).
     *
     * @return {@code module}
     */
    public static Module registerParametrization(Module module, String tensorName, Module parametrization, boolean unsafe) {
        if (parametrization == null) throw new IllegalArgumentException("register_parametrization: the parametrization is null");
        parametrization.train(module.isTraining());
        if (isParametrized(module, tensorName)) {
            if (parametrization instanceof SplitRightInverse) {
                throw new IllegalArgumentException("only the first parametrization of '" + tensorName + "' may split it into several tensors");
            }
            ParametrizationList list = module.parametrizations(false).get(tensorName);
            if (!unsafe) checkAppended(module, tensorName, parametrization);
            list.append(parametrization);
            list.unsafe |= unsafe;
        } else if (module.hasTensorSlot(tensorName) && module.tensor(tensorName) != null) {
            Tensor original = module.tensor(tensorName);
            ParametrizationList list = new ParametrizationList(parametrization, original, unsafe);   // checks before anything moves
            module.takeTensorSlot(tensorName);
            module.parametrizations(true).put(tensorName, list);
        } else {
            throw new IllegalArgumentException("Module '" + module + "' does not have a parameter, a buffer, or a parametrized element with name '" + tensorName + "'");
        }
        return module;
    }

    /** PyTorch's checks on a parametrization appended to others: it must map the current value to one of the same shape and dtype. */
    private static void checkAppended(Module module, String tensorName, Module parametrization) {
        Tensor y, x;
        try (var unused = dev.ember.autograd.GradMode.noGrad()) {
            y = module.tensor(tensorName);
            x = parametrization.call(y);
        }
        if (x.dtype() != y.dtype()) {
            throw new IllegalArgumentException("Registering a parametrization may not change the dtype of the tensor, unless the `unsafe` flag is enabled.\n"
                    + "module." + tensorName + ".dtype: " + y.dtype().torchName() + "\nparametrization(module." + tensorName + ").dtype: " + x.dtype().torchName());
        }
        if (!Shapes.same(x.shape(), y.shape())) {
            throw new IllegalArgumentException("Registering a parametrization may not change the shape of the tensor, unless the `unsafe` flag is enabled.\n"
                    + "module." + tensorName + ".shape: torch.Size(" + Shapes.format(y.shape()) + ")\nparametrization(module." + tensorName + ").shape: torch.Size("
                    + Shapes.format(x.shape()) + ")");
        }
    }

    /** Whether any tensor of {@code module} (not of its submodules) is parametrized. */
    public static boolean isParametrized(Module module) {
        ModuleDict<ParametrizationList> p = module.parametrizations(false);
        return p != null && p.size() > 0;
    }

    /** Whether {@code module}'s tensor {@code tensorName} is parametrized. */
    public static boolean isParametrized(Module module, String tensorName) {
        ModuleDict<ParametrizationList> p = module.parametrizations(false);
        return p != null && p.containsKey(tensorName);
    }

    /** The parametrizations of {@code tensorName} ({@code module.parametrizations[tensor_name]}). */
    public static ParametrizationList parametrizations(Module module, String tensorName) {
        if (!isParametrized(module, tensorName)) throw new IllegalArgumentException("Module " + module + " does not have a parametrization on " + tensorName);
        return module.parametrizations(false).get(tensorName);
    }

    /** {@link #removeParametrizations(Module, String, boolean)} leaving the tensor parametrized. */
    public static Module removeParametrizations(Module module, String tensorName) { return removeParametrizations(module, tensorName, true); }

    /**
     * Removes the parametrizations of {@code tensorName}. With {@code leaveParametrized} the tensor
     * keeps its current parametrized value (written into the original, which keeps its identity, so
     * an optimizer holding it still works; several originals give a new parameter); without, it
     * goes back to the original.
     */
    public static Module removeParametrizations(Module module, String tensorName, boolean leaveParametrized) {
        if (!isParametrized(module, tensorName)) throw new IllegalArgumentException("Module " + module + " does not have a parametrization on " + tensorName);
        ParametrizationList list = module.parametrizations(false).get(tensorName);
        Tensor restored;
        if (list.isTensor()) {
            Tensor original = list.original();
            if (leaveParametrized) {
                Tensor t;
                try (var unused = dev.ember.autograd.GradMode.noGrad()) {
                    t = list.compute();
                }
                if (t.dtype() != original.dtype()) {
                    throw new IllegalArgumentException("The parametrization changes the dtype of the tensor from " + original.dtype().torchName() + " to "
                            + t.dtype().torchName() + ". It is not supported to leave the tensor parametrized (`leave_parametrized=True`) in this case.");
                }
                if (Shapes.same(t.shape(), original.shape())) {
                    try (var unused = dev.ember.autograd.GradMode.noGrad()) {
                        original.copy_(t);
                    }
                    restored = original;
                } else {
                    restored = original instanceof Parameter p ? new Parameter(t.detach().contiguous(), p.requiresGrad()) : t.detach().contiguous();
                }
            } else {
                restored = original;
            }
        } else {
            if (!leaveParametrized) {
                throw new IllegalArgumentException("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in terms of a sequence of tensors.");
            }
            Tensor t = list.compute();
            restored = t.requiresGrad() ? new Parameter(t.detach(), true) : t.detach();
        }
        module.parametrizations(false).remove(tensorName);
        module.dropParametrizationsIfEmpty();
        module.restoreTensorSlot(tensorName, restored);
        return module;
    }

    // ------------------------------------------------------------------ cached()

    private static int cacheDepth;
    private static final Map<Module, Map<String, Tensor>> CACHE = new IdentityHashMap<>();

    /**
     * PyTorch's {@code with parametrize.cached():}: while the returned scope is open, each
     * parametrized tensor is computed once, at its first read, and that value is reused (a model
     * reading one weight several times, as a recurrent layer does at every step, computes it once).
     * Scopes nest; the cache is emptied when the outermost closes.
     */
    public static Scope cached() {
        synchronized (CACHE) {
            cacheDepth++;
        }
        return new Scope();
    }

    /** The open {@link #cached()} region; closing it ends it. */
    public static final class Scope implements AutoCloseable {
        private boolean closed;

        private Scope() {}

        @Override
        public void close() {
            if (closed) return;
            closed = true;
            synchronized (CACHE) {
                if (--cacheDepth == 0) CACHE.clear();
            }
        }
    }

    static Tensor cachedOr(Module owner, String name, ParametrizationList list) {
        if (cacheDepth == 0) return list.compute();
        synchronized (CACHE) {
            Tensor t = CACHE.computeIfAbsent(owner, m -> new java.util.HashMap<>()).get(name);
            if (t == null) {
                t = list.compute();
                CACHE.get(owner).put(name, t);
            }
            return t;
        }
    }
}
