package dev.ember.nn;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Lazy modules, torch.nn.utils.fusion, torch.func.functional_call and the in-place functional activations, against libtorch. */
class LazyFusionAndFunctionalCallTest {

    @Test
    void lazyLinearMaterializesAtItsFirstCall() {
        LazyLinear lazy = new LazyLinear(3);
        assertFalse(lazy.isMaterialized());
        assertNull(lazy.weight);
        assertTrue(lazy.parameters().isEmpty());
        Tensor x = Tensor.randn(2, 5);
        Tensor y = lazy.forward(x);
        assertTrue(lazy.isMaterialized());
        assertEquals(5, lazy.inFeatures);
        assertEquals(List.of("weight", "bias"), List.copyOf(lazy.stateDict().keySet()));
        assertEquals(List.of(3, 5), List.of(lazy.weight.shape()[0], lazy.weight.shape()[1]));
        assertClose(y, Torch.call("torch.linear(a, b, c)", x, lazy.weight.detach(), lazy.bias.detach()), "forward");
        assertTrue(lazy.toString().startsWith("LazyLinear(in_features=5, out_features=3"), lazy.toString());
        Fn1<Tensor, Tensor> compiled = Ember.compile(lazy);
        assertClose(compiled.apply(x), Torch.toNd(y.detach()), "compiled after materializing");
    }

    @Test
    void lazyModulesMaterializeFromAStateDict() {
        Linear trained = new Linear(4, 2);
        LazyLinear lazy = new LazyLinear(2);
        lazy.loadStateDict(trained.stateDict());
        assertClose(lazy.weight, Torch.toNd(trained.weight.detach()), "weight loaded");
        Conv2d conv = new Conv2d(4, 6, 3, 1, 1, 1, 2, true);
        LazyConv2d lazyConv = new LazyConv2d(6, 3, 1, 1, 1, 2, true, "zeros");
        lazyConv.loadStateDict(conv.stateDict());
        assertEquals(4, lazyConv.inChannels);
        BatchNorm2d bn = new BatchNorm2d(3);
        LazyBatchNorm2d lazyBn = new LazyBatchNorm2d();
        lazyBn.loadStateDict(bn.stateDict());
        assertEquals(3, lazyBn.numFeatures);
    }

    @Test
    void lazyConvAndBatchNormMatchLibtorch() {
        Tensor x = Tensor.randn(2, 3, 6, 5);
        LazyConv2d conv = new LazyConv2d(4, 3);
        Tensor y = conv.forward(x);
        assertClose(y, Torch.call("torch.conv2d(a, b, c)", x, conv.weight.detach(), conv.bias.detach()), "conv2d");
        LazyConv1d conv1 = new LazyConv1d(2, 2);
        Tensor x1 = Tensor.randn(3, 7);   // unbatched: the channels are dim 0
        assertClose(conv1.forward(x1), Torch.call("torch.conv1d(a, b, c)", x1, conv1.weight.detach(), conv1.bias.detach()), "unbatched conv1d");
        assertEquals(3, conv1.inChannels);
        LazyConv3d conv3 = new LazyConv3d(2, 2);
        var e = assertThrows(IllegalArgumentException.class, () -> conv3.forward(Tensor.randn(2, 3)));
        assertEquals("Expected 4D (unbatched) or 5D (batched) input to LazyConv3d, but got input of size: torch.Size([2, 3])", e.getMessage());

        LazyBatchNorm1d bn = new LazyBatchNorm1d();
        Tensor xb = Tensor.randn(8, 5);
        Tensor yb = bn.forward(xb);
        assertEquals(List.of("weight", "bias", "running_mean", "running_var", "num_batches_tracked"), List.copyOf(bn.stateDict().keySet()));
        try (NDManager m = Torch.scope()) {
            NDList want = Torch.callList(m, "rm = torch.zeros(5)\nrv = torch.ones(5)\ny = torch.batch_norm(a, torch.ones(5), torch.zeros(5), rm, rv, True, 0.1, 1e-5, False)\n"
                    + "return [y, rm, rv]", xb);
            assertClose(yb, want.get(0), "batch norm");
            assertClose(bn.runningMean, want.get(1), "running mean");
            assertClose(bn.runningVar, want.get(2), "running var");
        }
    }

