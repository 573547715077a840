package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.util.function.Supplier;

/**
 * A stack of encoder layers, as PyTorch's {@code nn.TransformerEncoder}: {@code numLayers} layers
 * made by {@code layer}, then an optional final {@code norm}. PyTorch deep-copies one layer, so its
 * layers start identical; a supplier makes each afresh, so these start from independent
 * initialisations (load a state dict to start from PyTorch's). State-dict names are PyTorch's:
 * {@code layers.0.self_attn.in_proj_weight}, …, {@code norm.weight}.
 */
public class TransformerEncoder extends Module {
    public final ModuleList<TransformerEncoderLayer> layers = new ModuleList<>();
    /** Null for none. */
    public final Module norm;

    public TransformerEncoder(Supplier<TransformerEncoderLayer> layer, int numLayers) { this(layer, numLayers, null); }

    public TransformerEncoder(Supplier<TransformerEncoderLayer> layer, int numLayers, Module norm) {
        if (numLayers <= 0) throw new IllegalArgumentException("TransformerEncoder: num_layers must be positive, got " + numLayers);
        for (int i = 0; i < numLayers; i++) layers.append(layer.get());
        this.norm = norm;
    }

    @Override
    public Tensor forward(Tensor src) { return forward(src, null); }

    /** Every layer in turn with the same {@code mask} (null for none), then the norm. */
    public Tensor forward(Tensor src, Tensor mask) { return forward(src, mask, null); }

    /** Every layer in turn with the same {@code mask} and {@code srcKeyPaddingMask [B, S]} (either may be null), then the norm. */
    public Tensor forward(Tensor src, Tensor mask, Tensor srcKeyPaddingMask) { return forward(src, mask, srcKeyPaddingMask, false); }

    /** With PyTorch's {@code is_causal} hint: {@code mask} is the causal mask. */
    public Tensor forward(Tensor src, Tensor mask, Tensor srcKeyPaddingMask, boolean isCausal) {
        Tensor x = src;
        for (TransformerEncoderLayer layer : layers) x = layer.forward(x, mask, srcKeyPaddingMask, isCausal);
        return norm == null ? x : norm.forward(x);
    }
}
