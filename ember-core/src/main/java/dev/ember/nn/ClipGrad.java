package dev.ember.nn;

import dev.ember.autograd.GradMode;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;

/**
 * Gradient clipping, as PyTorch's {@code torch.nn.utils.clip_grad_norm_} (and its two halves
 * {@code get_total_norm} and {@code clip_grads_with_norm_}) and {@code clip_grad_value_}: called between {@code backward()} and the optimizer's {@code step()},
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
        Tensor total = getTotalNorm(grads, normType, errorIfNonfinite);
        clipGradsWithNorm_(parameters, maxNorm, total);
        return total;
    }

    /**
     * The {@code normType}-norm of the per-tensor norms of {@code tensors} (usually gradients), as
     * PyTorch's {@code get_total_norm}: the first half of {@link #clipGradNorm_}, for code that
     * reduces the norm across workers or logs it before clipping.
     *
     * @return a 0-d tensor; 0 for no tensors
     * @throws IllegalArgumentException with {@code errorIfNonfinite} when the total norm is NaN or infinite
     */
    public static Tensor getTotalNorm(Iterable<? extends Tensor> tensors, double normType, boolean errorIfNonfinite) {
        List<Tensor> norms = new ArrayList<>();
        try (var unused = GradMode.noGrad()) {
            for (Tensor t : tensors) norms.add(t.norm(normType));
            if (norms.isEmpty()) return Tensor.scalar(0.0);
            Tensor total = Tensor.stack(norms, 0).norm(normType);
            if (errorIfNonfinite && !Double.isFinite(total.item())) {
                throw new IllegalArgumentException("The total norm of order " + normType + " for gradients from `parameters` is non-finite, so it cannot be clipped."
                        + " To disable this error and scale the gradients by the non-finite norm anyway, set `errorIfNonfinite=false`");
            }
            return total;
        }
    }

    /**
     * Scales every parameter's gradient in place by {@code min(1, maxNorm / (totalNorm + 1e-6))},
     * as PyTorch's {@code clip_grads_with_norm_}: the second half of {@link #clipGradNorm_}, with a
     * total norm computed elsewhere ({@link #getTotalNorm}).
     */
    public static void clipGradsWithNorm_(Iterable<? extends Tensor> parameters, double maxNorm, Tensor totalNorm) {
        List<Tensor> grads = gradients(parameters);
        if (grads.isEmpty()) return;
        try (var unused = GradMode.noGrad()) {
            // PyTorch's max_norm / (total + 1e-6) on a tensor is its __rtruediv__: reciprocal, then multiply
            Tensor coefficient = totalNorm.add(1e-6).reciprocal().mul(maxNorm).clampMax(1.0);
            for (Tensor g : grads) g.mul_(coefficient.to(g.dtype()));
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
