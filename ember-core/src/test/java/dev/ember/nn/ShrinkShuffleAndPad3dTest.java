package dev.ember.nn;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;

import static dev.ember.nn.AtenRefusal.refused;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Threshold, Hardshrink, Softshrink, Softmax2d, ChannelShuffle, the CosineSimilarity and
 * PairwiseDistance modules, and the 3-d and circular padding modules (ReflectionPad3d,
 * ReplicationPad3d, CircularPad1d/2d/3d, ConstantPad3d, ZeroPad1d/3d) against libtorch: values
 * (bounds, NaN), gradients, ATen's errors, printed forms, and a compiled model equal to eager.
 */
class ShrinkShuffleAndPad3dTest {
    private final Random rng = new Random(66);

    /** Values on and around the bounds ±0.5 and ±1, a NaN and infinities, then random ones. */
    private Tensor edgy(DType dtype) {
        double[] v = {-1, -0.5, 0.5, 1, 0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.49, -0.51, 1.2, -2};
        return Tensor.of(v, 12).to(dtype).reshape(3, 4).add(Inputs.randn(rng, dtype, 3, 4).mul(0.0));
    }

    @Test
    void shrinksAndThresholdMatchLibtorch() {
        try (NDManager m = Torch.scope()) {
            for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
                for (Tensor x : List.of(edgy(d), Inputs.randn(rng, d, 4, 5), Inputs.nonContiguous(Inputs.randn(rng, d, 3, 4)))) {
                    String ctx = d + " " + Arrays.toString(x.shape());
                    assertClose(F.threshold(x, 0.5, -3.0), Torch.call(m, "torch.threshold(a, 0.5, -3.0)", x), "threshold " + ctx);
                    assertClose(new Threshold(-0.5, 7).forward(x), Torch.call(m, "torch.threshold(a, -0.5, 7.0)", x), "Threshold " + ctx);
                    assertClose(F.hardshrink(x), Torch.call(m, "torch.hardshrink(a)", x), "hardshrink " + ctx);
                    assertClose(new Hardshrink(1).forward(x), Torch.call(m, "torch.hardshrink(a, 1.0)", x), "Hardshrink(1) " + ctx);
                    assertClose(F.softshrink(x), Torch.call(m, "ops.aten.softshrink(a)", x), "softshrink " + ctx);
                    assertClose(new Softshrink(1).forward(x), Torch.call(m, "ops.aten.softshrink(a, 1.0)", x), "Softshrink(1) " + ctx);
                    assertClose(new Softshrink(0).forward(x), Torch.call(m, "ops.aten.softshrink(a, 0.0)", x), "Softshrink(0) " + ctx);
                }
            }
            Tensor ints = Inputs.randint(rng, DType.INT64, -5, 5, 3, 4);
            assertClose(F.threshold(ints, 1, 9), Torch.call(m, "torch.threshold(a, 1, 9)", ints), "threshold of int64");
            Tensor x = Inputs.randn(rng, DType.FLOAT64, 5, 6), gy = Inputs.randn(rng, DType.FLOAT64, 5, 6);
            for (String[] op : List.of(new String[] {"threshold", "torch.threshold(a, 0.2, 3.0)"}, new String[] {"hardshrink", "torch.hardshrink(a, 0.4)"},
                    new String[] {"softshrink", "ops.aten.softshrink(a, 0.4)"})) {
                Function<Tensor, Tensor> f = switch (op[0]) {
                    case "threshold" -> t -> F.threshold(t, 0.2, 3.0);
                    case "hardshrink" -> t -> F.hardshrink(t, 0.4);
                    default -> t -> F.softshrink(t, 0.4);
                };
                Tensor leaf = x.detach().requiresGrad(true);
                f.apply(leaf).mul(gy).sum().backward();
                NDList want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([(" + op[1] + " * b).sum()], [a])", x, gy);
                assertClose(leaf.grad(), want.head(), op[0] + " gradient");
            }
            Tensor y = Tensor.randn(3);
            refused(m, "softshrink, negative lambda", () -> F.softshrink(y, -0.5), "ops.aten.softshrink(a, -0.5)", y);
            Tensor longs = Tensor.zeros(DType.INT64, 3);
            refused(m, "hardshrink of int64", () -> F.hardshrink(longs), "torch.hardshrink(a)", longs);
        }
        assertEquals("Threshold(threshold=0.1, value=20.0)", new Threshold(0.1, 20).toString());
        assertEquals("Hardshrink(0.5)", new Hardshrink().toString());
        assertEquals("Softshrink(0.25)", new Softshrink(0.25).toString());
    }

    @Test
    void softmax2dChannelShuffleAndDistanceModulesMatchLibtorch() {
        try (NDManager m = Torch.scope()) {
            for (Tensor x : List.of(Inputs.randn(rng, DType.FLOAT32, 2, 3, 4, 5), Inputs.randn(rng, DType.FLOAT64, 3, 4, 5))) {
                assertClose(new Softmax2d().forward(x), Torch.call(m, "torch.softmax(a, -3)", x), "Softmax2d " + Arrays.toString(x.shape()));
            }
            assertEquals("Softmax2d: expected input to be 3D or 4D, got 2D instead",
                    assertThrows(IllegalArgumentException.class, () -> new Softmax2d().forward(Tensor.randn(2, 3))).getMessage());
            for (Tensor x : List.of(Inputs.randn(rng, DType.FLOAT32, 2, 6, 3, 2), Inputs.randn(rng, DType.FLOAT64, 3, 12, 5), Inputs.randn(rng, DType.FLOAT32, 1, 6, 2, 2, 2),
                    Inputs.randint(rng, DType.INT64, 0, 100, 2, 6, 1))) {
                for (int g : new int[] {1, 2, 3, 6}) {
                    assertClose(new ChannelShuffle(g).forward(x), Torch.call(m, "torch.channel_shuffle(a, " + g + ")", x), "ChannelShuffle " + g + " " + Arrays.toString(x.shape()));
                }
            }
            Tensor img = Tensor.randn(2, 6, 3), flat = Tensor.randn(2, 6);
            refused(m, "shuffle 2-d", () -> F.channelShuffle(flat, 2), "torch.channel_shuffle(a, 2)", flat);
            refused(m, "shuffle 0 groups", () -> F.channelShuffle(img, 0), "torch.channel_shuffle(a, 0)", img);
            refused(m, "shuffle indivisible", () -> F.channelShuffle(img, 4), "torch.channel_shuffle(a, 4)", img);
            assertEquals("ChannelShuffle(groups=3)", new ChannelShuffle(3).toString());
            Tensor a = Inputs.randn(rng, DType.FLOAT64, 4, 5, 3), b = Inputs.randn(rng, DType.FLOAT64, 4, 5, 3);
            assertClose(new CosineSimilarity().forward(a, b), Torch.call(m, "torch.cosine_similarity(a, b, 1, 1e-8)", a, b), "CosineSimilarity");
            assertClose(new CosineSimilarity(2, 1e-3).forward(a, b), Torch.call(m, "torch.cosine_similarity(a, b, 2, 1e-3)", a, b), "CosineSimilarity dim 2");
            assertClose(new PairwiseDistance().forward(a, b), Torch.call(m, "torch.pairwise_distance(a, b, 2.0, 1e-6, False)", a, b), "PairwiseDistance");
            assertClose(new PairwiseDistance(1, 1e-2, true).forward(a, b), Torch.call(m, "torch.pairwise_distance(a, b, 1.0, 1e-2, True)", a, b), "PairwiseDistance p1 keepdim");
        }
    }

    @Test
    void paddingModulesMatchLibtorch() {
        try (NDManager m = Torch.scope()) {
            for (Tensor x : List.of(Inputs.randn(rng, DType.FLOAT32, 2, 3, 4, 5, 6), Inputs.randn(rng, DType.FLOAT64, 3, 4, 5, 6),
                    Inputs.nonContiguous(Inputs.randn(rng, DType.FLOAT32, 1, 2, 3, 4, 5)))) {
                String ctx = Arrays.toString(x.shape());
                int[] pad = {2, 1, 0, 3, 1, 2};
                assertClose(new ReflectionPad3d(pad).forward(x), Torch.call(m, "ops.aten.reflection_pad3d(a, [2, 1, 0, 3, 1, 2])", x), "ReflectionPad3d " + ctx);
                assertClose(new ReflectionPad3d(1).forward(x), Torch.call(m, "ops.aten.reflection_pad3d(a, [1, 1, 1, 1, 1, 1])", x), "ReflectionPad3d(1) " + ctx);
                assertClose(new ReplicationPad3d(pad).forward(x), Torch.call(m, "ops.aten.replication_pad3d(a, [2, 1, 0, 3, 1, 2])", x), "ReplicationPad3d " + ctx);
                assertClose(new ReplicationPad3d(-1, 2, 3, 0, 4, -1).forward(x), Torch.call(m, "ops.aten.replication_pad3d(a, [-1, 2, 3, 0, 4, -1])", x), "ReplicationPad3d cropping " + ctx);
                assertClose(new CircularPad3d(pad).forward(x), Torch.call(m, "ops.aten.pad(a, [2, 1, 0, 3, 1, 2], 'circular')", x), "CircularPad3d " + ctx);
                assertClose(new ConstantPad3d(pad, 2.5).forward(x), Torch.call(m, "ops.aten.constant_pad_nd(a, [2, 1, 0, 3, 1, 2], 2.5)", x), "ConstantPad3d " + ctx);
                assertClose(new ZeroPad3d(1).forward(x), Torch.call(m, "ops.aten.constant_pad_nd(a, [1, 1, 1, 1, 1, 1], 0.0)", x), "ZeroPad3d " + ctx);
                assertClose(new CircularPad2d(1, 2, 2, 0).forward(x.select(0, 0)), Torch.call(m, "ops.aten.pad(a, [1, 2, 2, 0], 'circular')", x.select(0, 0)), "CircularPad2d " + ctx);
            }
            Tensor seq = Inputs.randn(rng, DType.FLOAT32, 2, 3, 5);
            assertClose(new CircularPad1d(3, 1).forward(seq), Torch.call(m, "ops.aten.pad(a, [3, 1], 'circular')", seq), "CircularPad1d");
            assertClose(new ZeroPad1d(2, 0).forward(seq), Torch.call(m, "ops.aten.constant_pad_nd(a, [2, 0], 0.0)", seq), "ZeroPad1d");
            for (String mode : List.of("reflect", "replicate", "circular")) {
                Tensor x = Inputs.randn(rng, DType.FLOAT64, 2, 2, 3, 4, 5), leaf = x.detach().requiresGrad(true);
                Tensor y = F.pad(leaf, new int[] {2, 1, 1, 2, 2, 0}, mode), gy = Inputs.randn(rng, DType.FLOAT64, y.shape());
                y.backward(gy);
                NDList want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\ngo: List[Optional[Tensor]] = [b]\n"
                        + "return torch.autograd.grad([ops.aten.pad(a, [2, 1, 1, 2, 2, 0], '" + mode + "')], [a], go)", x, gy);
                assertClose(leaf.grad(), want.head(), "3-d " + mode + " gradient");
            }
            Tensor small = Tensor.randn(1, 2, 2, 3, 4);
            refused(m, "reflect 3-d too deep", () -> new ReflectionPad3d(0, 0, 0, 0, 2, 0).forward(small), "ops.aten.reflection_pad3d(a, [0, 0, 0, 0, 2, 0])", small);
            refused(m, "reflect 3-d too wide", () -> new ReflectionPad3d(4, 0, 0, 0, 0, 0).forward(small), "ops.aten.reflection_pad3d(a, [4, 0, 0, 0, 0, 0])", small);
            Tensor flat = Tensor.randn(2, 3);
            refused(m, "reflect 3-d of 2-d", () -> new ReflectionPad3d(1).forward(flat), "ops.aten.pad(a, [1, 1, 1, 1, 1, 1], 'reflect')", flat);
            assertEquals("expected 4D or 5D input (got 3D input)", assertThrows(IllegalArgumentException.class, () -> new CircularPad3d(1).forward(Tensor.randn(2, 3, 4))).getMessage());
        }
        assertEquals("ReflectionPad3d((1, 1, 1, 1, 1, 1))", new ReflectionPad3d(1).toString());
        assertEquals("ZeroPad3d((1, 2, 0, 0, 1, 1))", new ZeroPad3d(1, 2, 0, 0, 1, 1).toString());
        assertEquals("ZeroPad1d((2, 2))", new ZeroPad1d(2).toString());
        assertEquals("ConstantPad3d(padding=(1, 1, 1, 1, 1, 1), value=3.5)", new ConstantPad3d(1, 3.5).toString());
        assertEquals("CircularPad2d((1, 1, 1, 1))", new CircularPad2d(1).toString());
    }

    /** A block using them, compiled: one graph, the same outputs and parameter gradients as eager. */
    static final class Block extends Module {
        final Conv3d conv = new Conv3d(4, 4, new int[] {3, 3, 3}, new int[] {1, 1, 1}, new int[] {0, 0, 0}, new int[] {1, 1, 1}, 2, true);
        final ReflectionPad3d pad = new ReflectionPad3d(1);
        final ChannelShuffle shuffle = new ChannelShuffle(2);
        final Softshrink soft = new Softshrink(0.1);
        final Hardshrink hard = new Hardshrink(0.2);
        final Threshold threshold = new Threshold(-0.3, 0.5);

        @Override
        public Tensor forward(Tensor x) {
            Tensor h = shuffle.forward(conv.forward(pad.forward(x)));
            return soft.forward(h).add(hard.forward(h)).add(threshold.forward(h)).add(new Softmax2d().forward(h.flatten(3, 4)).sum(-1).unsqueeze(-1).unsqueeze(-1));
        }
    }

    @Test
    void compiledBlockEqualsEager() {
        Tensor.manualSeed(6);
        Block eager = new Block(), twin = new Block();
        twin.loadStateDict(eager.stateDict());
        Tensor x = Tensor.randn(2, 4, 3, 4, 5);
        Fn1<Tensor, Tensor> compiled = Ember.compile(twin);
        Tensor want = eager.forward(x), got = compiled.apply(x);
        assertClose(got, want, "output", TorchAssert.Tolerance.of(1e-5, 1e-5));
        List<Tensor> wantGrads = Autograd.grad(want.square().sum(), eager.conv.weight, eager.conv.bias);
        List<Tensor> gotGrads = Autograd.grad(got.square().sum(), twin.conv.weight, twin.conv.bias);
        // the weight's gradient sums 2,880 products of either sign per element, so an element can lose
        // more than 1e-4 of itself to float32 rounding in either order (seen on some hosts): judged
        // against the float64 block, compiled may be at most a few times as far from it as eager
        Block wide = new Block();
        wide.loadStateDict(eager.stateDict());
        wide.to(dev.ember.tensor.DType.FLOAT64);
        Tensor exact = wide.forward(x.to(dev.ember.tensor.DType.FLOAT64));
        List<Tensor> exactGrads = Autograd.grad(exact.square().sum(), wide.conv.weight, wide.conv.bias);
        for (int i = 0; i < 2; i++) {
            Tensor truth = exactGrads.get(i);
            double eagerError = wantGrads.get(i).to(truth.dtype()).sub(truth).abs().max().item();
            double compiledError = gotGrads.get(i).to(truth.dtype()).sub(truth).abs().max().item();
            double scale = truth.abs().max().item();
            assertTrue(compiledError <= 4 * eagerError + 1e-6 * scale, "gradient " + i + ": compiled is " + compiledError
                    + " from the float64 gradient, eager " + eagerError + " (largest magnitude " + scale + ")");
        }
    }
}
