package dev.ember.nn;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The three modules session 41 left: {@link CrossMapLRN2d} (against torch's own running-sum
 * algorithm, run in libtorch), {@link AdaptiveLogSoftmaxWithLoss} (forward, log_prob, predict and
 * gradients against libtorch computing the same distribution) and {@link SyncBatchNorm} with
 * {@code convert_sync_batchnorm} (one process: torch's fallback to batch_norm).
 */
class CrossMapLrnAdaptiveSoftmaxSyncBatchNormTest {

    /** torch's _cross_map_lrn2d forward, its loop as written there, in TorchScript; the gradient is libtorch's autograd through it. */
    private static final String CROSS_MAP_REFERENCE = """
            x = a.double().detach().requires_grad_(True)
            size = %d
            sq = x * x
            C = x.size(1)
            pre = int((size - 1) / 2 + 1)
            first = sq.narrow(1, 0, min(pre, C)).sum(1)
            scales = [first]
            for c in range(1, C):
                s = scales[c - 1]
                if c < C - pre + 1:
                    s = s + sq.select(1, c + pre - 1)
                if c > pre:
                    s = s - sq.select(1, c - pre)
                scales.append(s)
            scale = torch.stack(scales, 1) * (%s / size) + %s
            out = torch.pow(scale, -%s) * x
            g = torch.autograd.grad([(out * b.double()).sum()], [x])[0]
            return [out, g]""";

    @Test
    void crossMapLrnIsTorchsAlgorithmWithItsGradient() {
        Random rng = new Random(1);
        record Case(int size, double alpha, double beta, double k, int[] shape) {}
        for (Case c : List.of(new Case(5, 5e-3, 1e-3, 2, new int[] {2, 3, 6, 6}),      // torch's module test
                new Case(3, 0.5, 0.75, 1, new int[] {2, 7, 3, 4}),                          // more channels than pre_pad: torch's window
                new Case(4, 0.2, 0.6, 1.5, new int[] {1, 6, 2, 3}),
                new Case(1, 1e-4, 0.75, 1, new int[] {2, 4, 2, 2}))) {
            for (DType dtype : List.of(DType.FLOAT64, DType.FLOAT32)) {
                CrossMapLRN2d lrn = new CrossMapLRN2d(c.size, c.alpha, c.beta, c.k);
                Tensor x = Inputs.randn(rng, dtype, c.shape).requiresGrad(true);
                Tensor g = Inputs.randn(rng, dtype, c.shape);
                Tensor y = lrn.forward(x);
                Tensor grad = Autograd.grad(List.of(y), List.of(x), List.of(g), false, false, false).get(0);
                try (NDManager m = Torch.scope()) {
                    NDList want = Torch.callListWithGrad(m, CROSS_MAP_REFERENCE.formatted(c.size, c.alpha, c.k, c.beta), x.detach(), g);
                    Tolerance tol = dtype == DType.FLOAT32 ? Tolerance.of(1e-5, 1e-5) : Tolerance.of(1e-12, 1e-12);
                    assertClose(y, want.get(0).toType(Torch.dataType(dtype), false), c + " " + dtype + " forward", tol);
                    assertClose(grad, want.get(1).toType(Torch.dataType(dtype), false), c + " " + dtype + " gradient", tol);
                }
            }
        }
    }

    @Test
    void crossMapLrnRefusesOtherRanksAndPrintsAsTorch() {
        var e = assertThrows(IllegalArgumentException.class, () -> new CrossMapLRN2d(3).forward(Tensor.randn(2, 3, 4)));
        assertEquals("CrossMapLRN2d: Expected input to be 4D, got 3D instead.", e.getMessage());
        assertEquals("CrossMapLRN2d(5, alpha=0.005, beta=0.001, k=2)", new CrossMapLRN2d(5, 5e-3, 1e-3, 2).toString());
        assertEquals("CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)", new CrossMapLRN2d(3).toString());
    }

    // ------------------------------------------------------------------ AdaptiveLogSoftmaxWithLoss

    /** The full log-distribution from the head's and tail's weights, in libtorch (a = input, b = head weight, c… = the tail's two weights per cluster). */
    private static String fullLogProb(int shortlist, int clusters) {
        StringBuilder sb = new StringBuilder("h = torch.log_softmax(torch.linear(x, hw), 1)\nparts = [h.narrow(1, 0, " + shortlist + ")]\n");
        for (int i = 0; i < clusters; i++) {
            sb.append("parts.append(torch.log_softmax(torch.linear(torch.linear(x, t").append(i).append("a), t").append(i).append("b), 1) + h.narrow(1, ")
                    .append(shortlist + i).append(", 1))\n");
        }
        return sb.append("lp = torch.cat(parts, 1)\n").toString();
    }

    @Test
    void adaptiveLogSoftmaxMatchesLibtorchWithGradients() {
        Tensor.manualSeed(3);
        for (DType dtype : List.of(DType.FLOAT64, DType.FLOAT32)) {
            var asm = new AdaptiveLogSoftmaxWithLoss(16, 20, new int[] {4, 9, 15}, 2.0, false);
            asm.to(dtype);
            assertEquals(List.of("head.weight", "tail.0.0.weight", "tail.0.1.weight", "tail.1.0.weight", "tail.1.1.weight", "tail.2.0.weight", "tail.2.1.weight"),
                    List.copyOf(asm.stateDict().keySet()));
            assertArrayEquals(new int[] {7, 16}, asm.head.weight.shape());
            assertArrayEquals(new int[] {8, 16}, ((Linear) asm.tail.get(0).get(0)).weight.shape());   // 16 // 2
            assertArrayEquals(new int[] {5, 2}, ((Linear) asm.tail.get(2).get(1)).weight.shape());    // 16 // 8, classes 15..19
            Tensor x = Tensor.randn(6, 16).to(dtype).requiresGrad(true);
            Tensor target = Tensor.ofLongs(0, 5, 19, 3, 9, 14);   // shortlist, clusters 0, 2, shortlist, 1, 0: cluster 1 has one row
            AdaptiveLogSoftmaxWithLoss.Output o = asm.forward(x, target);
            List<Tensor> leaves = new ArrayList<>(List.of(x));
            leaves.addAll(asm.parameters());
            List<Tensor> grads = Autograd.grad(List.of(o.loss()), leaves, null, false, false, false);
            StringBuilder script = new StringBuilder("x = a.double().detach().requires_grad_(True)\nhw = b[0].double().detach().requires_grad_(True)\n");
            List<String> names = new ArrayList<>(List.of("x", "hw"));
            for (int i = 0; i < 3; i++) {
                script.append("t").append(i).append("a = b[").append(1 + 2 * i).append("].double().detach().requires_grad_(True)\n");
                script.append("t").append(i).append("b = b[").append(2 + 2 * i).append("].double().detach().requires_grad_(True)\n");
                names.add("t" + i + "a");
                names.add("t" + i + "b");
            }
            script.append(fullLogProb(4, 3)).append("out = lp.gather(1, c.unsqueeze(1)).squeeze(1)\nloss = (-out).mean()\n")
                    .append("gs = torch.autograd.grad([loss], [").append(String.join(", ", names)).append("])\n")
                    .append("res = [out, loss, lp]\nfor g in gs:\n    if g is not None:\n        res.append(g)\nreturn res");
            try (NDManager m = Torch.scope()) {
                List<Tensor> weights = asm.parameters().stream().map(Tensor::detach).toList();
                NDList want = Torch.callListWithGrad(m, script.toString(), x.detach(), weights, target);
                Tolerance tol = dtype == DType.FLOAT32 ? Tolerance.of(1e-5, 1e-5) : Tolerance.of(1e-12, 1e-12);
                var type = Torch.dataType(dtype);
                assertClose(o.output(), want.get(0).toType(type, false), dtype + " output", tol);
                assertClose(o.loss(), want.get(1).toType(type, false), dtype + " loss", tol);
                assertClose(asm.logProb(x.detach()), want.get(2).toType(type, false), dtype + " log_prob", tol);
                for (int k = 0; k < grads.size(); k++) assertClose(grads.get(k), want.get(3 + k).toType(type, false), dtype + " gradient " + names.get(k), tol);
                Tensor expectedPrediction = Torch.fromNd(want.get(2).argMax(1));
                assertArrayEquals(expectedPrediction.toLongArray(), asm.predict(x.detach()).toLongArray(), "predict is log_prob's argmax");
            }
        }
    }

    @Test
    void adaptiveLogSoftmaxUnbatchedAndPredictPaths() {
        Tensor.manualSeed(5);
        var asm = new AdaptiveLogSoftmaxWithLoss(8, 10, new int[] {3}, 4.0, true);
        assertEquals(List.of("head.bias", "head.weight", "tail.0.0.weight", "tail.0.1.weight").stream().sorted().toList(),
                asm.stateDict().keySet().stream().sorted().toList());
        Tensor x = Tensor.randn(5, 8);
        Tensor target = Tensor.ofLongs(1, 7, 9, 0, 4);
        var batched = asm.forward(x, target);
        var single = asm.forward(x.select(0, 1), Tensor.scalar(7L));
        assertEquals(0, single.output().dim());
        assertClose(single.output(), Torch.toNd(batched.output().select(0, 1).detach()), "unbatched = its row");
        assertClose(single.loss(), Torch.toNd(batched.output().select(0, 1).neg().detach()), "unbatched loss");
        // predict: every path (all in the shortlist, none, mixed) is log_prob's argmax
        try (var unused = dev.ember.Ember.noGrad()) {
            asm.head.bias.copy_(Tensor.of(new double[] {50, 0, 0, -50}, 4));            // the head picks class 0 everywhere
            assertArrayEquals(asm.logProb(x).argmax(1).toLongArray(), asm.predict(x).toLongArray());
            asm.head.bias.copy_(Tensor.of(new double[] {-50, -50, -50, 50}, 4));          // the cluster everywhere
            assertArrayEquals(asm.logProb(x).argmax(1).toLongArray(), asm.predict(x).toLongArray());
            asm.head.bias.copy_(Tensor.of(new double[] {0, 0, 0, 0}, 4));
            asm.head.weight.copy_(Tensor.zeros(4, 8));
            Tensor mixed = Tensor.cat(List.of(Tensor.zeros(1, 8), Tensor.ones(1, 8)), 0);
            asm.head.weight.narrow(0, 3, 1).fill_(1.0);                                  // row 0 ties (shortlist), row 1 the cluster
            assertArrayEquals(asm.logProb(mixed).argmax(1).toLongArray(), asm.predict(mixed).toLongArray());
        }
    }

    @Test
    void adaptiveLogSoftmaxRefusesInTorchsWords() {
        assertEquals("cutoffs should be a sequence of length larger than 0",
                assertThrows(IllegalArgumentException.class, () -> new AdaptiveLogSoftmaxWithLoss(8, 10, new int[0])).getMessage());
        for (int[] bad : List.of(new int[] {5, 3}, new int[] {0, 4}, new int[] {4, 10}, new int[] {3, 3})) {
            assertTrue(assertThrows(IllegalArgumentException.class, () -> new AdaptiveLogSoftmaxWithLoss(8, 10, bad)).getMessage()
                    .startsWith("cutoffs should be a sequence of unique, positive integers sorted in an increasing order"));
        }
        var asm = new AdaptiveLogSoftmaxWithLoss(8, 10, new int[] {3, 6});
        assertEquals("Target values should be in [0, 9], but values in range [-1, 10] were found. ",
                assertThrows(IllegalArgumentException.class, () -> asm.forward(Tensor.randn(3, 8), Tensor.ofLongs(-1, 2, 10))).getMessage());
        assertEquals("Input and target should have the same size in the batch dimension.",
                assertThrows(IllegalArgumentException.class, () -> asm.forward(Tensor.randn(3, 8), Tensor.ofLongs(1, 2))).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> asm.forward(Tensor.randn(2, 2, 8), Tensor.ofLongs(1, 2))).getMessage()
                .startsWith("1D target tensor expects 2D input tensors, but found inputs with size"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> asm.forward(Tensor.randn(2, 8), Tensor.scalar(1L))).getMessage()
                .startsWith("0D target tensor expects 1D input tensors"));
        assertEquals("0D or 1D target tensor expected, multi-target not supported",
                assertThrows(IllegalArgumentException.class, () -> asm.forward(Tensor.randn(2, 8), Tensor.ofLongs(1, 2, 3, 4).reshape(2, 2))).getMessage());
    }

    // ------------------------------------------------------------------ SyncBatchNorm

    @Test
    void syncBatchNormIsBatchNormInOneProcess() {
        Random rng = new Random(7);
        for (int[] shape : List.of(new int[] {4, 3}, new int[] {2, 3, 5}, new int[] {2, 3, 4, 4}, new int[] {2, 3, 2, 2, 3})) {
            SyncBatchNorm bn = new SyncBatchNorm(3, 1e-3, 0.3, true, true);
            try (var unused = dev.ember.Ember.noGrad()) {
                bn.weight.copy_(Inputs.randn(rng, DType.FLOAT32, 3));
                bn.bias.copy_(Inputs.randn(rng, DType.FLOAT32, 3));
            }
            Tensor x = Inputs.randn(rng, DType.FLOAT32, shape);
            Tensor mean0 = bn.runningMean.clone(), var0 = bn.runningVar.clone();
            Tensor y = bn.forward(x);
            try (NDManager m = Torch.scope()) {
                NDList want = Torch.callList(m, "y = torch.batch_norm(a, b, c, d, e, True, 0.3, 1e-3, False)\nreturn (y, d, e)",
                        x, bn.weight.detach(), bn.bias.detach(), mean0, var0);
                assertClose(y, want.get(0), "train " + java.util.Arrays.toString(shape));
                assertClose(bn.runningMean, want.get(1), "running mean");
                assertClose(bn.runningVar, want.get(2), "running var");
                assertEquals(1L, bn.numBatchesTracked.toLongArray()[0]);
                bn.eval();
                assertClose(bn.forward(x), Torch.call(m, "torch.batch_norm(a, b, c, d, e, False, 0.3, 1e-3, False)", x, bn.weight.detach(), bn.bias.detach(),
                        bn.runningMean, bn.runningVar), "eval");
            }
        }
        assertEquals("SyncBatchNorm(8, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)", new SyncBatchNorm(8).toString());
        assertEquals("expected at least 2D input (got 1D input)", assertThrows(IllegalArgumentException.class, () -> new SyncBatchNorm(3).forward(Tensor.randn(3))).getMessage());
        assertEquals("SyncBatchNorm number of input channels should be non-zero",
                assertThrows(IllegalArgumentException.class, () -> new SyncBatchNorm(0).forward(Tensor.randn(2, 0, 3))).getMessage());
    }

    /** A user's model with a batch norm in a field typed so it can hold a SyncBatchNorm. */
    static final class Net extends Module {
        Conv2d conv = new Conv2d(3, 4, 3);
        BatchNorm bn = new BatchNorm2d(4, 1e-3, 0.2, true, true);
        Sequential head = new Sequential(new Linear(4, 4), new BatchNorm1d(4));
    }

    static final class NarrowlyTyped extends Module {
        BatchNorm2d bn = new BatchNorm2d(4);
    }

    @Test
    void convertSyncBatchnormReplacesEveryBatchNormSharingItsTensors() {
        Net net = new Net();
        net.eval();
        BatchNorm old = net.bn;
        BatchNorm1d oldHead = (BatchNorm1d) net.head.get(1);
        assertSame(net, SyncBatchNorm.convertSyncBatchnorm(net));
        SyncBatchNorm sync = assertInstanceOf(SyncBatchNorm.class, net.bn);
        assertInstanceOf(SyncBatchNorm.class, net.head.get(1));
        assertInstanceOf(Conv2d.class, net.conv);
        assertSame(old.weight, sync.weight);
        assertSame(old.runningMean, sync.runningMean);
        assertSame(old.numBatchesTracked, sync.numBatchesTracked);
        assertSame(oldHead.runningVar, ((SyncBatchNorm) net.head.get(1)).runningVar);
        assertEquals(0.2, sync.momentum);
        assertEquals(1e-3, sync.eps);
        assertTrue(!sync.isTraining(), "the training mode is kept");
        assertEquals(List.copyOf(new Net().stateDict().keySet()), List.copyOf(net.stateDict().keySet()), "the same state-dict keys");

        BatchNorm3d alone = new BatchNorm3d(2, 1e-5, 0.1, false, false);
        Module converted = SyncBatchNorm.convertSyncBatchnorm(alone);
        assertNotSame(alone, converted);
        assertEquals("SyncBatchNorm(2, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False)", converted.toString());

        var e = assertThrows(IllegalArgumentException.class, () -> SyncBatchNorm.convertSyncBatchnorm(new NarrowlyTyped()));
        assertTrue(e.getMessage().contains("cannot put a SyncBatchNorm in NarrowlyTyped.bn: the field's type is BatchNorm2d"), e.getMessage());

        ModuleDict<Module> dict = new ModuleDict<>(java.util.Map.of("norm", new BatchNorm1d(3)));
        SyncBatchNorm.convertSyncBatchnorm(dict);
        assertInstanceOf(SyncBatchNorm.class, dict.get("norm"));
    }
}
