package dev.ember.optim;

import dev.ember.tensor.Tensor;

/**
 * Adam with decoupled weight decay, as PyTorch's {@code torch.optim.AdamW} (which in PyTorch 2.7 is
 * {@code Adam(decoupled_weight_decay=True)}): each step first shrinks the parameter,
 * {@code p = p * (1 - lr * weight_decay)}, and the gradient carries no penalty. The rest is
 * {@link Adam}'s update. PyTorch's defaults: {@code lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
 * weight_decay=1e-2}.
 * <pre>{@code
 * var opt = new AdamW(model.parameters(), AdamW.options().lr(3e-4).weightDecay(0.05));
 * }</pre>
 */
public final class AdamW extends Adam {

    /** AdamW's defaults: Adam's, with {@code weight_decay=1e-2} and decoupled weight decay. */
    public static Options options() { return Adam.options().weightDecay(1e-2).decoupledWeightDecay(true); }

    /** @param options from {@link #options()}; its weight decay is applied decoupled whatever {@code decoupledWeightDecay} says */
    public AdamW(Iterable<? extends Tensor> params, Options options) {
        super(params, options.copy().decoupledWeightDecay(true));
    }
}