    @Test
    void fusedConvAndLinearGiveTheConvThenBatchNormOutput() {
        Tensor.manualSeed(7);
        Conv2d conv = new Conv2d(3, 4, 3);
        BatchNorm2d bn = new BatchNorm2d(4);
        try (var unused = Ember.noGrad()) {
            bn.runningMean.copy_(Tensor.randn(4));
            bn.runningVar.copy_(Tensor.rand(4).add(0.5));
            bn.weight.copy_(Tensor.randn(4));
            bn.bias.copy_(Tensor.randn(4));
        }
        conv.eval();
        bn.eval();
        ConvNd fused = Fusion.fuseConvBnEval(conv, bn);
        Tensor x = Tensor.randn(2, 3, 6, 6);
        assertClose(fused.forward(x), Torch.call("torch.batch_norm(torch.conv2d(a, b, c), d, e, f, g, False, 0.1, 1e-5, False)", x, conv.weight.detach(),
                conv.bias.detach(), bn.weight.detach(), bn.bias.detach(), bn.runningMean, bn.runningVar), "conv then bn", dev.ember.testing.TorchAssert.Tolerance.of(1e-5, 1e-5));
        assertTrue(fused instanceof Conv2d);
        assertThrows(IllegalStateException.class, () -> Fusion.fuseConvBnEval(new Conv2d(3, 4, 3), bn), "Fusion only for eval!");

        Linear linear = new Linear(5, 4);
        BatchNorm1d bn1 = new BatchNorm1d(4);
        try (var unused = Ember.noGrad()) {
            bn1.runningMean.copy_(Tensor.randn(4));
            bn1.runningVar.copy_(Tensor.rand(4).add(0.5));
        }
        linear.eval();
        bn1.eval();
        Linear fusedLinear = Fusion.fuseLinearBnEval(linear, bn1);
        Tensor xl = Tensor.randn(3, 5);
        assertClose(fusedLinear.forward(xl), Torch.call("torch.batch_norm(torch.linear(a, b, c), d, e, f, g, False, 0.1, 1e-5, False)", xl, linear.weight.detach(),
                linear.bias.detach(), bn1.weight.detach(), bn1.bias.detach(), bn1.runningMean, bn1.runningVar), "linear then bn", dev.ember.testing.TorchAssert.Tolerance.of(1e-5, 1e-5));
    }

    /** fuse_conv_bn_eval(conv, bn, transpose=True): the transposed weight scaled along dim 1; grouped ones refused by the broadcast, as torch's. */
    @Test
    void aFusedTransposedConvolutionGivesTheConvThenBatchNormOutput() {
        Tensor.manualSeed(12);
        ConvTranspose2d conv = new ConvTranspose2d(3, 4, 3, 2, 1, 1, 1, true, 1);
        BatchNorm2d bn = new BatchNorm2d(4);
        try (var unused = Ember.noGrad()) {
            bn.runningMean.copy_(Tensor.randn(4));
            bn.runningVar.copy_(Tensor.rand(4).add(0.5));
            bn.weight.copy_(Tensor.randn(4));
            bn.bias.copy_(Tensor.randn(4));
        }
        conv.eval();
        bn.eval();
        ConvTransposeNd fused = Fusion.fuseConvBnEval(conv, bn);
        assertTrue(fused instanceof ConvTranspose2d);
        Tensor x = Tensor.randn(2, 3, 5, 5);
        assertClose(fused.forward(x), Torch.call("torch.batch_norm(torch.conv_transpose2d(a, b, c, [2, 2], [1, 1], [1, 1]), d, e, f, g, False, 0.1, 1e-5, False)", x,
                conv.weight.detach(), conv.bias.detach(), bn.weight.detach(), bn.bias.detach(), bn.runningMean, bn.runningVar), "transposed conv then bn",
                dev.ember.testing.TorchAssert.Tolerance.of(1e-5, 1e-5));
        ConvTranspose1d grouped = (ConvTranspose1d) new ConvTranspose1d(4, 4, 3, 1, 0, 0, 2, true, 1).eval();
        BatchNorm1d bn1 = (BatchNorm1d) new BatchNorm1d(4).eval();
        var e = assertThrows(IllegalArgumentException.class, () -> Fusion.fuseConvBnEval(grouped, bn1));
        assertEquals("fuse_conv_bn_eval: a grouped transposed convolution (groups=2) cannot be fused: its weight's dim 1 holds out_channels/groups = 2, "
                + "the batch norm's scale 4 entries", e.getMessage());
        // torch refuses it too: fuse_conv_bn_weights multiplies the [in, out/groups, k] weight by the scale shaped [1, out, 1]
        assertThrows(IllegalStateException.class, () -> Torch.call("a * torch.ones(4).reshape([1, -1, 1])", grouped.weight.detach()));
    }

