package dev.ember.nn;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.autograd.Autograd;
import dev.ember.ops.ConvOps;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.nn.AtenRefusal.refused;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * MaxUnpool1d/2d/3d (over libtorch's own max-pooling indices), AdaptiveMaxPool1d (values and
 * indices) and LPPool1d/2d against libtorch (LPPool: PyTorch's definition over avg_pool run in
 * libtorch): values, gradients, errors, printed forms; compiled equal to eager with the input
 * gradient.
 */
class UnpoolLpPoolAndAdaptiveMaxPool1dTest {
    private final Random rng = new Random(68);

    @Test
    void maxUnpoolMatchesLibtorch() {
        try (NDManager m = Torch.scope()) {
            Tensor x2 = Inputs.randn(rng, DType.FLOAT32, 2, 3, 9, 7);
            NDList pooled2 = Torch.callList(m, "torch.max_pool2d_with_indices(a, [2, 2], [2, 2])", x2);
            Tensor v2 = Torch.fromNd(pooled2.get(0)), i2 = Torch.fromNd(pooled2.get(1));
            Tensor even = Inputs.randn(rng, DType.FLOAT32, 2, 3, 8, 6);
            NDList pooledEven = Torch.callList(m, "torch.max_pool2d_with_indices(a, [2, 2], [2, 2])", even);
            Tensor ve = Torch.fromNd(pooledEven.get(0)), ie = Torch.fromNd(pooledEven.get(1));
            assertClose(new MaxUnpool2d(2).forward(ve, ie), Torch.call(m, "ops.aten.max_unpool2d(a, b, [8, 6])", ve, ie), "MaxUnpool2d default size");
            assertClose(new MaxUnpool2d(2).forward(v2, i2, new int[] {9, 7}), Torch.call(m, "ops.aten.max_unpool2d(a, b, [9, 7])", v2, i2), "MaxUnpool2d output_size");
            assertClose(F.maxUnpool2d(v2.select(0, 1), i2.select(0, 1), new int[] {2, 2}, new int[] {2, 2}, new int[] {0, 0}, new int[] {2, 3, 9, 7}),
                    Torch.call(m, "ops.aten.max_unpool2d(a, b, [9, 7])", v2.select(0, 1), i2.select(0, 1)), "max_unpool2d unbatched, output_size with N and C");
            Tensor x1 = Inputs.randn(rng, DType.FLOAT64, 2, 3, 11);
            NDList pooled1 = Torch.callList(m, "torch.max_pool1d_with_indices(a, [3], [2], [1])", x1);
            Tensor v1 = Torch.fromNd(pooled1.get(0)), i1 = Torch.fromNd(pooled1.get(1));
            assertClose(new MaxUnpool1d(3, 2, 1).forward(v1, i1), Torch.call(m, "ops.aten.max_unpool2d(a.unsqueeze(-1), b.unsqueeze(-1), [11, 1]).squeeze(-1)", v1, i1), "MaxUnpool1d");
            Tensor x3 = Inputs.randn(rng, DType.FLOAT32, 1, 2, 4, 6, 5), x3even = x3.narrow(4, 0, 4);
            NDList pooled3 = Torch.callList(m, "torch.max_pool3d_with_indices(a, [2, 2, 2], [2, 2, 2])", x3);
            Tensor v3 = Torch.fromNd(pooled3.get(0)), i3 = Torch.fromNd(pooled3.get(1));
            NDList pooled3even = Torch.callList(m, "torch.max_pool3d_with_indices(a, [2, 2, 2], [2, 2, 2])", x3even);
            Tensor v3e = Torch.fromNd(pooled3even.get(0)), i3e = Torch.fromNd(pooled3even.get(1));
            assertClose(new MaxUnpool3d(2).forward(v3e, i3e), Torch.call(m, "ops.aten.max_unpool3d(a, b, [4, 6, 4], [2, 2, 2], [0, 0, 0])", v3e, i3e), "MaxUnpool3d");
            assertClose(new MaxUnpool3d(2).forward(v3, i3, new int[] {4, 6, 5}), Torch.call(m, "ops.aten.max_unpool3d(a, b, [4, 6, 5], [2, 2, 2], [0, 0, 0])", v3, i3), "MaxUnpool3d output_size");

            Tensor leaf = v2.to(DType.FLOAT64).requiresGrad(true), gy = Inputs.randn(rng, DType.FLOAT64, 2, 3, 9, 7);
            new MaxUnpool2d(2).forward(leaf, i2, new int[] {9, 7}).mul(gy).sum().backward();
            NDList want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([(ops.aten.max_unpool2d(a, b, [9, 7]) * c).sum()], [a])",
                    v2.to(DType.FLOAT64), i2, gy);
            assertClose(leaf.grad(), want.head(), "max_unpool2d gradient");

            Tensor i32 = i2.to(DType.INT32);
            refused(m, "int32 indices", () -> F.maxUnpool2d(v2, i32, new int[] {2, 2}, new int[] {2, 2}, new int[] {0, 0}, null), "ops.aten.max_unpool2d(a, b, [8, 6])", v2, i32);
            Tensor fewer = i2.narrow(3, 0, 2);
            refused(m, "indices shape", () -> F.maxUnpool2d(v2, fewer, new int[] {2, 2}, new int[] {2, 2}, new int[] {0, 0}, null), "ops.aten.max_unpool2d(a, b, [8, 6])", v2, fewer);
            for (long bad : new long[] {48, -1}) {
                Tensor outside = ie.clone();   // every other index addresses the 8x6 plane
                outside.view(-1).narrow(0, 5, 1).fill_(bad);
                refused(m, "index " + bad, () -> F.maxUnpool2d(ve, outside, new int[] {2, 2}, new int[] {2, 2}, new int[] {0, 0}, null),
                        "ops.aten.max_unpool2d(a, b, [8, 6])", ve, outside);
            }
            Tensor flat = v2.flatten(0, 2), flatIdx = i2.flatten(0, 2);
            refused(m, "2-d input", () -> dev.ember.ops.NnComposites.MAX_UNPOOL2D.callTensor(flat, flatIdx, new int[] {8, 6}), "ops.aten.max_unpool2d(a, b, [8, 6])", flat, flatIdx);
        }
        assertEquals("invalid output_size \"[12, 6]\" (dim 0 must be between 6 and 10)",
                assertThrows(IllegalArgumentException.class, () -> new MaxUnpool2d(2).forward(Tensor.randn(1, 1, 4, 3), Tensor.zeros(DType.INT64, 1, 1, 4, 3), new int[] {12, 6})).getMessage());
        assertEquals("MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))", new MaxUnpool2d(2).toString());
        assertEquals("MaxUnpool1d(kernel_size=(3,), stride=(2,), padding=(1,))", new MaxUnpool1d(3, 2, 1).toString());
    }

    @Test
    void adaptiveMaxPool1dMatchesLibtorch() {
        try (NDManager m = Torch.scope()) {
            Tensor ties = Inputs.randint(rng, DType.INT64, 0, 3, 2, 3, 10).to(DType.FLOAT32);
            for (Tensor x : List.of(Inputs.randn(rng, DType.FLOAT32, 2, 3, 10), Inputs.randn(rng, DType.FLOAT64, 4, 7), ties)) {
                for (int out : new int[] {1, 3, 4, 7, 12}) {
                    List<Tensor> got = new AdaptiveMaxPool1d(out, true).forwardWithIndices(x);
                    NDList want = Torch.callList(m, "torch.adaptive_max_pool1d(a, [" + out + "])", x);
                    assertClose(got.get(0), want.get(0), "values " + out);
                    assertClose(got.get(1), want.get(1), "indices " + out);
                }
            }
            Tensor x = Inputs.randn(rng, DType.FLOAT64, 2, 3, 9), gy = Inputs.randn(rng, DType.FLOAT64, 2, 3, 4), leaf = x.detach().requiresGrad(true);
            F.adaptiveMaxPool1d(leaf, 4).mul(gy).sum().backward();
            assertClose(leaf.grad(), Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([(torch.adaptive_max_pool1d(a, [4])[0] * b).sum()], [a])", x, gy).head(),
                    "gradient");
            Tensor four = Tensor.randn(1, 2, 3, 4);
            refused(m, "4-d", () -> F.adaptiveMaxPool1d(four, 2), "torch.adaptive_max_pool1d(a, [2])", four);
        }
        assertEquals("AdaptiveMaxPool1d(output_size=3, return_indices=False)", new AdaptiveMaxPool1d(3).toString());
    }

    @Test
    void adaptiveMaxPool3dMatchesLibtorch() {
        try (NDManager m = Torch.scope()) {
            Tensor ties = Inputs.randint(rng, DType.INT64, 0, 3, 1, 2, 4, 5, 3).to(DType.FLOAT32);
            Tensor nan = Inputs.randn(rng, DType.FLOAT64, 1, 1, 2, 2, 2).add(Tensor.of(new double[] {0, Double.NaN, 0, 0, 0, 0, Double.NaN, 0}, 2, 2, 2));
            for (Tensor x : List.of(Inputs.randn(rng, DType.FLOAT32, 2, 3, 5, 6, 4), Inputs.randn(rng, DType.FLOAT64, 2, 4, 5, 3), ties, nan)) {
                for (int[] out : List.of(new int[] {1, 1, 1}, new int[] {2, 3, 2}, new int[] {3, 2, 4}, new int[] {6, 7, 5})) {
                    List<Tensor> got = new AdaptiveMaxPool3d(out, true).forwardWithIndices(x);
                    NDList want = Torch.callList(m, "torch.adaptive_max_pool3d(a, " + java.util.Arrays.toString(out) + ")", x);
                    String what = java.util.Arrays.toString(x.shape()) + " to " + java.util.Arrays.toString(out);
                    assertClose(got.get(0), want.get(0), "values " + what);
                    assertClose(got.get(1), want.get(1), "indices " + what);
                }
            }
            Tensor x = Inputs.randn(rng, DType.FLOAT64, 2, 2, 5, 4, 3), gy = Inputs.randn(rng, DType.FLOAT64, 2, 2, 3, 2, 2), leaf = x.detach().requiresGrad(true);
            F.adaptiveMaxPool3d(leaf, new int[] {3, 2, 2}).mul(gy).sum().backward();
            assertClose(leaf.grad(), Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([(torch.adaptive_max_pool3d(a, [3, 2, 2])[0] * b).sum()], [a])",
                    x, gy).head(), "gradient");
            Tensor three = Tensor.randn(2, 3, 4), empty = Tensor.randn(1, 2, 0, 3, 3);
            refused(m, "3-d", () -> F.adaptiveMaxPool3d(three, new int[] {1, 1, 1}), "torch.adaptive_max_pool3d(a, [1, 1, 1])", three);
            refused(m, "empty", () -> F.adaptiveMaxPool3d(empty, new int[] {1, 1, 1}), "torch.adaptive_max_pool3d(a, [1, 1, 1])", empty);
        }
        assertEquals("AdaptiveMaxPool3d(output_size=(2, 3, 4), return_indices=False)", new AdaptiveMaxPool3d(new int[] {2, 3, 4}).toString());
        assertEquals("AdaptiveMaxPool3d(output_size=2, return_indices=False)", new AdaptiveMaxPool3d(2).toString());
        Tensor x = Tensor.randn(1, 2, 4, 4, 6);
        Fn1<Tensor, Tensor> fn = t -> {
            List<Tensor> both = F.adaptiveMaxPool3dWithIndices(t, new int[] {2, 3, 2});
            return both.get(0).add(both.get(1).typeAs(t));
        };
        assertClose(Ember.compile(fn).apply(x), fn.apply(x), "compiled", TorchAssert.Tolerance.of(0, 0));
    }

    @Test
    void lpPoolMatchesPyTorchsDefinitionInLibtorch() {
        try (NDManager m = Torch.scope()) {
            Tensor x = Inputs.randn(rng, DType.FLOAT64, 2, 3, 7, 8), pos = x.abs().add(0.1);
            String post = "return (torch.sign(o) * torch.relu(torch.abs(o))).mul(";
            assertClose(new LPPool2d(2, new int[] {2, 3}, null, false).forward(x),
                    Torch.call(m, "o = torch.avg_pool2d(a.pow(2.0), [2, 3], [2, 3], [0, 0], False)\n" + post + "6).pow(1.0 / 2.0)", x), "LPPool2d p2");
            assertClose(new LPPool2d(1.5, new int[] {3, 2}, new int[] {2, 1}, true).forward(pos),
                    Torch.call(m, "o = torch.avg_pool2d(a.pow(1.5), [3, 2], [2, 1], [0, 0], True)\n" + post + "6).pow(1.0 / 1.5)", pos), "LPPool2d p1.5 ceil");
            Tensor seq = x.flatten(2, 3);
            assertClose(new LPPool1d(3, 4, 2, false).forward(seq),
                    Torch.call(m, "o = torch.avg_pool1d(a.pow(3.0), [4], [2], [0], False)\n" + post + "4).pow(1.0 / 3.0)", seq), "LPPool1d p3");
            assertClose(new LPPool1d(2, 3).forward(seq.select(0, 0)),
                    Torch.call(m, "o = torch.avg_pool1d(a.pow(2.0), [3], [3], [0], False)\n" + post + "3).pow(1.0 / 2.0)", seq.select(0, 0)), "LPPool1d unbatched");
            Tensor leaf = pos.detach().requiresGrad(true);
            F.lpPool2d(leaf, 2, new int[] {2, 2}, null, false).sum().backward();
            assertClose(leaf.grad(), Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\no = torch.avg_pool2d(a.pow(2.0), [2, 2], [2, 2], [0, 0], False)\n"
                    + "return torch.autograd.grad([(torch.sign(o) * torch.relu(torch.abs(o))).mul(4).pow(0.5).sum()], [a])", pos).head(), "LPPool2d gradient");
        }
        assertEquals("LPPool2d(norm_type=2.0, kernel_size=(2, 2), stride=None, ceil_mode=False)", new LPPool2d(2, 2).toString());
        assertEquals("LPPool1d(norm_type=3.0, kernel_size=4, stride=2, ceil_mode=False)", new LPPool1d(3, 4, 2, false).toString());
    }

    @Test
    void compiledEqualsEagerWithInputGradient() {
        Tensor.manualSeed(9);
        MaxUnpool2d unpool = new MaxUnpool2d(2);
        LPPool2d lp = new LPPool2d(2, 2);
        AdaptiveMaxPool1d adaptive = new AdaptiveMaxPool1d(5);
        Fn1<Tensor, Tensor> fn = x -> {
            List<Tensor> pooled = ConvOps.MAX_POOL2D_WITH_INDICES.callList(x, new int[] {2, 2}, new int[] {2, 2}, new int[] {0, 0}, new int[] {1, 1}, false);
            Tensor back = unpool.forward(pooled.get(0), pooled.get(1));
            return back.add(lp.forward(x.square().add(0.1)).sum()).add(adaptive.forward(x.flatten(2, 3)).sum());
        };
        Tensor x = Tensor.randn(2, 3, 6, 8);
        Tensor eagerLeaf = x.detach().requiresGrad(true), compiledLeaf = x.detach().requiresGrad(true);
        Tensor want = fn.apply(eagerLeaf), got = Ember.compile(fn).apply(compiledLeaf);
        assertClose(got, want, "output", TorchAssert.Tolerance.of(1e-5, 1e-5));
        assertClose(Autograd.grad(got.square().sum(), compiledLeaf).get(0), Autograd.grad(want.square().sum(), eagerLeaf).get(0), "input gradient", TorchAssert.Tolerance.of(1e-4, 1e-4));
    }
}
