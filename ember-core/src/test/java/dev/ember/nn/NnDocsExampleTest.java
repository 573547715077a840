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
}
