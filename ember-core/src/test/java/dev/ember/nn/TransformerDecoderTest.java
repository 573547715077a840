package dev.ember.nn;

import dev.ember.Ember;
import dev.ember.Fn4;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;
import ai.djl.ndarray.NDList;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MultiheadAttention's key padding mask and attention weights against libtorch's
 * _native_multi_head_attention; TransformerDecoderLayer against libtorch's attention, layer_norm
 * and linear kernels composed as PyTorch's layer composes them; the decoder stack and Transformer's
 * names, masks and compiled forward and training step.
 */
class TransformerDecoderTest {
    private final Random rng = new Random(17);

    private <M extends Module> M randomized(M m) {
        try (var unused = Ember.noGrad()) {
            for (Parameter p : m.parameters()) p.copy_(Inputs.randn(rng, p.dtype(), p.shape()).mul(0.5));
        }
        return m;
    }

    private static List<Tensor> attn(MultiheadAttention m) { return List.of(m.inProjWeight, m.inProjBias, m.outProj.weight, m.outProj.bias); }

    @Test
    void keyPaddingMaskAndWeightsMatchLibtorch() {
        MultiheadAttention mha = randomized(new MultiheadAttention(8, 2));
        mha.to(DType.FLOAT64);
        mha.eval();
        // libtorch's native attention takes queries and keys of one length
        Tensor q = Inputs.randn(rng, DType.FLOAT64, 2, 6, 8), kv = Inputs.randn(rng, DType.FLOAT64, 2, 6, 8);
        Tensor padding = Tensor.of(new boolean[] {false, false, false, false, true, true, false, false, false, false, false, true}, 2, 6);
        String lib = "torch._native_multi_head_attention(a, b, b, 8, 2, c[0], c[1], c[2], c[3], d, True, %s, 1)";
        for (boolean average : new boolean[] {true, false}) {
            MultiheadAttention.Output out = mha.forward(q, kv, kv, padding, true, null, average);
            NDList expected = Torch.callList(lib.formatted(average ? "True" : "False"), q, kv, attn(mha), padding);
            assertClose(out.output(), expected.get(0), "output, average=" + average);
            assertClose(out.weights(), expected.get(1), "weights, average=" + average);
        }
        // the fused path (no weights) agrees, and padded keys get no weight at all
        assertClose(mha.forward(q, kv, kv, null, padding), Torch.callList(lib.formatted("True"), q, kv, attn(mha), padding).get(0), "fused path");
        Tensor w = mha.forward(q, kv, kv, padding, true, null, true).weights();
        assertEquals(0.0, w.select(0, 0).narrow(1, 4, 2).abs().sum().item(), "padded keys of batch 0");
        // a float padding mask of -inf is the bool one
        Tensor floatPadding = Tensor.zeros(DType.FLOAT64, 2, 6).maskedFill(padding, Double.NEGATIVE_INFINITY);
        assertClose(mha.forward(q, kv, kv, null, floatPadding), mha.forward(q, kv, kv, null, padding), "float padding mask");
    }

