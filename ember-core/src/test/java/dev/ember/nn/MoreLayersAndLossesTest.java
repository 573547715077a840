package dev.ember.nn;

import ai.djl.ndarray.NDList;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.autograd.Autograd;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * InstanceNorm1d/2d, PixelShuffle/PixelUnshuffle, ConvTranspose1d, Bilinear and the losses
 * MarginRankingLoss, CosineEmbeddingLoss and TripletMarginLoss against libtorch's ops of the same
 * names (instance_norm with its running statistics, pixel_shuffle, conv_transpose1d, bilinear,
 * margin_ranking_loss, cosine_embedding_loss, triplet_margin_loss), their errors, and a model of
 * them compiled to one graph equal to eager, gradients and running statistics included.
 */
class MoreLayersAndLossesTest {
    private final Random rng = new Random(41);

    private <M extends Module> M randomized(M m) {
        try (var unused = Ember.noGrad()) {
            for (Parameter p : m.parameters()) p.copy_(Inputs.randn(rng, p.dtype(), p.shape()));
        }
        return m;
    }

    @Test
    void instanceNormWithRunningStatsMatchesLibtorch() {
        InstanceNorm2d in = randomized(new InstanceNorm2d(3, 1e-5, 0.2, true, true));
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 4, 3, 5, 6).mul(2.0).add(1.0);
        Tensor mean0 = in.runningMean.clone(), var0 = in.runningVar.clone();
        Tensor y = in.forward(x);
        NDList expected = Torch.callList("y = torch.instance_norm(a, b, c, d, e, True, 0.2, 1e-5, False)\nreturn (y, d, e)", x, in.weight, in.bias, mean0, var0);
        assertClose(y, expected.get(0), "training output");
        assertClose(in.runningMean, expected.get(1), "running mean: the instances' updates averaged");
        assertClose(in.runningVar, expected.get(2), "running var (unbiased per instance)");
        assertEquals(0L, in.numBatchesTracked.longItem(), "not counted, as PyTorch's InstanceNorm");
        in.eval();
        assertClose(in.forward(x), Torch.call("torch.instance_norm(a, b, c, d, e, False, 0.2, 1e-5, False)", x, in.weight, in.bias, in.runningMean, in.runningVar),
                "eval uses the running statistics");
    }

    @Test
    void instanceNormDefaultsAndUnbatched() {
        InstanceNorm1d plain = new InstanceNorm1d(4);
        assertEquals(0, plain.parameters().size(), "PyTorch's default: no affine part");
        assertTrue(plain.stateDict().isEmpty(), "and no running statistics");
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 2, 4, 7);
        String ref = "torch.instance_norm(a, None, None, None, None, True, 0.1, 1e-5, False)";
        assertClose(plain.forward(x), Torch.call(ref, x), "1d");
        assertClose(plain.eval().forward(x), Torch.call(ref, x), "eval without running stats: still the input's statistics");
        Tensor unbatched = Inputs.randn(rng, DType.FLOAT64, 4, 7);
        assertClose(plain.forward(unbatched), Torch.call(ref, unbatched.unsqueeze(0)).squeeze(0), "unbatched [C, L]");
        InstanceNorm2d affine = randomized(new InstanceNorm2d(3, 1e-5, 0.1, true, false));
        Tensor img = Inputs.randn(rng, DType.FLOAT32, 2, 3, 4, 4);
        assertClose(affine.forward(img), Torch.call("torch.instance_norm(a, b, c, None, None, True, 0.1, 1e-5, False)", img, affine.weight, affine.bias), "2d affine");
        var e = assertThrows(IllegalArgumentException.class, () -> affine.forward(Inputs.randn(rng, DType.FLOAT32, 2, 5, 4, 4)));
        assertTrue(e.getMessage().contains("expected input's size at dim=1 to match num_features (3), but got: 5."), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> plain.train().forward(Tensor.randn(2, 4, 1)));
        assertTrue(e.getMessage().contains("Expected more than 1 spatial element when training"), e.getMessage());
        assertEquals("InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=False)", affine.toString());
    }

    @Test
    void pixelShuffleAndUnshuffle() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 3, 8, 5, 4);
        Tensor up = new PixelShuffle(2).forward(x);
        assertClose(up, Torch.call("torch.pixel_shuffle(a, 2)", x), "shuffle with two batch dims");
        assertEquals(List.of(2, 3, 2, 10, 8), java.util.Arrays.stream(up.shape()).boxed().toList());
        assertClose(new PixelUnshuffle(2).forward(up), x, "unshuffle undoes it");
        Tensor img = Inputs.randn(rng, DType.FLOAT32, 1, 2, 6, 9);
        assertClose(F.pixelUnshuffle(img, 3), Torch.call("torch.pixel_unshuffle(a, 3)", img), "unshuffle by 3");
        Tensor bad = Tensor.randn(1, 5, 2, 2);
        var e = assertThrows(IllegalArgumentException.class, () -> F.pixelShuffle(bad, 2));
        String torch = assertThrows(RuntimeException.class, () -> Torch.call("torch.pixel_shuffle(a, 2)", bad)).getMessage();
        String words = "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=5 is not divisible by 4";
        assertTrue(e.getMessage().contains(words) && torch.contains(words), e.getMessage() + "\n" + torch);
    }

    @Test
    void convTranspose1dMatchesLibtorch() {
        ConvTranspose1d c = new ConvTranspose1d(4, 6, 3, 2, 1, 1, 2, true, 2);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 4, 7);
        assertClose(c.forward(x), Torch.call("torch.conv_transpose1d(a, b, c, [2], [1], [1], 2, [2])", x, c.weight, c.bias), "strided, grouped, dilated");
        Tensor unbatched = Inputs.randn(rng, DType.FLOAT32, 4, 7);
        assertClose(c.forward(unbatched), Torch.call("torch.conv_transpose1d(a, b, c, [2], [1], [1], 2, [2])", unbatched, c.weight, c.bias), "unbatched");
        assertEquals(List.of(4, 3, 3), java.util.Arrays.stream(c.weight.shape()).boxed().toList(), "weight [in, out/groups, k]");
        double bound = 1 / Math.sqrt(3 * 3);
        assertTrue(c.weight.abs().max().item() <= bound, "PyTorch's fan-in: out/groups · k");
        assertEquals("ConvTranspose1d(4, 6, kernel_size=(3,), stride=(2,), padding=(1,), output_padding=(1,), dilation=(2,), groups=2)", c.toString());
    }

    @Test
    void bilinearMatchesLibtorch() {
        Bilinear b = new Bilinear(4, 5, 3);
        Tensor x1 = Inputs.randn(rng, DType.FLOAT32, 2, 6, 4), x2 = Inputs.randn(rng, DType.FLOAT32, 2, 6, 5);
        assertClose(b.forward(x1, x2), Torch.call("torch.bilinear(a, b, c, d)", x1, x2, b.weight, b.bias), "leading dims");
        Bilinear noBias = new Bilinear(4, 5, 3, false);
        assertClose(noBias.forward(x1.select(0, 0), x2.select(0, 0)), Torch.call("torch.bilinear(a, b, c)", x1.select(0, 0), x2.select(0, 0), noBias.weight), "no bias");
        assertTrue(b.weight.abs().max().item() <= 0.5 && b.bias.abs().max().item() <= 0.5, "uniform on ±1/sqrt(in1)");
        var e = assertThrows(IllegalArgumentException.class, () -> b.forward(x1, Inputs.randn(rng, DType.FLOAT32, 2, 6, 4)));
        assertTrue(e.getMessage().contains("bilinear(): input2 size does not match weight size: got 4 but expected 5"), e.getMessage());
    }

    @Test
    void rankingLossesMatchLibtorch() {
        Tensor x1 = Inputs.randn(rng, DType.FLOAT32, 6), x2 = Inputs.randn(rng, DType.FLOAT32, 6), y = Tensor.of(new float[] {1, -1, 1, 1, -1, -1}, 6);
        String[] reductions = {"none", "mean", "sum"};
        for (int r = 0; r < 3; r++) {
            assertClose(new MarginRankingLoss(0.3, reductions[r]).forward(x1, x2, y), Torch.call("torch.margin_ranking_loss(a, b, c, 0.3, " + r + ")", x1, x2, y),
                    "margin ranking " + reductions[r]);
        }
        Tensor u = Inputs.randn(rng, DType.FLOAT32, 5, 8), v = Inputs.randn(rng, DType.FLOAT32, 5, 8), t = Tensor.of(new float[] {1, -1, -1, 1, -1}, 5);
        for (int r = 0; r < 3; r++) {
            assertClose(new CosineEmbeddingLoss(0.1, reductions[r]).forward(u, v, t), Torch.call("torch.cosine_embedding_loss(a, b, c, 0.1, " + r + ")", u, v, t),
                    "cosine embedding " + reductions[r]);
        }
        Tensor zero = Tensor.zeros(8);
        assertClose(F.cosineEmbeddingLoss(zero, v.select(0, 0), Tensor.of(1f).reshape()), Torch.call("torch.cosine_embedding_loss(a, b, c)", zero, v.select(0, 0), Tensor.of(1f).reshape()),
                "a zero vector (the 1e-12 under the root)");
        var e = assertThrows(IllegalArgumentException.class, () -> F.cosineEmbeddingLoss(u, v, Tensor.ones(5, 1)));
        assertTrue(e.getMessage().contains("0D or 1D target tensor expected, multi-target not supported"), e.getMessage());

        Tensor a = Inputs.randn(rng, DType.FLOAT32, 4, 6), p = Inputs.randn(rng, DType.FLOAT32, 4, 6), n = Inputs.randn(rng, DType.FLOAT32, 4, 6);
        assertClose(new TripletMarginLoss().forward(a, p, n), Torch.call("torch.triplet_margin_loss(a, b, c)", a, p, n), "triplet defaults");
        assertClose(new TripletMarginLoss(0.5, 1, 1e-6, true, "none").forward(a, p, n), Torch.call("torch.triplet_margin_loss(a, b, c, 0.5, 1.0, 1e-6, True, 0)", a, p, n),
                "triplet p=1 with swap");
    }

    /** An image-to-image block of the new layers, trained: instance norm with running stats, pixel shuffle and unshuffle. */
    static final class Block extends Module {
        final InstanceNorm2d norm = new InstanceNorm2d(8, 1e-5, 0.1, true, true);
        final PixelShuffle up = new PixelShuffle(2);
        final PixelUnshuffle down = new PixelUnshuffle(2);
        final Bilinear mix = new Bilinear(8, 8, 4);

        @Override
        public Tensor forward(Tensor x) {
            Tensor h = down.forward(up.forward(norm.forward(x)).relu());          // [N, 8, H, W] again
            Tensor pooled = h.mean(new int[] {2, 3}, false);                      // [N, 8]
            return mix.forward(pooled, x.mean(new int[] {2, 3}, false));
        }
    }

    @Test
    void compiledBlockEqualsEagerWithGradientsAndRunningStats() {
        Tensor.manualSeed(11);
        Block eager = randomized(new Block()), compiledModel = randomized(new Block());
        compiledModel.loadStateDict(eager.stateDict());
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 3, 8, 4, 6);
        Block explained = new Block();   // explain runs the function: its own copy, so the others' running stats are updated once
        ExplainOutput explain = Ember.explain((Fn1<Tensor, Tensor>) explained::forward).with(x);
        assertEquals(1, explain.graphCount(), explain.toString());
        assertEquals(0, explain.graphBreakCount(), explain.toString());
        Fn1<Tensor, Tensor> compiled = Ember.compile(compiledModel);
        Tensor want = eager.forward(x), got = compiled.apply(x);
        assertClose(got, want, "output", TorchAssert.Tolerance.of(1e-5, 1e-5));
        List<Tensor> wantGrads = Autograd.grad(want.sum(), eager.mix.weight, eager.norm.weight);
        List<Tensor> gotGrads = Autograd.grad(got.sum(), compiledModel.mix.weight, compiledModel.norm.weight);
        for (int i = 0; i < 2; i++) assertClose(gotGrads.get(i), wantGrads.get(i), "gradient " + i, TorchAssert.Tolerance.of(1e-4, 1e-5));
        assertClose(compiledModel.norm.runningMean, eager.norm.runningMean, "running mean updated by the compiled graph");
        assertClose(compiledModel.norm.runningVar, eager.norm.runningVar, "running var");
    }
}
