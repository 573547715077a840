package dev.ember.nn;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.List;
import java.util.Random;

import static dev.ember.nn.ActivationsTest.checkGradient;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The losses, distances, normalizations and padding of {@link F} against libtorch: each reduction
 * in float32 and float64, broadcasting, the edge values (targets of 0 for kl_div, probabilities of
 * 0 and 1 for binary_cross_entropy, zero vectors for normalize and cosine_similarity), float64
 * gradients with respect to every differentiable argument, and bad input.
 */
class MoreLossesTest {
    private static final Random RNG = new Random(47);
    private static final String[] REDUCTIONS = {"none", "mean", "sum"};

    @Test
    void regressionLossesMatchLibtorchForEachReduction() {
        for (DType dtype : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor x = Inputs.randn(RNG, dtype, 4, 5).mul(2.0), y = Inputs.randn(RNG, dtype, 4, 5).mul(2.0), row = Inputs.randn(RNG, dtype, 5);
            for (int r = 0; r < 3; r++) {
                String red = REDUCTIONS[r], ctx = " " + dtype + " " + red;
                assertClose(F.l1Loss(x, y, red), Torch.call("ops.aten.l1_loss(a, b, " + r + ")", x, y), "l1_loss" + ctx);
                assertClose(F.l1Loss(x, row, red), Torch.call("ops.aten.l1_loss(a, b, " + r + ")", x, row), "l1_loss broadcast" + ctx);
                assertClose(F.smoothL1Loss(x, y, red, 1.0), Torch.call("ops.aten.smooth_l1_loss(a, b, " + r + ", 1.0)", x, y), "smooth_l1_loss" + ctx);
                assertClose(F.smoothL1Loss(x, y, red, 0.5), Torch.call("ops.aten.smooth_l1_loss(a, b, " + r + ", 0.5)", x, y), "smooth_l1_loss beta 0.5" + ctx);
                assertClose(F.smoothL1Loss(x, y, red, 0.0), Torch.call("ops.aten.smooth_l1_loss(a, b, " + r + ", 0.0)", x, y), "smooth_l1_loss beta 0" + ctx);
                assertClose(F.huberLoss(x, row, red, 1.0), Torch.call("ops.aten.huber_loss(a, b, " + r + ", 1.0)", x, row), "huber_loss" + ctx);
                assertClose(F.huberLoss(x, y, red, 2.5), Torch.call("ops.aten.huber_loss(a, b, " + r + ", 2.5)", x, y), "huber_loss delta 2.5" + ctx);
            }
            assertClose(F.l1Loss(x, y), Torch.call("ops.aten.l1_loss(a, b)", x, y), "l1_loss default");
            assertClose(F.smoothL1Loss(x, y), Torch.call("ops.aten.smooth_l1_loss(a, b)", x, y), "smooth_l1_loss default");
            assertClose(F.huberLoss(x, y), Torch.call("ops.aten.huber_loss(a, b)", x, y), "huber_loss default");
        }
        // at the kinks: |x - y| equal to beta or delta, and 0
        Tensor x = Tensor.of(new double[] {0, 1, -1, 0.5, 2.5, 3}, 6), y = Tensor.zeros(6).to(DType.FLOAT64);
        for (int r = 0; r < 3; r++) {
            String red = REDUCTIONS[r];
            Tensor target = y;
            checkGradient("l1_loss " + red, t -> F.l1Loss(t, target, red), "ops.aten.l1_loss(a, torch.zeros(6, dtype=torch.float64), " + r + ")", x);
            checkGradient("smooth_l1_loss " + red, t -> F.smoothL1Loss(t, target, red, 1.0),
                    "ops.aten.smooth_l1_loss(a, torch.zeros(6, dtype=torch.float64), " + r + ", 1.0)", x);
            checkGradient("huber_loss " + red, t -> F.huberLoss(t, target, red, 2.5),
                    "ops.aten.huber_loss(a, torch.zeros(6, dtype=torch.float64), " + r + ", 2.5)", x);
        }
        Tensor a = Inputs.randn(RNG, DType.FLOAT64, 3, 4), b = Inputs.randn(RNG, DType.FLOAT64, 3, 4);
        checkGradient("smooth_l1_loss wrt target", t -> F.smoothL1Loss(a, t, "sum", 0.7), "ops.aten.smooth_l1_loss(" + literal(a) + ", a, 2, 0.7)", b);
    }

