package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.nn.F;
import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static dev.ember.ops.ScatterConformanceTest.refused;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * nll_loss (forward, 1-d/2-d, and any number of spatial dims), cross_entropy_loss (class
 * indices, label smoothing, class probabilities), mse_loss, one_hot and log_softmax with a dtype,
 * against libtorch: every reduction, with and without class weights, ignored targets, layouts,
 * batches long enough for ATen's cascade sums, and libtorch's refusals.
 */
class LossConformanceTest {

    static final String[] REDUCTIONS = {"none", "mean", "sum"};

    static Stream<DType> floatDtypes() { return Stream.of(DType.FLOAT32, DType.FLOAT64); }

    /** Shapes of logits: unbatched, batched, batched with 1, 2 and 3 spatial dims, and a long batch. */
    static final List<int[]> INPUT_SHAPES = List.of(new int[] {5}, new int[] {7, 5}, new int[] {3, 5, 4}, new int[] {2, 5, 3, 4},
            new int[] {2, 5, 2, 3, 2}, new int[] {600, 5}, new int[] {0, 5});

    static Tensor targetsFor(Random rng, int[] input, boolean withIgnored) {
        int[] shape = input.length == 1 ? new int[0] : LossOps.without(input, 1);
        Tensor t = Inputs.randint(rng, DType.INT64, 0, input[input.length == 1 ? 0 : 1], shape);
        return withIgnored ? t.maskedFill(Inputs.rand(rng, DType.BOOL, shape), 1.0) : t;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("floatDtypes")
    void nllLossMatchesLibtorchBitForBit(DType d) {
        Random rng = new Random(d.ordinal() + 91);
        try (NDManager m = Torch.scope()) {
            for (int[] shape : INPUT_SHAPES) {
                Tensor input = Inputs.randn(rng, d, shape), weight = Inputs.rand(rng, d, shape[shape.length == 1 ? 0 : 1]);
                for (Inputs.Layout in : Inputs.layouts(input)) {
                    for (boolean ignored : new boolean[] {false, true}) {
                        Tensor target = targetsFor(rng, shape, ignored);
                        int ignoreIndex = ignored ? 1 : -100;
                        for (int r = 0; r < 3; r++) {
                            String ctx = "nll_loss " + d + " " + in + " " + REDUCTIONS[r] + (ignored ? " ignoring 1" : "");
                            Tensor x = in.tensor();
                            assertClose(F.nllLoss(x, target, null, REDUCTIONS[r], ignoreIndex),
                                    Torch.call(m, "ops.aten.nll_loss_nd(a, b, None, " + r + ", " + ignoreIndex + ")", x, target), ctx, Tolerance.EXACT);
                            assertClose(F.nllLoss(x, target, weight, REDUCTIONS[r], ignoreIndex),
                                    Torch.call(m, "ops.aten.nll_loss_nd(a, b, c, " + r + ", " + ignoreIndex + ")", x, target, weight), ctx + " weighted", Tolerance.EXACT);
                            if (shape.length <= 2) {
                                assertClose(LossOps.NLL_LOSS_FORWARD.callList(x, target, weight, (long) r, (long) ignoreIndex),
                                        Torch.callList(m, "ops.aten.nll_loss_forward(a, b, c, " + r + ", " + ignoreIndex + ")", x, target, weight), ctx + " forward", Tolerance.EXACT);
                                assertClose(LossOps.NLL_LOSS.callTensor(x, target, null, (long) r, (long) ignoreIndex),
                                        Torch.call(m, "ops.aten.nll_loss(a, b, None, " + r + ", " + ignoreIndex + ")", x, target), ctx + " nll_loss", Tolerance.EXACT);
                            }
                        }
                    }
                }
            }
            Tensor x = Inputs.randn(rng, d, 4, 3), allIgnored = Tensor.ofLongs(-100, -100, -100, -100);
            assertClose(F.nllLoss(x, allIgnored), Torch.call(m, "ops.aten.nll_loss_nd(a, b, None, 1, -100)", x, allIgnored), "all ignored: 0/0");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("floatDtypes")
    void crossEntropyWithClassIndicesAndLabelSmoothingMatchesLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 101);
        try (NDManager m = Torch.scope()) {
            for (int[] shape : INPUT_SHAPES) {
                Tensor logits = Inputs.randn(rng, d, shape), weight = Inputs.rand(rng, d, shape[shape.length == 1 ? 0 : 1]);
                Tensor x = Inputs.nonContiguous(logits);
                for (boolean ignored : new boolean[] {false, true}) {
                    Tensor target = targetsFor(rng, shape, ignored);
                    int ignoreIndex = ignored ? 1 : -100;
                    for (int r = 0; r < 3; r++) {
                        for (double smoothing : new double[] {0.0, 0.2}) {
                            String ctx = "cross_entropy " + d + " " + java.util.Arrays.toString(shape) + " " + REDUCTIONS[r] + " smoothing " + smoothing + (ignored ? " ignoring 1" : "");
                            assertClose(F.crossEntropy(x, target, null, REDUCTIONS[r], ignoreIndex, smoothing),
                                    Torch.call(m, "ops.aten.cross_entropy_loss(a, b, None, " + r + ", " + ignoreIndex + ", " + smoothing + ")", x, target), ctx);
                            assertClose(F.crossEntropy(x, target, weight, REDUCTIONS[r], ignoreIndex, smoothing),
                                    Torch.call(m, "ops.aten.cross_entropy_loss(a, b, c, " + r + ", " + ignoreIndex + ", " + smoothing + ")", x, target, weight), ctx + " weighted");
                        }
                    }
                }
            }
            Tensor logits = Inputs.randn(rng, d, 8, 10), target = Inputs.randint(rng, DType.INT64, 0, 10, 8);
            assertClose(F.crossEntropy(logits, target), Torch.call(m, "ops.aten.cross_entropy_loss(a, b)", logits, target), "defaults");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("floatDtypes")
    void crossEntropyWithClassProbabilitiesMatchesLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 111);
        try (NDManager m = Torch.scope()) {
            for (int[] shape : List.of(new int[] {5}, new int[] {7, 5}, new int[] {2, 5, 3, 4}, new int[] {0, 5})) {
                Tensor logits = Inputs.randn(rng, d, shape), probabilities = Inputs.randn(rng, d, shape).softmax(shape.length == 1 ? 0 : 1);
                Tensor weight = Inputs.rand(rng, d, shape[shape.length == 1 ? 0 : 1]);
                for (int r = 0; r < 3; r++) {
                    for (double smoothing : new double[] {0.0, 0.3}) {
                        String ctx = "cross_entropy probabilities " + d + " " + java.util.Arrays.toString(shape) + " " + REDUCTIONS[r] + " smoothing " + smoothing;
                        assertClose(F.crossEntropy(logits, probabilities, null, REDUCTIONS[r], -100, smoothing),
                                Torch.call(m, "ops.aten.cross_entropy_loss(a, b, None, " + r + ", -100, " + smoothing + ")", logits, probabilities), ctx);
                        assertClose(F.crossEntropy(logits, probabilities, weight, REDUCTIONS[r], -100, smoothing),
                                Torch.call(m, "ops.aten.cross_entropy_loss(a, b, c, " + r + ", -100, " + smoothing + ")", logits, probabilities, weight), ctx + " weighted");
                    }
                }
            }
        }
    }

    @Test
    void mseLossBroadcastsPromotesAndReducesLikeLibtorch() {
        Random rng = new Random(121);
        DType[][] pairs = {{DType.FLOAT32, DType.FLOAT32}, {DType.FLOAT64, DType.FLOAT64}, {DType.FLOAT32, DType.FLOAT64}, {DType.INT64, DType.FLOAT32}};
        try (NDManager m = Torch.scope()) {
            for (DType[] p : pairs) {
                for (int[][] s : Inputs.BROADCAST_SHAPES) {
                    Tensor a = Inputs.randn(rng, DType.FLOAT64, s[0]).mul(3.0).to(p[0]), b = Inputs.nonContiguous(Inputs.randn(rng, p[1], s[1]));
                    for (String reduction : REDUCTIONS) {
                        int r = java.util.Arrays.asList(REDUCTIONS).indexOf(reduction);
                        String ctx = "mse_loss " + p[0] + java.util.Arrays.toString(s[0]) + " " + p[1] + java.util.Arrays.toString(s[1]) + " " + REDUCTIONS[r];
                        PointwiseBinaryTest.check(m, ctx, () -> F.mseLoss(a, b, reduction), "ops.aten.mse_loss(a, b, " + r + ")", a, b);
                    }
                }
            }
            Tensor ints = Tensor.ofLongs(1, 2, 3);
            refused(m, "integer inputs", () -> F.mseLoss(ints, ints), "ops.aten.mse_loss(a, b, 1)", ints, ints);
        }
        var e = assertThrows(IllegalArgumentException.class, () -> F.mseLoss(Tensor.ones(2), Tensor.ones(2), "avg"));
        assertEquals("mse_loss: avg is not a valid value for reduction", e.getMessage());
    }

    @Test
    void lossesRefuseWhatLibtorchRefuses() {
        Random rng = new Random(131);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 4, 3), target = Tensor.ofLongs(0, 2, 1, 1);
        try (NDManager m = Torch.scope()) {
            refused(m, "target out of bounds", () -> F.nllLoss(x, Tensor.ofLongs(0, 3, 1, 1)), "ops.aten.nll_loss_nd(a, b, None, 1, -100)", x, Tensor.ofLongs(0, 3, 1, 1));
            refused(m, "negative target", () -> F.nllLoss(x, Tensor.ofLongs(0, -1, 1, 1)), "ops.aten.nll_loss_nd(a, b, None, 1, -100)", x, Tensor.ofLongs(0, -1, 1, 1));
            refused(m, "batch mismatch", () -> F.nllLoss(x, Tensor.ofLongs(0, 1)), "ops.aten.nll_loss_nd(a, b, None, 1, -100)", x, Tensor.ofLongs(0, 1));
            refused(m, "forward: batch mismatch", () -> LossOps.NLL_LOSS_FORWARD.callList(x, Tensor.ofLongs(0, 1), null, 1L, -100L).getFirst(),
                    "ops.aten.nll_loss_forward(a, b, None, 1, -100)", x, Tensor.ofLongs(0, 1));
            refused(m, "forward: 3-d input", () -> LossOps.NLL_LOSS_FORWARD.callList(x.unsqueeze(2), target, null, 1L, -100L).getFirst(),
                    "ops.aten.nll_loss_forward(a, b, None, 1, -100)", x.unsqueeze(2), target);
            Tensor badWeight = Tensor.ones(4);
            refused(m, "weight size", () -> F.nllLoss(x, target, badWeight, "mean", -100), "ops.aten.nll_loss_nd(a, b, c, 1, -100)", x, target, badWeight);
            Tensor spatial = Inputs.randn(rng, DType.FLOAT32, 2, 3, 4, 5), badTarget = Tensor.zeros(DType.INT64, 2, 4, 4);
            refused(m, "spatial target size", () -> F.nllLoss(spatial, badTarget), "ops.aten.nll_loss_nd(a, b, None, 1, -100)", spatial, badTarget);
            Tensor volume = Inputs.randn(rng, DType.FLOAT32, 2, 3, 4), badVolumeTarget = Tensor.zeros(DType.INT64, 2, 5);
            refused(m, "3-d target size", () -> F.nllLoss(volume, badVolumeTarget), "ops.aten.nll_loss_nd(a, b, None, 1, -100)", volume, badVolumeTarget);
            refused(m, "integer input", () -> F.nllLoss(target.reshape(2, 2), Tensor.ofLongs(0, 1)), "ops.aten.nll_loss_nd(a, b, None, 1, -100)",
                    target.reshape(2, 2), Tensor.ofLongs(0, 1));
            refused(m, "int32 target", () -> F.nllLoss(x, target.to(DType.INT32)), "ops.aten.nll_loss_nd(a, b, None, 1, -100)", x, target.to(DType.INT32));
            Tensor probabilitiesAsInts = Tensor.zeros(DType.INT64, 4, 3);
            refused(m, "integer probabilities", () -> F.crossEntropy(x, probabilitiesAsInts), "ops.aten.cross_entropy_loss(a, b)", x, probabilitiesAsInts);
            Tensor probabilities = x.softmax(1);
            refused(m, "ignore_index with probabilities", () -> F.crossEntropy(x, probabilities, null, "mean", 0, 0.0),
                    "ops.aten.cross_entropy_loss(a, b, None, 1, 0)", x, probabilities);
            refused(m, "label smoothing above 1", () -> F.crossEntropy(x, target, null, "mean", -100, 1.5),
                    "ops.aten.cross_entropy_loss(a, b, None, 1, -100, 1.5)", x, target);
            refused(m, "integer logits", () -> F.crossEntropy(target.reshape(2, 2), Tensor.ofLongs(0, 1)), "ops.aten.cross_entropy_loss(a, b)",
                    target.reshape(2, 2), Tensor.ofLongs(0, 1));
        }
    }

