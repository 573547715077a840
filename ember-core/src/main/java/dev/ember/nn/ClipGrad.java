package dev.ember.nn;

import dev.ember.autograd.GradMode;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;

/**
 * Gradient clipping, as PyTorch's {@code torch.nn.utils.clip_grad_norm_} and
 * {@code clip_grad_value_}: called between {@code backward()} and the optimizer's {@code step()},
 * they rescale or clamp every parameter's {@link Tensor#grad()} in place. Parameters without a
 * gradient are skipped.
 *
 * <pre>{@code
 * loss.backward();
 * Tensor total = ClipGrad.clipGradNorm_(model.parameters(), 1.0);   // the norm before clipping
 * optimizer.step();
 * }</pre>
 */
public final class ClipGrad {
    private ClipGrad() {}

    /** {@link #clipGradNorm_(Iterable, double, double, boolean)} with the 2-norm, non-finite norms allowed. */
    public static Tensor clipGradNorm_(Iterable<? extends Tensor> parameters, double maxNorm) { return clipGradNorm_(parameters, maxNorm, 2.0, false); }

    /**
     * Scales all gradients together so that their total {@code normType}-norm (the norm of the
     * per-parameter norms; {@code Double.POSITIVE_INFINITY} for the largest magnitude) is at most
     * {@code maxNorm}: each is multiplied by {@code min(1, maxNorm / (total + 1e-6))}, as PyTorch.
     *
     * @return the total norm before clipping (a 0-d tensor; 0 when no parameter has a gradient)
     * @throws IllegalArgumentException with {@code errorIfNonfinite} when the total norm is NaN or
     *     infinite (nothing is changed then)
     */
    public static Tensor clipGradNorm_(Iterable<? extends Tensor> parameters, double maxNorm, double normType, boolean errorIfNonfinite) {
        List<Tensor> grads = gradients(parameters);
        if (grads.isEmpty()) return Tensor.scalar(0.0);
        try (var unused = GradMode.noGrad()) {
            List<Tensor> norms = new ArrayList<>();
            for (Tensor g : grads) norms.add(g.norm(normType));
            Tensor total = Tensor.stack(norms, 0).norm(normType);
            if (errorIfNonfinite && !Double.isFinite(total.item())) {
                throw new IllegalArgumentException("The total norm of order " + normType + " for gradients from `parameters` is non-finite, so it cannot be clipped."
                        + " To disable this error and scale the gradients by the non-finite norm anyway, set `errorIfNonfinite=false`");
            }
            // PyTorch's max_norm / (total + 1e-6) on a tensor is its __rtruediv__: reciprocal, then multiply
            Tensor coefficient = total.add(1e-6).reciprocal().mul(maxNorm).clampMax(1.0);
            for (Tensor g : grads) g.mul_(coefficient.to(g.dtype()));
            return total;
        }
    }

    /** Clamps every gradient element into {@code [-clipValue, clipValue]} in place. */
    public static void clipGradValue_(Iterable<? extends Tensor> parameters, double clipValue) {
        if (!(clipValue >= 0)) throw new IllegalArgumentException("clip_grad_value_: clip_value must be non-negative, got " + clipValue);
        try (var unused = GradMode.noGrad()) {
            for (Tensor g : gradients(parameters)) g.clamp_(-clipValue, clipValue);
        }
    }

    private static List<Tensor> gradients(Iterable<? extends Tensor> parameters) {
        List<Tensor> out = new ArrayList<>();
        for (Tensor p : parameters) if (p.grad() != null) out.add(p.grad());
        return out;
    }
}