    @Test
    void klDivMatchesLibtorchWithZeroTargetsAndLogTargets() {
        for (DType dtype : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor input = Inputs.randn(RNG, dtype, 3, 4).logSoftmax(1);
            Tensor target = Inputs.randn(RNG, dtype, 3, 4).softmax(1).mul(Inputs.rand(RNG, dtype, 3, 4).gt(0.3).to(dtype));
            for (int r = 0; r < 3; r++) {
                assertClose(F.klDiv(input, target, REDUCTIONS[r], false), Torch.call("ops.aten.kl_div(a, b, " + r + ")", input, target), "kl_div " + dtype + " " + REDUCTIONS[r]);
                assertClose(F.klDiv(input, target.add(1e-3).log(), REDUCTIONS[r], true),
                        Torch.call("ops.aten.kl_div(a, b, " + r + ", log_target=True)", input, target.add(1e-3).log()), "kl_div log_target " + dtype);
            }
            assertClose(F.klDiv(input, target, "batchmean", false), Torch.call("ops.aten.kl_div(a, b, 2) / 3", input, target), "kl_div batchmean");
            assertClose(F.klDiv(input, target), Torch.call("ops.aten.kl_div(a, b)", input, target), "kl_div default");
        }
        Tensor input = Inputs.randn(RNG, DType.FLOAT64, 3, 4), target = Inputs.rand(RNG, DType.FLOAT64, 3, 4).add(0.1);
        checkGradient("kl_div wrt input", t -> F.klDiv(t, target, "sum", false), "ops.aten.kl_div(a, " + literal(target) + ", 2)", input);
        checkGradient("kl_div wrt target", t -> F.klDiv(input, t, "mean", false), "ops.aten.kl_div(" + literal(input) + ", a, 1)", target);
        checkGradient("kl_div log_target", t -> F.klDiv(input, t, "none", true), "ops.aten.kl_div(" + literal(input) + ", a, 0, log_target=True)", input.mul(0.5));
    }

    @Test
    void binaryCrossEntropyMatchesLibtorchAndClampsItsLogs() {
        for (DType dtype : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor p = Inputs.rand(RNG, dtype, 3, 4), t = Inputs.rand(RNG, dtype, 3, 4), w = Inputs.rand(RNG, dtype, 4);
            for (int r = 0; r < 3; r++) {
                assertClose(F.binaryCrossEntropy(p, t, null, REDUCTIONS[r]), Torch.call("ops.aten.binary_cross_entropy(a, b, None, " + r + ")", p, t), "bce " + dtype);
                assertClose(F.binaryCrossEntropy(p, t, w, REDUCTIONS[r]), Torch.call("ops.aten.binary_cross_entropy(a, b, c, " + r + ")", p, t, w), "bce weight " + dtype);
            }
            // probabilities of exactly 0 and 1: each log is clamped at -100
            Tensor edge = Tensor.of(new double[] {0, 1, 0, 1, 0.5, 1e-30}, 6).to(dtype), labels = Tensor.of(new double[] {1, 0, 0, 1, 1, 1}, 6).to(dtype);
            assertClose(F.binaryCrossEntropy(edge, labels, null, "none"), Torch.call("ops.aten.binary_cross_entropy(a, b, None, 0)", edge, labels), "bce at 0 and 1 " + dtype);
        }
        Tensor p = Inputs.rand(RNG, DType.FLOAT64, 3, 4).mul(0.9).add(0.05), t = Inputs.rand(RNG, DType.FLOAT64, 3, 4);
        checkGradient("bce wrt input", x -> F.binaryCrossEntropy(x, t), "ops.aten.binary_cross_entropy(a, " + literal(t) + ")", p);
        checkGradient("bce wrt target", x -> F.binaryCrossEntropy(p, x, null, "sum"), "ops.aten.binary_cross_entropy(" + literal(p) + ", a, None, 2)", t);
        Tensor edge = Tensor.of(new double[] {0, 1, 0.5}, 3), labels = Tensor.of(new double[] {1, 0, 0.3}, 3);
        checkGradient("bce at 0 and 1", x -> F.binaryCrossEntropy(x, labels, null, "none"), "ops.aten.binary_cross_entropy(a, " + literal(labels) + ", None, 0)", edge);
    }

