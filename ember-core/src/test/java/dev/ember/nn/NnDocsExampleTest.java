package dev.ember.nn;

import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** docs/nn.md's examples as written there, and what the text around them promises. */
class NnDocsExampleTest {

    @Test
    void packedSequencesThroughAnLstm() {
        LSTM lstm = new LSTM(4, 6, 2, true, true, 0.0, true);
        Tensor padded = Tensor.randn(3, 5, 4);
        PackedSequence packed = RnnUtils.packPaddedSequence(padded, new long[] {5, 2, 3}, true, false);
        RNNBase.PackedOutput out = lstm.forward(packed, null, null);    // out.hN(): [layers·dirs, 3, H]
        RnnUtils.Padded back = RnnUtils.padPackedSequence(out.output(), true);   // back.padded(), back.lengths()
        assertArrayEquals(new int[] {4, 3, 6}, out.hN().shape());
        assertArrayEquals(new int[] {3, 5, 12}, back.padded().shape());
        assertArrayEquals(new long[] {5, 2, 3}, back.lengths().toLongArray());
        // "each sequence runs for its own length": the second sequence's result is that of running it alone
        Tensor alone = lstm.forward(padded.narrow(0, 1, 1).narrow(1, 0, 2));
        assertClose(back.padded().narrow(0, 1, 1).narrow(1, 0, 2), Torch.toNd(alone), "a packed sequence as if alone");
        assertClose(back.padded().narrow(0, 1, 1).narrow(1, 2, 3), Torch.call("torch.zeros(1, 3, 12)"), "padding stays zero");
    }

    @Test
    void anIdentityTransformSamplesThePixelsThemselves() {
        int n = 2, c = 3, h = 4, w = 5;
        Tensor images = Tensor.randn(n, c, h, w);
        Tensor theta = Tensor.of(new double[] {1, 0, 0, 0, 1, 0}, 1, 2, 3).expand(n, 2, 3).to(images.dtype());
        Tensor grid = F.affineGrid(theta, new int[] {n, c, h, w}, false);        // theta [N, 2, 3]
        Tensor warped = F.gridSample(images, grid, "bilinear", "border", false);
        assertClose(warped, Torch.toNd(images), "the identity map");
    }

    @Test
    void layersAndTheCtcLoss() {
        Tensor x = Tensor.randn(8, 64);
        Module block = new Sequential(new Linear(64, 64), new SELU(), new AlphaDropout(0.1));
        Tensor y = new RReLU().forward(x);               // training: random slopes in [1/8, 1/3]
        Tensor logits = Tensor.randn(50, 2, 30), targets = Tensor.randint(1, 30, 2, 20);
        Tensor loss = new CTCLoss().forward(logits.logSoftmax(2), targets, Tensor.ofLongs(50, 45), Tensor.ofLongs(20, 18));
        assertArrayEquals(new int[] {8, 64}, block.call(x).shape());
        assertArrayEquals(x.shape(), y.shape());
        assertClose(loss, Torch.call("torch.ctc_loss(torch.log_softmax(a, 2), b, [50, 45], [20, 18])", logits, targets), "the CTC example");
        Init.orthogonal_(((Linear) block.children().getFirst()).weight, Init.calculateGain("tanh"));
        Tensor flat = ConvertParameters.parametersToVector(block.parameters());
        assertArrayEquals(new int[] {64 * 64 + 64}, flat.shape());
        Tensor weight = flat.narrow(0, 0, 64 * 64).reshape(64, 64);   // the Linear's weight comes first
        assertClose(weight.t().matmul(weight), Torch.call("torch.eye(64) * (5.0 / 3) ** 2"), "an orthogonal weight times tanh's gain",
                dev.ember.testing.TorchAssert.Tolerance.of(1e-4, 1e-4));
    }

    /** The docs' Symmetric parametrization. */
    static final class Symmetric extends Module {
        @Override
        public Tensor forward(Tensor x) { return x.triu().add(x.triu(1).mT()); }
    }