    @Test
    void oneHotMatchesLibtorchAndNeedsNumClassesWhileTracing() {
        Random rng = new Random(141);
        try (NDManager m = Torch.scope()) {
            Tensor idx = Inputs.randint(rng, DType.INT64, 0, 6, 3, 4);
            for (Inputs.Layout in : Inputs.layouts(idx)) {
                assertClose(F.oneHot(in.tensor()), Torch.call(m, "ops.aten.one_hot(a, -1)", in.tensor()), "inferred " + in);
                assertClose(F.oneHot(in.tensor(), 9), Torch.call(m, "ops.aten.one_hot(a, 9)", in.tensor()), "9 classes " + in);
            }
            Tensor scalar = Tensor.scalar(2L), empty = Tensor.zeros(DType.INT64, 0, 2);
            assertClose(F.oneHot(scalar), Torch.call(m, "ops.aten.one_hot(a, -1)", scalar), "0-d");
            assertClose(F.oneHot(empty, 3), Torch.call(m, "ops.aten.one_hot(a, 3)", empty), "empty");
            refused(m, "empty, inferred", () -> F.oneHot(empty), "ops.aten.one_hot(a, -1)", empty);
            refused(m, "int32", () -> F.oneHot(idx.to(DType.INT32)), "ops.aten.one_hot(a, -1)", idx.to(DType.INT32));
            refused(m, "negative", () -> F.oneHot(Tensor.ofLongs(1, -1)), "ops.aten.one_hot(a, -1)", Tensor.ofLongs(1, -1));
            refused(m, "too few classes", () -> F.oneHot(Tensor.ofLongs(1, 5), 5), "ops.aten.one_hot(a, 5)", Tensor.ofLongs(1, 5));
        }
        FakeTensor fake = new FakeTensor(TensorMeta.contiguous(DType.INT64, 3, 4));
        assertArrayEquals(new int[] {3, 4, 7}, F.oneHot(fake, 7).shape());
        var e = assertThrows(IllegalArgumentException.class, () -> F.oneHot(fake));
        assertTrue(e.getMessage().contains("pass num_classes"), e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("floatDtypes")
    void logSoftmaxAndSoftmaxWithADtypeConvertFirst(DType to) {
        Random rng = new Random(151);
        try (NDManager m = Torch.scope()) {
            for (DType from : DType.values()) {
                Tensor x = from.isFloatingPoint() ? Inputs.randn(rng, from, 3, 7) : Inputs.randint(rng, from, 0, from.isBool() ? 2 : 9, 3, 7);
                String name = to == DType.FLOAT32 ? "torch.float32" : "torch.float64";
                assertClose(x.logSoftmax(1, to), Torch.call(m, "torch.log_softmax(a, 1, dtype=" + name + ")", x), "log_softmax " + from + " in " + to);
                assertClose(x.softmax(0, to), Torch.call(m, "torch.softmax(a, 0, dtype=" + name + ")", x), "softmax " + from + " in " + to);
            }
            Tensor ints = Tensor.ofLongs(1, 2, 3);
            refused(m, "log_softmax of ints, no dtype", () -> OpRegistry.get("aten.log_softmax.int").callTensor(ints, 0L), "torch.log_softmax(a, 0)", ints);
        }
    }
}