    /** A parametrization that doubles its tensor (same shape and dtype). */
    static final class Doubled extends Module {
        @Override
        public Tensor forward(Tensor original) { return original.mul(2.0); }
    }

    /**
     * Parametrized layers hold null in their fields: fusion takes what they compute (weight_norm's
     * weight, a doubled batch-norm weight and bias), as PyTorch's {@code conv.weight} property gives.
     * Before, fuse_linear_bn_eval took a parametrized batch-norm weight for absent (ones).
     */
    @Test
    void fusionUsesTheTensorsParametrizedLayersCompute() {
        Tensor.manualSeed(11);
        Conv2d conv = new Conv2d(3, 4, 3);
        BatchNorm2d bn = new BatchNorm2d(4);
        Linear linear = new Linear(5, 4);
        BatchNorm1d bn1 = new BatchNorm1d(4);
        try (var unused = Ember.noGrad()) {
            for (NormBase b : List.of(bn, bn1)) {
                b.runningMean.copy_(Tensor.randn(4));
                b.runningVar.copy_(Tensor.rand(4).add(0.5));
                b.weight.copy_(Tensor.randn(4));
                b.bias.copy_(Tensor.randn(4));
            }
        }
        Parametrizations.weightNorm(conv);
        Parametrizations.weightNorm(linear);
        for (NormBase b : List.of(bn, bn1)) {
            Parametrize.registerParametrization(b, "weight", new Doubled());
            Parametrize.registerParametrization(b, "bias", new Doubled());
        }
        for (Module m : List.of(conv, bn, linear, bn1)) m.eval();
        assertNull(conv.weight);
        assertNull(bn1.weight);
        var tolerance = dev.ember.testing.TorchAssert.Tolerance.of(1e-5, 1e-5);

        ConvNd fused = Fusion.fuseConvBnEval(conv, bn);
        Tensor x = Tensor.randn(2, 3, 6, 6);
        assertClose(fused.forward(x), Torch.call("torch.batch_norm(torch.conv2d(a, b, c), d, e, f, g, False, 0.1, 1e-5, False)", x, conv.tensor("weight").detach(),
                conv.bias.detach(), bn.tensor("weight").detach(), bn.tensor("bias").detach(), bn.runningMean, bn.runningVar), "weight-normed conv then parametrized bn", tolerance);
        Linear fusedLinear = Fusion.fuseLinearBnEval(linear, bn1);
        Tensor xl = Tensor.randn(3, 5);
        assertClose(fusedLinear.forward(xl), Torch.call("torch.batch_norm(torch.linear(a, b, c), d, e, f, g, False, 0.1, 1e-5, False)", xl, linear.tensor("weight").detach(),
                linear.bias.detach(), bn1.tensor("weight").detach(), bn1.tensor("bias").detach(), bn1.runningMean, bn1.runningVar), "weight-normed linear then parametrized bn", tolerance);
    }

