package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * Alpha dropout for self-normalizing (SELU) networks, as PyTorch's {@code nn.AlphaDropout}: in
 * training, dropped elements take SELU's negative saturation value and the output is rescaled to
 * keep zero mean and unit variance ({@link F#alphaDropout}); in evaluation, the identity.
 */
public class AlphaDropout extends Dropout {
    public AlphaDropout() { this(0.5); }

    public AlphaDropout(double p) { super(p); }

    @Override
    public Tensor forward(Tensor input) { return F.alphaDropout(input, p, isTraining()); }
}
