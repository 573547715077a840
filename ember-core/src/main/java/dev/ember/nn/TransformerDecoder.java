package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.util.function.Supplier;

/**
 * A stack of decoder layers, as PyTorch's {@code nn.TransformerDecoder}: {@code numLayers} layers
 * made by {@code layer}, each attending to the same {@code memory}, then an optional final
 * {@code norm}. As {@link TransformerEncoder}, a supplier makes each layer afresh (PyTorch
 * deep-copies one). State-dict names are PyTorch's: {@code layers.0.multihead_attn.in_proj_weight},
 * …, {@code norm.weight}.
 */
public class TransformerDecoder extends Module {
    public final ModuleList<TransformerDecoderLayer> layers = new ModuleList<>();
    /** Null for none. */
    public final Module norm;

    public TransformerDecoder(Supplier<TransformerDecoderLayer> layer, int numLayers) { this(layer, numLayers, null); }

    public TransformerDecoder(Supplier<TransformerDecoderLayer> layer, int numLayers, Module norm) {
        if (numLayers <= 0) throw new IllegalArgumentException("TransformerDecoder: num_layers must be positive, got " + numLayers);
        for (int i = 0; i < numLayers; i++) layers.append(layer.get());
        this.norm = norm;
    }

    public Tensor forward(Tensor tgt, Tensor memory) { return forward(tgt, memory, null, null, null, null); }

    /** Every layer in turn with the same memory and masks (see {@link TransformerDecoderLayer}), then the norm. */
    public Tensor forward(Tensor tgt, Tensor memory, Tensor tgtMask, Tensor memoryMask, Tensor tgtKeyPaddingMask, Tensor memoryKeyPaddingMask) {
        return forward(tgt, memory, tgtMask, memoryMask, tgtKeyPaddingMask, memoryKeyPaddingMask, false, false);
    }

    /** With PyTorch's {@code tgt_is_causal} and {@code memory_is_causal} hints (see {@link TransformerDecoderLayer}). */
    public Tensor forward(Tensor tgt, Tensor memory, Tensor tgtMask, Tensor memoryMask, Tensor tgtKeyPaddingMask, Tensor memoryKeyPaddingMask,
                          boolean tgtIsCausal, boolean memoryIsCausal) {
        Tensor x = tgt;
        for (TransformerDecoderLayer layer : layers) {
            x = layer.forward(x, memory, tgtMask, memoryMask, tgtKeyPaddingMask, memoryKeyPaddingMask, tgtIsCausal, memoryIsCausal);
        }
        return norm == null ? x : norm.forward(x);
    }
}