    @Test
    void functionalCallSubstitutesForOneCallAndDifferentiates() {
        Sequential model = new Sequential(new Linear(4, 3), new ReLU(), new Linear(3, 2));
        Linear first = (Linear) model.children().get(0), last = (Linear) model.children().get(2);
        Tensor w0 = Tensor.randn(3, 4).requiresGrad(true);
        Tensor x = Tensor.randn(5, 4);
        Tensor y = Func.functionalCall(model, Map.of("0.weight", w0), x);
        assertClose(y, Torch.call("torch.linear(torch.relu(torch.linear(a, b, c)), d, e)", x, w0.detach(), first.bias.detach(), last.weight.detach(), last.bias.detach()),
                "with the substituted weight");
        Tensor g = Tensor.randn(5, 2);
        Tensor grad = Autograd.grad(List.of(y), List.of(w0), List.of(g), false, false, false).get(0);
        try (NDManager m = Torch.scope()) {
            NDList want = Torch.callListWithGrad(m, "w = b.detach().requires_grad_(True)\ny = torch.linear(torch.relu(torch.linear(a, w, c)), d, e)\n"
                    + "return torch.autograd.grad([(y * f).sum()], [w])", x, w0.detach(), first.bias.detach(), last.weight.detach(), last.bias.detach(), g);
            assertClose(grad, want.get(0), "the gradient reaches the substituted tensor");
        }
        assertClose(model.forward(x), Torch.call("torch.linear(torch.relu(torch.linear(a, b, c)), d, e)", x, first.weight.detach(), first.bias.detach(),
                last.weight.detach(), last.bias.detach()), "the module is as it was after the call");
        var e = assertThrows(IllegalArgumentException.class, () -> Func.functionalCall(model, Map.of("0.wieght", w0), x));
        assertEquals("Error(s) in reparametrizing for Sequential:\n\tUnexpected key(s): '0.wieght'.", e.getMessage());

        BatchNorm1d bn = new BatchNorm1d(4);
        Tensor rm = Tensor.zeros(4), rv = Tensor.ones(4);
        Func.functionalCall(bn, Map.of("running_mean", rm, "running_var", rv), x);
        assertClose(rm, Torch.call("torch.mean(a, [0]) * 0.1", x), "training updates the substituted running mean");
        assertClose(bn.runningMean, Torch.call("torch.zeros(4)"), "and leaves the module's own");
    }

    @Test
    void inPlaceActivationsWriteIntoTheirInputAndDifferentiate() {
        Tensor x = Tensor.randn(3, 4);
        record Case(String torch, java.util.function.UnaryOperator<Tensor> ember) {}
        for (Case c : List.of(
                new Case("torch.relu(a)", F::relu_),
                new Case("torch.elu(a, 0.5)", t -> F.elu_(t, 0.5)),
                new Case("ops.aten.leaky_relu(a, 0.2)", t -> F.leakyRelu_(t, 0.2)),
                new Case("torch.hardtanh(a, -0.5, 0.5)", t -> F.hardtanh_(t, -0.5, 0.5)),
                new Case("torch.threshold(a, 0.1, 20.0)", t -> F.threshold_(t, 0.1, 20.0)),
                new Case("torch.rrelu(a, 0.1, 0.3, False)", t -> F.rrelu_(t, 0.1, 0.3, false)))) {
            Tensor leaf = x.clone().requiresGrad(true);
            Tensor t = leaf.mul(1.0);
            Tensor out = c.ember.apply(t);
            assertSame(t, out, c.torch + " returns its input");
            assertClose(t, Torch.call(c.torch, x), c.torch);
            Tensor g = Tensor.randn(3, 4);
            Tensor grad = Autograd.grad(List.of(t), List.of(leaf), List.of(g), false, false, false).get(0);
            try (NDManager m = Torch.scope()) {
                NDList want = Torch.callListWithGrad(m, "w = a.detach().requires_grad_(True)\ny = " + c.torch.replace("(a", "(w")
                        + "\nreturn torch.autograd.grad([(y * b).sum()], [w])", x, g);
                assertClose(grad, want.get(0), c.torch + " gradient");
            }
        }
        Tensor leaf = Tensor.randn(3).requiresGrad(true);
        assertThrows(RuntimeException.class, () -> F.elu_(leaf), "an in-place write to a leaf that requires grad is refused");
        assertEquals(DType.FLOAT32, x.dtype());
    }
}