    @Test
    void normalizeCosineSimilarityAndPairwiseDistanceMatchLibtorch() {
        for (DType dtype : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor x = Inputs.randn(RNG, dtype, 4, 5), y = Inputs.randn(RNG, dtype, 4, 5), row = Inputs.randn(RNG, dtype, 5);
            Tensor withZeroRow = Tensor.cat(List.of(x.narrow(0, 0, 3), Tensor.zeros(1, 5).to(dtype)), 0);
            assertClose(F.normalize(withZeroRow), Torch.call("a / torch.linalg_vector_norm(a, 2.0, [1], True).clamp_min(1e-12)", withZeroRow), "normalize " + dtype);
            assertClose(F.normalize(x, 1.0, 0, 1e-3), Torch.call("a / torch.linalg_vector_norm(a, 1.0, [0], True).clamp_min(1e-3)", x), "normalize p=1 dim 0");
            assertClose(F.normalize(x, 3.0, 1, 1e-12), Torch.call("a / torch.linalg_vector_norm(a, 3.0, [1], True).clamp_min(1e-12)", x), "normalize p=3");
            assertClose(F.normalize(x, Double.POSITIVE_INFINITY, 1, 1e-12), Torch.call("a / torch.linalg_vector_norm(a, float('inf'), [1], True).clamp_min(1e-12)", x), "normalize p=inf");
            assertClose(F.cosineSimilarity(withZeroRow, y), Torch.call("torch.cosine_similarity(a, b)", withZeroRow, y), "cosine_similarity " + dtype);
            assertClose(F.cosineSimilarity(x, row, -1, 1e-6), Torch.call("torch.cosine_similarity(a, b, -1, 1e-6)", x, row), "cosine_similarity broadcast");
            assertClose(F.pairwiseDistance(x, y), Torch.call("torch.pairwise_distance(a, b)", x, y), "pairwise_distance " + dtype);
            assertClose(F.pairwiseDistance(x, row, 1.0, 1e-6, true), Torch.call("torch.pairwise_distance(a, b, 1.0, 1e-6, True)", x, row), "pairwise_distance p=1 keepdim");
            assertClose(F.pairwiseDistance(x, y, 3.0, 0.0, false), Torch.call("torch.pairwise_distance(a, b, 3.0, 0.0)", x, y), "pairwise_distance p=3");
        }
        Tensor x = Inputs.randn(RNG, DType.FLOAT64, 4, 5), y = Inputs.randn(RNG, DType.FLOAT64, 4, 5);
        Tensor withZeroRow = Tensor.cat(List.of(x.narrow(0, 0, 3), Tensor.zeros(1, 5).to(DType.FLOAT64)), 0);
        // a zero row: ATen's norm_backward gives 0 there; a naive sqrt would give NaN
        checkGradient("normalize", F::normalize, "a / torch.linalg_vector_norm(a, 2.0, [1], True).clamp_min(1e-12)", withZeroRow);
        checkGradient("normalize p=3", t -> F.normalize(t, 3.0, 0, 1e-12), "a / torch.linalg_vector_norm(a, 3.0, [0], True).clamp_min(1e-12)", x);
        checkGradient("cosine_similarity", t -> F.cosineSimilarity(t, y), "torch.cosine_similarity(a, " + literal(y) + ")", withZeroRow);
        checkGradient("pairwise_distance", t -> F.pairwiseDistance(t, y), "torch.pairwise_distance(a, " + literal(y) + ")", x);
        checkGradient("pairwise_distance p=1", t -> F.pairwiseDistance(t, y, 1.0, 1e-6, false), "torch.pairwise_distance(a, " + literal(y) + ", 1.0)", x);
    }

