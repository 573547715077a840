package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * {@link Linear} whose {@code in_features} is taken from its first input's last dim, as PyTorch's
 * {@code nn.LazyLinear}: until then it has no weight or bias (build an optimizer after a first
 * call, as PyTorch advises); loading a state dict before that materializes it from the saved weight.
 */
public class LazyLinear extends Linear {
    private final boolean hasBias;
    private boolean materialized;

    public LazyLinear(int outFeatures) { this(outFeatures, true); }

    public LazyLinear(int outFeatures, boolean bias) {
        super(0, outFeatures, bias);
        this.hasBias = bias;
        this.weight = null;
        this.bias = null;
        LazyModules.materializeFromStateDict(this, this::materialize, w -> w.shape()[1], () -> materialized);
    }

    /** Whether the first call (or a state dict) has given the layer its size and tensors. */
    public boolean isMaterialized() { return materialized; }

    private void materialize(int inFeatures) {
        LazyModules.adopt(this, new Linear(inFeatures, outFeatures, hasBias));
        this.inFeatures = inFeatures;
        materialized = true;
    }

    @Override
    public Tensor forward(Tensor input) {
        if (!materialized) materialize(input.shape().length == 0 ? 1 : input.shape()[input.dim() - 1]);
        return super.forward(input);
    }
}
