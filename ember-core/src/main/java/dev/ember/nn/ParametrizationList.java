package dev.ember.nn;

import dev.ember.autograd.GradMode;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;

/**
 * The parametrizations of one tensor of a module and the tensor(s) they start from, as PyTorch's
 * {@code torch.nn.utils.parametrize.ParametrizationList}: it lives at
 * {@code module.parametrizations.<name>}, holds the original as {@code original} (or, when the
 * first parametrization's right inverse splits it, {@code original0}, {@code original1}, …) and
 * the parametrizations as children {@code 0}, {@code 1}, …; the parametrized value is
 * {@code pₙ(…p₁(p₀(original)))}. Made by {@link Parametrize#registerParametrization}.
 */
public final class ParametrizationList extends ModuleList<Module> {
    /** Whether the shape and dtype checks were waived (PyTorch's {@code unsafe}). */
    boolean unsafe;
    /** False when the first parametrization's right inverse split the original into several tensors. */
    private final boolean isTensor;
    private final int ntensors;

    ParametrizationList(Module parametrization, Tensor original, boolean unsafe) {
        super(parametrization);
        this.unsafe = unsafe;
        int[] originalShape = original.shape();
        var originalDtype = original.dtype();
        List<Tensor> split = null;
        Tensor single = original;
        try (var unused = GradMode.noGrad()) {
            if (parametrization instanceof Parametrize.SplitRightInverse s) {
                split = s.rightInverse(original);
            } else if (parametrization instanceof Parametrize.RightInverse r) {
                single = r.rightInverse(original);
            }
        }
        this.isTensor = split == null;
        this.ntensors = isTensor ? 1 : split.size();
        if (isTensor) {
            if (single == null) throw new IllegalArgumentException("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). Got NoneType");
            if (single.dtype() != originalDtype) {
                throw new IllegalArgumentException("When `right_inverse` outputs one tensor, it may not change the dtype.\noriginal.dtype: "
                        + originalDtype.torchName() + "\nright_inverse(original).dtype: " + single.dtype().torchName());
            }
            registerOriginal("original", setInto(original, single));
        } else {
            for (int i = 0; i < split.size(); i++) {
                Tensor t = split.get(i);
                if (t == null) {
                    throw new IllegalArgumentException("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). Got element " + i
                            + " of the sequence with type NoneType.");
                }
                Tensor stored = original instanceof Parameter ? new Parameter(t.detach(), original.requiresGrad()) : t.detach().requiresGrad(original.requiresGrad());
                registerOriginal("original" + i, stored);
            }
        }
        if (!unsafe) {
            Tensor z;
            try (var unused = GradMode.noGrad()) {
                z = compute();
            }
            if (z.dtype() != originalDtype) {
                throw new IllegalArgumentException("Registering a parametrization may not change the dtype of the tensor, unless `unsafe` flag is enabled.\n"
                        + "unparametrized dtype: " + originalDtype.torchName() + "\nparametrized dtype: " + z.dtype().torchName());
            }
            if (!Shapes.same(z.shape(), originalShape)) {
                throw new IllegalArgumentException("Registering a parametrization may not change the shape of the tensor, unless `unsafe` flag is enabled.\n"
                        + "unparametrized shape: torch.Size(" + Shapes.format(originalShape) + ")\nparametrized shape: torch.Size(" + Shapes.format(z.shape()) + ")");
            }
        }
    }

    private void registerOriginal(String name, Tensor t) {
        if (t instanceof Parameter p) registerParameter(name, p);
        else registerBuffer(name, t);
    }

    /**
     * PyTorch's {@code _maybe_set(original, new)}: the original keeps its identity (an optimizer
     * holding it keeps working) and takes the new value; a value of another shape needs a new
     * tensor of the original's kind.
     */
    private static Tensor setInto(Tensor original, Tensor value) {
        if (value == original) return original;
        if (Shapes.same(value.shape(), original.shape())) {
            try (var unused = GradMode.noGrad()) {
                original.copy_(value);
            }
            return original;
        }
        return original instanceof Parameter ? new Parameter(value.detach().contiguous(), original.requiresGrad()) : value.detach().contiguous();
    }

    /** Whether the original was split into several tensors ({@code original0}, {@code original1}, …) by the first right inverse. */
    public boolean isTensor() { return isTensor; }

    /** {@code original}, for a parametrization of one tensor. */
    public Tensor original() {
        if (!isTensor) throw new IllegalArgumentException("ParametrizationList has no 'original': its right inverse split it into original0 … original" + (ntensors - 1));
        return tensor("original");
    }

    /** {@code original0}, {@code original1}, … (or just {@code original}). */
    public List<Tensor> originals() {
        if (isTensor) return List.of(tensor("original"));
        List<Tensor> out = new ArrayList<>(ntensors);
        for (int i = 0; i < ntensors; i++) out.add(tensor("original" + i));
        return out;
    }

    /** The parametrized value, {@code pₙ(…p₀(original))}; each parametrization runs through {@link Module#call} (its hooks too). */
    public Tensor compute() {
        Module first = get(0);
        Tensor x = isTensor ? first.call(tensor("original")) : ((Parametrize.SplitRightInverse) first).forward(originals());
        for (int i = 1; i < size(); i++) x = get(i).call(x);
        return x;
    }

    /** The value read through {@code owner.read(name, …)}: computed, or from the cache while {@link Parametrize#cached()} is open. */
    Tensor value(Module owner, String name) { return Parametrize.cachedOr(owner, name, this); }

    /**
     * Assigning to the parametrized tensor ({@code module.weight = value} in PyTorch): the right
     * inverses, last to first, give the originals, which are overwritten in place.
     */
    public void rightInverse(Tensor value) {
        try (var unused = GradMode.noGrad()) {
            Object v = value;
            for (int i = size() - 1; i >= 0; i--) {
                Module m = get(i);
                if (i == 0 && m instanceof Parametrize.SplitRightInverse s) {
                    v = s.rightInverse((Tensor) v);
                } else if (m instanceof Parametrize.RightInverse r) {
                    v = r.rightInverse((Tensor) v);
                } else {
                    throw new IllegalStateException("parametrization " + m.getClass().getSimpleName() + " does not implement right_inverse.");
                }
            }
            if (isTensor) {
                Tensor t = (Tensor) v;
                Tensor original = tensor("original");
                if (t.dtype() != original.dtype()) {
                    throw new IllegalArgumentException("The tensor returned by `right_inverse` has dtype " + t.dtype().torchName() + " while `original` has dtype "
                            + original.dtype().torchName());
                }
                Tensor stored = setInto(original, t);
                if (stored != original) restoreTensorSlot("original", stored);
            } else {
                @SuppressWarnings("unchecked")
                List<Tensor> parts = (List<Tensor>) v;
                if (parts.size() != ntensors) {
                    throw new IllegalArgumentException("'value' has length " + parts.size() + " but it needs to have length " + ntensors);
                }
                for (int i = 0; i < ntensors; i++) {
                    Tensor original = tensor("original" + i), t = parts.get(i);
                    if (t.dtype() != original.dtype()) {
                        throw new IllegalArgumentException("Tensor " + i + " returned by `right_inverse` has dtype " + t.dtype().torchName()
                                + " while `original" + i + "` has dtype " + original.dtype().torchName());
                    }
                    Tensor stored = setInto(original, t);
                    if (stored != original) restoreTensorSlot("original" + i, stored);
                }
            }
        }
    }
}