    @Test
    void padMatchesLibtorchIncludingCrops() {
        Tensor x = Inputs.randn(RNG, DType.FLOAT32, 2, 3, 4);
        int[][] pads = {{1, 2}, {1, 1, 2, 0}, {0, 0, 0, 0, 1, 1}, {-1, 2}, {-1, -1, 1, -2}, {0, 0}};
        for (int[] pad : pads) {
            assertClose(F.pad(x, pad), Torch.call("torch.constant_pad_nd(a, b)", x, pad), "pad " + java.util.Arrays.toString(pad));
            assertClose(F.pad(x, pad, 2.5), Torch.call("torch.constant_pad_nd(a, b, 2.5)", x, pad), "pad value " + java.util.Arrays.toString(pad));
        }
        Tensor ints = Tensor.ofLongs(1, 2, 3);
        assertClose(F.pad(ints, new int[] {2, 1}, 7), Torch.call("torch.constant_pad_nd(a, [2, 1], 7)", ints), "pad int64");
        Tensor unpadded = F.pad(x, new int[] {0, 0});
        unpadded.add_(1.0);
        assertClose(x, Torch.call("a", x.detach()), "pad without padding returns a new tensor");
        Tensor d = Inputs.randn(RNG, DType.FLOAT64, 3, 4);
        checkGradient("pad", t -> F.pad(t, new int[] {-1, 2, 1, 0}, 0.5), "torch.constant_pad_nd(a, [-1, 2, 1, 0], 0.5)", d);
    }

    @Test
    void groupNormMatchesLibtorch() {
        for (DType dtype : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor x = Inputs.randn(RNG, dtype, 2, 6, 3, 2).mul(3.0).add(1.0), w = Inputs.randn(RNG, dtype, 6), b = Inputs.randn(RNG, dtype, 6);
            assertClose(F.groupNorm(x, 3, w, b, 1e-5), Torch.call("torch.group_norm(a, 3, b, c, 1e-5)", x, w, b), "group_norm " + dtype);
            assertClose(F.groupNorm(x, 2), Torch.call("torch.group_norm(a, 2)", x), "group_norm no affine " + dtype);
            Tensor flat = Inputs.randn(RNG, dtype, 4, 6);
            assertClose(F.groupNorm(flat, 6, w, null, 1e-3), Torch.call("torch.group_norm(a, 6, b, None, 1e-3)", flat, w), "group_norm 2-d " + dtype);
        }
        Tensor x = Inputs.randn(RNG, DType.FLOAT64, 2, 4, 3), w = Inputs.randn(RNG, DType.FLOAT64, 4), b = Inputs.randn(RNG, DType.FLOAT64, 4);
        checkGradient("group_norm wrt input", t -> F.groupNorm(t, 2, w, b, 1e-5), "torch.group_norm(a, 2, " + literal(w) + ", " + literal(b) + ")", x);
        checkGradient("group_norm wrt weight", t -> F.groupNorm(x, 2, t, b, 1e-5), "torch.group_norm(" + literal(x) + ", 2, a, " + literal(b) + ")", w);
    }