    @Test
    void aWeightNormedConvolutionFusesWithItsComputedWeight() {
        Conv2d conv = (Conv2d) Parametrizations.weightNorm(new Conv2d(3, 8, 3));
        BatchNorm2d bn = new BatchNorm2d(8);
        try (var unused = dev.ember.Ember.noGrad()) {
            bn.runningMean.copy_(Tensor.randn(8));
            bn.runningVar.copy_(Tensor.rand(8).add(0.5));
        }
        Conv2d fused = (Conv2d) Fusion.fuseConvBnEval((Conv2d) conv.eval(), (BatchNorm2d) bn.eval());   // folds g·v/‖v‖
        Tensor x = Tensor.randn(2, 3, 6, 6);
        assertClose(fused.forward(x), Torch.call("torch.batch_norm(torch.conv2d(a, b, c), None, None, d, e, False, 0.1, 1e-5, False)", x,
                conv.tensor("weight").detach(), conv.bias.detach(), bn.runningMean, bn.runningVar), "fused against conv then batch norm",
                dev.ember.testing.TorchAssert.Tolerance.of(1e-5, 1e-5));
        org.junit.jupiter.api.Assertions.assertTrue(conv.toString().startsWith("ParametrizedConv2d("), conv.toString());
    }

    @Test
    void parametrizationsAsTheDocsShowThem() {
        Linear layer = new Linear(8, 8);
        Parametrize.registerParametrization(layer, "weight", new Symmetric());   // Symmetric: a Module, forward(X) = X.triu() + X.triu(1).mT()
        org.junit.jupiter.api.Assertions.assertEquals(java.util.List.of("bias", "parametrizations.weight.original"), java.util.List.copyOf(layer.stateDict().keySet()));
        Tensor w = layer.tensor("weight");      // torch's layer.weight: computed now from the original
        assertClose(w, Torch.call("a.triu() + a.triu(1).t()", Parametrize.parametrizations(layer, "weight").original().detach()), "symmetric");
        Module conv = Parametrizations.weightNorm(new Conv2d(3, 8, 3));       // parametrizations.weight.original0 (g), original1 (v)
        org.junit.jupiter.api.Assertions.assertTrue(conv.stateDict().containsKey("parametrizations.weight.original1"));
        Module sn = Parametrizations.spectralNorm(new Linear(16, 16));      // parametrizations.weight.0._u / _v, power iteration in training
        org.junit.jupiter.api.Assertions.assertTrue(sn.stateDict().containsKey("parametrizations.weight.0._u"));
        Module orth = Parametrizations.orthogonal(new Linear(4, 4));          // matrix_exp, cayley or householder; the buffer base
        Tensor q = orth.tensor("weight");
        assertClose(q.mT().matmul(q), Torch.call("torch.eye(4)"), "orthogonal", dev.ember.testing.TorchAssert.Tolerance.of(1e-5, 1e-5));
        Module old = WeightNorm.weightNorm(new Linear(4, 3));                // old style: weight_g, weight_v and a forward pre-hook
        org.junit.jupiter.api.Assertions.assertEquals(java.util.List.of("bias", "weight_g", "weight_v"), java.util.List.copyOf(old.stateDict().keySet()));
        try (var cached = Parametrize.cached()) {
            org.junit.jupiter.api.Assertions.assertSame(layer.tensor("weight"), layer.tensor("weight"));
        }
        Tensor original = Parametrize.parametrizations(layer, "weight").original();
        Parametrize.removeParametrizations(layer, "weight");   // the original keeps its identity and the value
        org.junit.jupiter.api.Assertions.assertSame(original, layer.weight);
        assertClose(layer.weight, Torch.toNd(w.detach()), "the value stays");
    }

