package dev.ember.nn;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sequence-first layout (PyTorch's default, {@code batch_first=False}) of MultiheadAttention,
 * the transformer layers and Transformer: the same module computes, on inputs transposed to
 * {@code [seq, batch, E]}, the transposed batch-first result (which the libtorch tests of
 * TransformerDecoderTest check), with masks, padding and attention weights unchanged; Ember's
 * constructors stay batch first; compiled sequence-first modules match eager.
 */
class BatchFirstTest {

    private static Tensor seqFirst(Tensor t) { return t.transpose(0, 1).contiguous(); }

    @Test
    void constructorsStayBatchFirstAndTheOptionSwitchesEveryLayer() {
        assertTrue(new MultiheadAttention(8, 2).isBatchFirst());
        Transformer t = new Transformer(8, 2, 2, 1, 16, 0.0).batchFirst(false);
        assertFalse(t.isBatchFirst());
        for (TransformerEncoderLayer l : t.encoder.layers) assertFalse(l.selfAttn.isBatchFirst());
        for (TransformerDecoderLayer l : t.decoder.layers) assertFalse(l.multiheadAttn.isBatchFirst() || l.selfAttn.isBatchFirst());
    }

    @Test
    void multiheadAttentionSequenceFirstIsTheTransposedBatchFirst() {
        Tensor.manualSeed(1);
        MultiheadAttention mha = new MultiheadAttention(8, 2);
        mha.eval();
        Tensor q = Tensor.randn(3, 5, 8), kv = Tensor.randn(3, 7, 8);
        Tensor mask = Tensor.randn(5, 7).gt(1.0), padding = Tensor.randn(3, 7).gt(1.2);
        MultiheadAttention.Output batchFirst = mha.forward(q, kv, kv, padding, true, mask, true);
        Tensor selfBatchFirst = mha.forward(q, q, q);
        mha.batchFirst(false);
        MultiheadAttention.Output seq = mha.forward(seqFirst(q), seqFirst(kv), seqFirst(kv), padding, true, mask, true);
        assertClose(seq.output(), seqFirst(batchFirst.output()), "cross-attention output [L, B, E]");
        assertClose(seq.weights(), batchFirst.weights(), "weights stay [B, L, S]");
        Tensor sq = seqFirst(q);
        assertClose(mha.forward(sq, sq, sq), seqFirst(selfBatchFirst), "self-attention (the packed projection)");
        var e = assertThrows(IllegalArgumentException.class, () -> mha.forward(Tensor.randn(5, 8), sq, sq));
        assertTrue(e.getMessage().startsWith("MultiheadAttention: expected 3-D query"), e.getMessage());
    }

    @Test
    void transformerSequenceFirstIsTheTransposedBatchFirstWithGradients() {
        Tensor.manualSeed(2);
        Transformer model = new Transformer(16, 2, 2, 2, 32, 0.0);
        Tensor src = Tensor.randn(2, 6, 16), tgt = Tensor.randn(2, 4, 16);
        Tensor causal = Transformer.generateSquareSubsequentMask(4), padding = Tensor.randn(2, 6).gt(1.0);
        Tensor want = model.forward(src, tgt, null, causal, null, padding, null, padding);
        want.mul(want).sum().backward();
        Tensor wantGrad = model.encoder.layers.get(0).linear1.weight.grad().clone();
        model.zeroGrad();
        model.batchFirst(false);
        Tensor got = model.forward(seqFirst(src), seqFirst(tgt), null, causal, null, padding, null, padding);
        assertEquals(4, got.size(0));
        assertClose(got, seqFirst(want), "output [T, B, E]");
        got.mul(got).sum().backward();
        assertClose(model.encoder.layers.get(0).linear1.weight.grad(), wantGrad, "a weight's gradient");
        var e = assertThrows(IllegalArgumentException.class, () -> model.forward(Tensor.randn(6, 2, 16), Tensor.randn(4, 3, 16)));
        assertTrue(e.getMessage().endsWith("; sequence first)"), e.getMessage());
        // each layer alone, as PyTorch's layers with batch_first=False
        TransformerEncoderLayer enc = new TransformerEncoderLayer(16, 2, 32, 0.0);
        Tensor encWant = enc.forward(src, null, padding);
        assertClose(enc.batchFirst(false).forward(seqFirst(src), null, padding), seqFirst(encWant), "encoder layer");
        TransformerDecoderLayer dec = new TransformerDecoderLayer(16, 2, 32, 0.0);
        Tensor decWant = dec.forward(tgt, src, causal, null, null, padding);
        assertClose(dec.batchFirst(false).forward(seqFirst(tgt), seqFirst(src), causal, null, null, padding), seqFirst(decWant), "decoder layer");
    }

    @Test
    void sequenceFirstEncoderCompilesToOneGraph() {
        Tensor.manualSeed(3);
        TransformerEncoder encoder = new TransformerEncoder(() -> new TransformerEncoderLayer(16, 2, 32, 0.0).batchFirst(false), 2);
        Tensor src = Tensor.randn(6, 3, 16), padding = Tensor.randn(3, 6).gt(1.0);
        Fn2<Tensor, Tensor, Tensor> fn = (s, p) -> encoder.forward(s, null, p);
        ExplainOutput e = Ember.explain(fn).with(src, padding);
        assertEquals(1, e.graphCount(), e.toString());
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertClose(Ember.compile(fn).apply(src, padding), fn.apply(src, padding), "compiled sequence-first encoder");
    }
}