    @Test
    void badInputIsRefusedWithTheFunctionsName() {
        Tensor x = Tensor.ones(2, 3), y = Tensor.ones(2, 4);
        refused("l1_loss", () -> F.l1Loss(x, y));
        refused("huber_loss", () -> F.huberLoss(x, y));
        refused("binary_cross_entropy", () -> F.binaryCrossEntropy(x.mul(0.5), Tensor.ones(3).mul(0.5)));
        refused("cosine_similarity", () -> F.cosineSimilarity(x, y));
        refused("pairwise_distance", () -> F.pairwiseDistance(x, y));
        for (String function : List.of("l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "binary_cross_entropy")) {
            Executable call = switch (function) {
                case "l1_loss" -> () -> F.l1Loss(x, x, "avg");
                case "smooth_l1_loss" -> () -> F.smoothL1Loss(x, x, "avg", 1.0);
                case "huber_loss" -> () -> F.huberLoss(x, x, "avg", 1.0);
                case "kl_div" -> () -> F.klDiv(x, x, "avg", false);
                default -> () -> F.binaryCrossEntropy(x, x, null, "avg");
            };
            var e = assertThrows(IllegalArgumentException.class, call);
            assertEquals(function + ": avg is not a valid value for reduction", e.getMessage());
        }
        assertEquals("smooth_l1_loss: smooth_l1_loss does not support negative values for beta.",
                assertThrows(IllegalArgumentException.class, () -> F.smoothL1Loss(x, x, "mean", -1.0)).getMessage());
        assertEquals("huber_loss: huber_loss does not support non-positive values for delta.",
                assertThrows(IllegalArgumentException.class, () -> F.huberLoss(x, x, "mean", 0.0)).getMessage());
        assertEquals("binary_cross_entropy: all elements of input should be between 0 and 1",
                assertThrows(IllegalArgumentException.class, () -> F.binaryCrossEntropy(x.mul(2.0), x.mul(0.5))).getMessage());
        assertEquals("binary_cross_entropy: all elements of target should be between 0 and 1",
                assertThrows(IllegalArgumentException.class, () -> F.binaryCrossEntropy(x.mul(0.5), x.mul(-1.0))).getMessage());
        assertEquals("group_norm: Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 6, 4] and num_groups=4",
                assertThrows(IllegalArgumentException.class, () -> F.groupNorm(Tensor.ones(2, 6, 4), 4)).getMessage());
        refused("group_norm", () -> F.groupNorm(Tensor.ones(2, 6, 4), 3, Tensor.ones(4), null, 1e-5));
        refused("group_norm", () -> F.groupNorm(Tensor.ones(6), 3));
        refused("constant_pad_nd", () -> F.pad(x, new int[] {1, 2, 3}));
        refused("constant_pad_nd", () -> F.pad(x, new int[] {1, 1, 1, 1, 1, 1}));
        refused("constant_pad_nd", () -> F.pad(x, new int[] {-2, -2}));
        refused("kl_div", () -> F.klDiv(Tensor.ofLongs(1, 2), Tensor.ofLongs(1, 2)));
        refused("linalg_vector_norm", () -> F.normalize(Tensor.ofLongs(1, 2).reshape(1, 2)));
    }

    private static void refused(String function, Executable call) {
        var e = assertThrows(RuntimeException.class, call);
        assertTrue(e.getMessage().startsWith(function + ": "), e.getMessage());
    }

    /** A float64 tensor as a TorchScript literal, to hold an argument fixed in a gradient check. */
    static String literal(Tensor t) {
        StringBuilder sb = new StringBuilder("torch.tensor([");
        double[] v = t.toDoubleArray();
        for (int i = 0; i < v.length; i++) sb.append(i > 0 ? ", " : "").append(Double.toString(v[i]));
        sb.append("], dtype=torch.float64).reshape([");
        int[] shape = t.shape();
        for (int i = 0; i < shape.length; i++) sb.append(i > 0 ? ", " : "").append(shape[i]);
        return sb.append("])").toString();
    }
}