    @Test
    void lazyFusionAndFunctionalCallAsTheDocsShowThem() {
        FractionalMaxPool2d pool = new FractionalMaxPool2d(new int[] {3, 3}, null, new double[] {0.5, 0.5});
        assertArrayEquals(new int[] {1, 2, 5, 6}, pool.forward(Tensor.randn(1, 2, 10, 12)).shape());
        LazyLinear head = new LazyLinear(10);
        head.forward(Tensor.randn(4, 128));                  // now in_features = 128
        org.junit.jupiter.api.Assertions.assertEquals(128, head.inFeatures);
        LazyConvTranspose2d up = new LazyConvTranspose2d(16, 2, 2, 0, 0, 1, true, 1);
        Tensor upsampled = up.forward(Tensor.randn(1, 32, 8, 8));               // now in_channels = 32: [1, 16, 16, 16]
        org.junit.jupiter.api.Assertions.assertEquals(32, up.inChannels);
        assertArrayEquals(new int[] {1, 16, 16, 16}, upsampled.shape());
        Module conv = new Conv2d(3, 4, 3), bn = new BatchNorm2d(4);
        Conv2d fused = (Conv2d) Fusion.fuseConvBnEval((Conv2d) conv.eval(), (BatchNorm2d) bn.eval());
        Tensor image = Tensor.randn(1, 3, 5, 5);
        Tensor photo = Tensor.randn(1, 3, 128, 96);
        Tensor small = F.interpolate(photo, new int[] {64, 64}, null, "bicubic", null, null, true);   // antialias=True
        assertArrayEquals(new int[] {1, 3, 64, 64}, small.shape());
        assertClose(fused.forward(image), Torch.toNd(bn.forward(conv.forward(image)).detach()), "fused = conv then bn", dev.ember.testing.TorchAssert.Tolerance.of(1e-5, 1e-5));
        Sequential model = new Sequential(new Linear(3, 2));
        Tensor x = Tensor.randn(2, 3), w = Tensor.randn(2, 3);
        Tensor y = Func.functionalCall(model, java.util.Map.of("0.weight", w), x);
        assertClose(y, Torch.call("torch.linear(a, b, c)", x, w, ((Linear) model.children().getFirst()).bias.detach()), "with w");
    }

    @Test
    void aParametrizedWeightIsInitialisedThroughItsOriginal() {
        Linear layer = new Linear(4, 4);
        Parametrizations.orthogonal(layer);
        Init.orthogonal_(Parametrize.parametrizations(layer, "weight").original());
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Init.orthogonal_(layer.weight));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("Linear.weight") && e.getMessage().contains("Parametrize.parametrizations(layer, \"weight\").original()"),
                e.getMessage());
        Tensor before = Parametrize.parametrizations(layer, "weight").original().clone();
        Init.zeros_(layer.tensor("weight"));                  // a temporary: the layer is unchanged
        assertClose(Parametrize.parametrizations(layer, "weight").original(), Torch.toNd(before), "unchanged");
    }

    @Test
    void legacyAndDistributedLayersAsTheDocsShowThem() {
        Tensor y = new CrossMapLRN2d(5, 5e-3, 1e-3, 2).forward(Tensor.randn(2, 3, 6, 6));
        var asm = new AdaptiveLogSoftmaxWithLoss(16, 20, new int[] {4, 9, 15});
        AdaptiveLogSoftmaxWithLoss.Output o = asm.forward(Tensor.randn(6, 16), Tensor.ofLongs(0, 5, 19, 3, 9, 14));
        Tensor classes = asm.predict(Tensor.randn(6, 16));                  // [6] int64, log_prob's argmax
        Module model = SyncBatchNorm.convertSyncBatchnorm(new Sequential(new Conv2d(3, 8, 3), new BatchNorm2d(8)));
        assertArrayEquals(new int[] {2, 3, 6, 6}, y.shape());
        assertArrayEquals(new int[] {6}, o.output().shape());
        org.junit.jupiter.api.Assertions.assertEquals(0, o.loss().dim());
        assertArrayEquals(new int[] {6}, classes.shape());
        org.junit.jupiter.api.Assertions.assertInstanceOf(SyncBatchNorm.class, ((Sequential) model).get(1));
    }

    @Test
    void moduleInfoFormsAsTheDocsShowThem() {
        BatchNorm1d bn = new BatchNorm1d(10, 1e-3, null, true, true);   // nn.BatchNorm1d(10, 1e-3, None)
        Tensor pooled = new AdaptiveAvgPool2d(3, null).forward(Tensor.randn(1, 3, 5, 6));   // [1, 3, 3, 6]
        org.junit.jupiter.api.Assertions.assertTrue(bn.toString().contains("momentum=None"));
        assertArrayEquals(new int[] {1, 3, 3, 6}, pooled.shape());
    }
}