    @Test
    void attentionMaskAndPaddingMaskCombine() {
        MultiheadAttention mha = randomized(new MultiheadAttention(8, 2));
        mha.to(DType.FLOAT64);
        mha.eval();
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 2, 5, 8);
        Tensor causal = Tensor.arange(5).unsqueeze(1).lt(Tensor.arange(5));
        Tensor padding = Tensor.of(new boolean[] {false, false, false, false, true, false, false, false, false, false}, 2, 5);
        // libtorch's mask_type 2 takes one [B, H, L, S] mask: either blocking
        Tensor both = causal.reshape(1, 1, 5, 5).logicalOr(padding.reshape(2, 1, 1, 5)).expand(2, 2, 5, 5).contiguous();
        NDList expected = Torch.callList("torch._native_multi_head_attention(a, a, a, 8, 2, b[0], b[1], b[2], b[3], c, True, True, 2)", x, attn(mha), both);
        assertClose(mha.forward(x, x, x, causal, padding), expected.get(0), "bool masks");
        assertClose(mha.forward(x, x, x, padding, true, causal, true).weights(), expected.get(1), "weights under both masks");
        // a float causal mask (generate_square_subsequent_mask) with a bool padding mask: converted and summed
        assertClose(mha.forward(x, x, x, Transformer.generateSquareSubsequentMask(5).to(DType.FLOAT64), padding), expected.get(0), "float and bool masks");
    }

    @Test
    void maskErrorsNameTheMask() {
        MultiheadAttention mha = new MultiheadAttention(8, 2);
        Tensor x = Tensor.randn(2, 5, 8);
        var e = assertThrows(IllegalArgumentException.class, () -> mha.forward(x, x, x, null, Tensor.zeros(DType.BOOL, 2, 4)));
        assertTrue(e.getMessage().contains("expecting key_padding_mask shape of [2, 5], but got [2, 4]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> mha.forward(x, x, x, null, Tensor.zeros(DType.INT64, 2, 5)));
        assertTrue(e.getMessage().contains("only bool and floating types of key_padding_mask are supported"), e.getMessage());
    }

    @Test
    void squareSubsequentMask() {
        Tensor m = Transformer.generateSquareSubsequentMask(3);
        double inf = Double.NEGATIVE_INFINITY;
        assertClose(m, Tensor.of(new float[] {0, (float) inf, (float) inf, 0, 0, (float) inf, 0, 0, 0}, 3, 3), "causal mask");
        assertEquals(DType.FLOAT32, m.dtype());
    }

    private static List<Tensor> decoderParams(TransformerDecoderLayer l) {
        List<Tensor> p = new ArrayList<>(attn(l.selfAttn));
        p.addAll(List.of(l.norm1.weight, l.norm1.bias));
        p.addAll(attn(l.multiheadAttn));
        p.addAll(List.of(l.norm2.weight, l.norm2.bias, l.linear1.weight, l.linear1.bias, l.linear2.weight, l.linear2.bias, l.norm3.weight, l.norm3.bias));
        return p;
    }

    @Test
    void decoderLayerMatchesLibtorch() {
        Tensor tgt = Inputs.randn(rng, DType.FLOAT64, 2, 4, 8), memory = Inputs.randn(rng, DType.FLOAT64, 2, 6, 8);
        Tensor causal = Tensor.arange(4).unsqueeze(1).lt(Tensor.arange(4));
        Tensor memoryPadding = Tensor.of(new boolean[] {false, false, false, false, false, true, false, false, false, true, true, true}, 2, 6);
        // a: tgt, b: memory, c: parameters, d: causal mask (type 0), e: memory padding (type 1); eval, so no dropout
        String mha = "torch._native_multi_head_attention(%s, %s, %s, 8, 2, c[%d], c[%d], c[%d], c[%d], %s, False, True, %s)[0]";
        // cross-attention over a memory of another length, which libtorch's native attention refuses: its projections and
        // scaled_dot_product_attention (true = may attend there, so the padding mask negated)
        String cross = """
                w_ = c[6].chunk(3, 0)
                bb_ = c[7].chunk(3, 0)
                q_ = torch.linear(%s, w_[0], bb_[0]).reshape([2, 4, 2, 4]).transpose(1, 2)
                k_ = torch.linear(b, w_[1], bb_[1]).reshape([2, 6, 2, 4]).transpose(1, 2)
                v_ = torch.linear(b, w_[2], bb_[2]).reshape([2, 6, 2, 4]).transpose(1, 2)
                o_ = torch.scaled_dot_product_attention(q_, k_, v_, attn_mask=e.logical_not().reshape([2, 1, 1, 6]))
                ca = torch.linear(o_.transpose(1, 2).reshape([2, 4, 8]), c[8], c[9])""";
        String post = "sa = " + mha.formatted("a", "a", "a", 0, 1, 2, 3, "d", "0") + "\n"
                + "x = torch.layer_norm(a + sa, [8], c[4], c[5], 1e-5, False)\n"
                + cross.formatted("x") + "\n"
                + "x = torch.layer_norm(x + ca, [8], c[10], c[11], 1e-5, False)\n"
                + "ff = torch.linear(%s(torch.linear(x, c[12], c[13])), c[14], c[15])\n"
                + "return torch.layer_norm(x + ff, [8], c[16], c[17], 1e-5, False)";
        String pre = "x = a + " + mha.formatted("n1", "n1", "n1", 0, 1, 2, 3, "d", "0").replace("n1", "torch.layer_norm(a, [8], c[4], c[5], 1e-5, False)") + "\n"
                + "n2 = torch.layer_norm(x, [8], c[10], c[11], 1e-5, False)\n"
                + cross.formatted("n2") + "\nx = x + ca\n"
                + "n3 = torch.layer_norm(x, [8], c[16], c[17], 1e-5, False)\n"
                + "return x + torch.linear(%s(torch.linear(n3, c[12], c[13])), c[14], c[15])";
        for (boolean normFirst : new boolean[] {false, true}) {
            for (String activation : new String[] {"relu", "gelu"}) {
                TransformerDecoderLayer layer = randomized(new TransformerDecoderLayer(8, 2, 16, 0.1, activation, 1e-5, normFirst, true));
                layer.to(DType.FLOAT64);
                layer.eval();
                String reference = (normFirst ? pre : post).formatted("torch." + activation);
                assertClose(layer.forward(tgt, memory, causal, null, null, memoryPadding),
                        Torch.call(reference, tgt, memory, decoderParams(layer), causal, memoryPadding), "decoder layer normFirst=" + normFirst + " " + activation);
            }
        }
    }

    @Test
    void decoderStackAndTransformerHavePyTorchsNames() {
        Tensor.manualSeed(5);
        Transformer t = new Transformer(16, 2, 2, 3, 32, 0.0);
        var keys = t.stateDict().keySet();
        for (String k : List.of("encoder.layers.1.self_attn.in_proj_weight", "encoder.norm.weight", "decoder.layers.2.multihead_attn.out_proj.bias",
                "decoder.layers.0.norm3.weight", "decoder.layers.2.linear2.weight", "decoder.norm.bias")) {
            assertTrue(keys.contains(k), k + " in " + keys);
        }
        assertEquals(2, t.encoder.layers.size());
        assertEquals(3, t.decoder.layers.size());
        // 2 encoder layers × 12 tensors + norm 2, 3 decoder layers × 18 + norm 2
        assertEquals(2 * 12 + 2 + 3 * 18 + 2, keys.size());
        // PyTorch's reset: matrices xavier-uniform, so bounded by sqrt(6 / (fan_in + fan_out)); biases stay zero
        double bound = Math.sqrt(6.0 / (16 + 32));
        assertTrue(t.decoder.layers.get(1).linear1.weight.abs().max().item() <= bound);
        assertEquals(0.0, t.encoder.layers.get(0).selfAttn.inProjBias.abs().sum().item());
        // the stack is its layers in order with the same memory and masks, then the norm
        t.eval();
        Tensor src = Tensor.randn(2, 6, 16), tgt = Tensor.randn(2, 4, 16), mask = Transformer.generateSquareSubsequentMask(4);
        Tensor memory = t.encoder.forward(src);
        Tensor byHand = tgt;
        for (TransformerDecoderLayer l : t.decoder.layers) byHand = l.forward(byHand, memory, mask, null, null, null);
        assertClose(t.forward(src, tgt, null, mask, null, null, null, null), t.decoder.norm.forward(byHand), "transformer");
        assertThrows(IllegalArgumentException.class, () -> t.forward(src, Tensor.randn(3, 4, 16)));
        var e = assertThrows(UnsupportedOperationException.class, () -> t.decoder.forward(tgt));
        assertTrue(e.getMessage().contains("forward(...)"), e.getMessage());
    }

    @Test
    void transformerCompilesToOneGraphAndTrainsAsEager() {
        Tensor.manualSeed(7);
        Transformer model = new Transformer(16, 2, 1, 2, 32, 0.0);
        Tensor src = Tensor.randn(2, 6, 16), tgt = Tensor.randn(2, 5, 16);
        Tensor tgtMask = Transformer.generateSquareSubsequentMask(5);
        Tensor padding = Tensor.of(new boolean[] {false, false, false, false, false, false, false, false, false, false, true, true}, 2, 6);
        Fn4<Tensor, Tensor, Tensor, Tensor, Tensor> fn = (s, t, m, p) -> model.forward(s, t, null, m, null, p, null, p).sum();
        ExplainOutput e = Ember.explain(fn).with(src, tgt, tgtMask, padding);
        assertEquals(1, e.graphCount(), e.toString());
        assertEquals(0, e.graphBreakCount(), e.toString());
        var compiled = Ember.compile(fn);
        Tensor eagerLoss = fn.apply(src, tgt, tgtMask, padding);
        eagerLoss.backward();
        List<Tensor> eagerGrads = new ArrayList<>();
        for (Parameter p : model.parameters()) eagerGrads.add(p.grad());
        model.zeroGrad();
        Tensor compiledLoss = compiled.apply(src, tgt, tgtMask, padding);
        compiledLoss.backward();
        assertClose(compiledLoss, eagerLoss, "loss");
        int i = 0;
        for (Parameter p : model.parameters()) assertClose(p.grad(), eagerGrads.get(i++), "gradient " + i, TorchAssert.Tolerance.of(1e-4, 1e-4));
    }
}
