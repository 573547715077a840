package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * {@link AlphaDropout} of whole channels of {@code [N, C, …]} input, as PyTorch's
 * {@code nn.FeatureAlphaDropout} ({@link F#featureAlphaDropout}).
 */
public class FeatureAlphaDropout extends Dropout {
    public FeatureAlphaDropout() { this(0.5); }

    public FeatureAlphaDropout(double p) { super(p); }

    @Override
    public Tensor forward(Tensor input) { return F.featureAlphaDropout(input, p, isTraining()); }
}
