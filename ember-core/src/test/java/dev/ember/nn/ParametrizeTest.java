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

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** torch.nn.utils.parametrize and parametrizations, after test_nn.py's TestNNParametrization: state dict keys, identities, checks, values and gradients against libtorch. */
class ParametrizeTest {

    /** test_nn.py's Symmetric: the upper triangle mirrored; its right inverse keeps the upper triangle. */
    static final class Symmetric extends Module implements Parametrize.RightInverse {
        @Override
        public Tensor forward(Tensor x) { return x.triu().add(x.triu(1).mT()); }

        @Override
        public Tensor rightInverse(Tensor a) { return a.triu(); }
    }

    /** A parametrization that changes the shape (test_nn.py's Resize): refused unless unsafe. */
    static final class Resize extends Module {
        @Override
        public Tensor forward(Tensor x) { return x.narrow(0, 0, 1); }
    }

    @Test
    void aSymmetricWeightSavesAsItsOriginalAndTrainsIt() {
        Tensor.manualSeed(1);
        Linear model = new Linear(5, 5);
        Parameter weight = model.weight;
        Tensor before = weight.clone();
        Parametrize.registerParametrization(model, "weight", new Symmetric());

        assertTrue(Parametrize.isParametrized(model));
        assertTrue(Parametrize.isParametrized(model, "weight"));
        assertFalse(Parametrize.isParametrized(model, "bias"));
        assertNull(model.weight, "the field no longer holds the weight: a direct read fails instead of using a stale one");
        assertEquals(List.of("bias", "parametrizations.weight.original"), List.copyOf(model.stateDict().keySet()));
        assertEquals(List.of("bias", "parametrizations.weight.original"), List.copyOf(model.namedParameters().keySet()));
        assertSame(weight, Parametrize.parametrizations(model, "weight").original(), "the original keeps its identity (an optimizer holding it keeps working)");
        assertClose(weight, Torch.call("a.triu()", before), "right_inverse ran on registration");

        Tensor x = Tensor.randn(3, 5);
        Tensor y = model.forward(x);
        Tensor w = model.tensor("weight");
        assertClose(w, w.mT(), "symmetric");
        assertClose(y, Torch.call("torch.linear(a, b.triu() + b.triu(1).t(), c)", x, weight.detach(), model.bias.detach()), "forward with the parametrized weight");

        Tensor g = Tensor.randn(3, 5);
        List<Tensor> grads = Autograd.grad(List.of(y), List.of(weight), List.of(g), false, false, false);
        try (NDManager m = Torch.scope()) {
            NDList want = Torch.callListWithGrad(m, "w = b.detach().requires_grad_(True)\ny = torch.linear(a, w.triu() + w.triu(1).t(), c)\n"
                    + "return torch.autograd.grad([(y * d).sum()], [w])", x, weight.detach(), model.bias.detach(), g);
            assertClose(grads.get(0), want.get(0), "the gradient reaches the original");
        }

        Tensor originalBefore = weight.detach().clone();
        Parametrize.removeParametrizations(model, "weight");   // leave_parametrized=True
        assertFalse(Parametrize.isParametrized(model));
        assertSame(weight, model.weight, "the same parameter comes back, holding the parametrized value");
        assertClose(model.weight, Torch.call("a.triu() + a.triu(1).t()", originalBefore), "left parametrized");
        assertEquals(List.of("weight", "bias"), List.copyOf(model.stateDict().keySet()));
        assertFalse(model.namedChildren().containsKey("parametrizations"));
    }

    /** A parametrization that doubles its tensor. */
    static final class Doubled extends Module {
        @Override
        public Tensor forward(Tensor original) { return original.mul(2.0); }
    }

    /** Losses' weight buffers are read as the layers' parameters are: a parametrized class weight or pos_weight is used, computed. */
    @Test
    void lossesUseTheirParametrizedWeights() {
        Tensor logits = Tensor.randn(4, 3), classes = Tensor.of(new long[] {0, 2, 1, 2}, 4), probs = Tensor.rand(4, 3);
        CrossEntropyLoss ce = new CrossEntropyLoss(Tensor.rand(3).add(0.5), "sum", -100, 0.0);
        Tensor classWeight = ce.weight;
        Parametrize.registerParametrization(ce, "weight", new Doubled());
        assertNull(ce.weight);
        assertClose(ce.forward(logits, classes), Torch.call("torch.cross_entropy_loss(a, b, c * 2.0, 2)", logits, classes, classWeight), "cross entropy (summed) with the doubled class weight");
        BCEWithLogitsLoss bce = new BCEWithLogitsLoss(null, Tensor.rand(3).add(0.5), "mean");
        Tensor posWeight = bce.posWeight;
        Parametrize.registerParametrization(bce, "pos_weight", new Doubled());
        assertClose(bce.forward(logits, probs), Torch.call("torch.binary_cross_entropy_with_logits(a, b, None, c * 2.0)", logits, probs, posWeight),
                "binary cross entropy with the doubled pos_weight");
    }

    @Test
    void removingWithoutLeavingParametrizedGivesTheOriginalBack() {
        Linear model = new Linear(4, 4);
        Parameter weight = model.weight;
        Tensor before = weight.clone();
        Parametrize.registerParametrization(model, "weight", new Resize(), true);
        assertEquals(List.of(1, 4), List.of(model.tensor("weight").shape()[0], model.tensor("weight").shape()[1]));
        Parametrize.removeParametrizations(model, "weight", false);
        assertSame(weight, model.weight);
        assertClose(model.weight, Torch.toNd(before), "unchanged");
    }

    @Test
    void badRegistrationsAreRefusedInTorchWords() {
        Linear model = new Linear(8, 8);
        var e = assertThrows(IllegalArgumentException.class, () -> Parametrize.registerParametrization(model, "weight", new Resize()));
        assertEquals("Registering a parametrization may not change the shape of the tensor, unless `unsafe` flag is enabled.\n"
                + "unparametrized shape: torch.Size([8, 8])\nparametrized shape: torch.Size([1, 8])", e.getMessage());
        assertFalse(Parametrize.isParametrized(model), "a refused registration leaves the module as it was");
        assertSame(model.weight, model.tensor("weight"));
        e = assertThrows(IllegalArgumentException.class, () -> Parametrize.registerParametrization(model, "wieght", new Symmetric()));
        assertTrue(e.getMessage().endsWith("does not have a parameter, a buffer, or a parametrized element with name 'wieght'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Parametrize.removeParametrizations(model, "bias"));
        assertTrue(e.getMessage().endsWith("does not have a parametrization on bias"), e.getMessage());

        Parametrize.registerParametrization(model, "weight", new Symmetric());
        e = assertThrows(IllegalArgumentException.class, () -> Parametrize.registerParametrization(model, "weight", new Resize()));
        assertTrue(e.getMessage().startsWith("Registering a parametrization may not change the shape of the tensor, unless the `unsafe` flag is enabled.\n"
                + "module.weight.shape: torch.Size([8, 8])"), e.getMessage());
        Parametrizations.weightNorm(new Linear(2, 2));
        e = assertThrows(IllegalArgumentException.class, () -> Parametrizations.orthogonal(new Linear(2, 2), "bias", null, true));
        assertEquals("Expected a matrix or batch of matrices. Got a tensor of 1 dimensions.", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Parametrizations.spectralNorm(new Linear(2, 2), "weight", 0, 1e-12, null));
        assertEquals("Expected n_power_iterations to be positive, but got n_power_iterations=0", e.getMessage());
        var twice = assertThrows(IllegalStateException.class, () -> WeightNorm.weightNorm(WeightNorm.weightNorm(new Linear(2, 2))));
        assertEquals("Cannot register two weight_norm hooks on the same parameter weight", twice.getMessage());
    }

    @Test
    void chainedParametrizationsApplyInOrderAndCachedComputesOnce() {
        Linear model = new Linear(4, 4, false);
        Parametrize.registerParametrization(model, "weight", new Symmetric());
        Parametrize.registerParametrization(model, "weight", new Module() {
            @Override
            public Tensor forward(Tensor x) { return x.mul(2.0); }
        });
        Tensor original = Parametrize.parametrizations(model, "weight").original();
        assertClose(model.tensor("weight"), Torch.call("(a.triu() + a.triu(1).t()) * 2", original.detach()), "p1(p0(original))");
        assertEquals(List.of("parametrizations.weight.original"), List.copyOf(model.stateDict().keySet()));
        assertNotSame(model.tensor("weight"), model.tensor("weight"));
        try (var unused = Parametrize.cached()) {
            assertSame(model.tensor("weight"), model.tensor("weight"), "computed once while cached");
        }
        assertNotSame(model.tensor("weight"), model.tensor("weight"));
    }

    @Test
    void weightNormLoadsTorchKeysOldAndNew() {
        Linear model = (Linear) Parametrizations.weightNorm(new Linear(4, 3));
        Map<String, Tensor> sd = model.stateDict();
        assertEquals(List.of("bias", "parametrizations.weight.original0", "parametrizations.weight.original1"), List.copyOf(sd.keySet()));
        assertEquals(List.of(3, 1), List.of(sd.get("parametrizations.weight.original0").shape()[0], sd.get("parametrizations.weight.original0").shape()[1]));
        Tensor weightBefore = Tensor.randn(3, 4);

        Map<String, Tensor> old = new LinkedHashMap<>();   // a checkpoint of torch.nn.utils.weight_norm (the old hook)
        old.put("bias", Tensor.randn(3));
        old.put("weight_g", Tensor.randn(3, 1));
        old.put("weight_v", weightBefore);
        model.loadStateDict(old);
        assertClose(model.tensor("weight"), Torch.call("torch._weight_norm(a, b, 0)", weightBefore, old.get("weight_g")), "loaded from weight_g/weight_v");

        Linear fresh = (Linear) Parametrizations.weightNorm(new Linear(4, 3));
        fresh.loadStateDict(model.stateDict());
        assertClose(fresh.tensor("weight"), Torch.toNd(model.tensor("weight")), "a parametrized state dict loads into a parametrized module");
    }

    @Test
    void oldStyleHooksSaveTheirKeysAndRemove() {
        Linear wn = (Linear) WeightNorm.weightNorm(new Linear(4, 3));
        assertEquals(List.of("bias", "weight_g", "weight_v"), List.copyOf(wn.stateDict().keySet()));
        Tensor w = wn.tensor("weight");
        assertClose(w, Torch.call("torch._weight_norm(a, b, 0)", wn.parameter("weight_v").detach(), wn.parameter("weight_g").detach()), "computed on registration");
        WeightNorm.removeWeightNorm(wn, "weight");
        assertEquals(java.util.Set.of("weight", "bias"), wn.stateDict().keySet());
        assertClose(wn.weight, Torch.toNd(w.detach()), "the computed weight stays");

        Linear sn = (Linear) SpectralNorm.spectralNorm(new Linear(5, 4));
        assertEquals(List.of("bias", "weight_orig", "weight_u", "weight_v"), List.copyOf(sn.stateDict().keySet()));
        sn.eval();
        Tensor x = Tensor.randn(2, 5);
        Tensor y = sn.call(x);
        assertClose(y, Torch.call("torch.linear(a, b / torch.dot(c, torch.mv(b, d)), e)", x, sn.parameter("weight_orig").detach(), sn.buffer("weight_u"),
                sn.buffer("weight_v"), sn.bias.detach()), "eval: sigma from the stored vectors");
        SpectralNorm.removeSpectralNorm(sn, "weight");
        assertEquals(java.util.Set.of("weight", "bias"), sn.stateDict().keySet());
    }

    @Test
    void spectralNormPowerIterationMatchesLibtorchAndCompiles() {
        Tensor.manualSeed(3);
        Conv2d conv = (Conv2d) Parametrizations.spectralNorm(new Conv2d(2, 3, 2));
        SpectralNormOf sn = new SpectralNormOf(conv);
        Tensor x = Tensor.randn(1, 2, 4, 4);
        Tensor u0 = sn.u().clone(), v0 = sn.v().clone(), w = sn.original().detach();
        Tensor y = conv.forward(x);   // training: one power iteration, then weight / sigma
        String script = "W = b.flatten(1)\nu = torch.mv(W, d)\nu = u / torch.clamp_min(torch.linalg_vector_norm(u), 1e-12)\n"
                + "v = torch.mv(W.t(), u)\nv = v / torch.clamp_min(torch.linalg_vector_norm(v), 1e-12)\n"
                + "return [torch.conv2d(a, b / torch.dot(u, torch.mv(W, v)), e), u, v]";
        try (NDManager m = Torch.scope()) {
            NDList want = Torch.callList(m, script,
                    x, w, u0, v0, conv.bias.detach());
            assertClose(y, want.get(0), "output");
            assertClose(sn.u(), want.get(1), "u after one power iteration");
            assertClose(sn.v(), want.get(2), "v after one power iteration");
        }
        // compiled from the same starting vectors: the same output and the same buffer updates
        sn.u().copy_(u0);
        sn.v().copy_(v0);
        Fn1<Tensor, Tensor> compiled = Ember.compile(conv);
        Tensor yc = compiled.apply(x);
        assertClose(yc, Torch.toNd(y.detach()), "compiled forward");
        Tensor uEager = sn.u().clone();
        sn.u().copy_(u0);
        sn.v().copy_(v0);
        conv.forward(x);
        assertClose(uEager, Torch.toNd(sn.u()), "compiled power iteration updates the buffer as eager does");
    }

    /** The parts of a spectral-norm parametrized module a test reads. */
    record SpectralNormOf(Module m) {
        Parametrizations.SpectralNormParametrization p() { return (Parametrizations.SpectralNormParametrization) Parametrize.parametrizations(m, "weight").get(0); }
        Tensor u() { return p()._u; }
        Tensor v() { return p()._v; }
        Tensor original() { return Parametrize.parametrizations(m, "weight").original(); }
    }

    @Test
    void compiledModuleSeesARegistrationMadeAfterCompiling() {
        Tensor.manualSeed(4);
        Linear model = new Linear(4, 4);
        Fn1<Tensor, Tensor> compiled = Ember.compile(model);
        Tensor x = Tensor.randn(2, 4);
        assertClose(compiled.apply(x), Torch.toNd(model.forward(x).detach()), "before");
        Parametrize.registerParametrization(model, "weight", new Symmetric());
        assertClose(compiled.apply(x), Torch.toNd(model.forward(x).detach()), "after registering: the parametrized weight, not the old field");
        try (var unused = Ember.noGrad()) {
            Parametrize.parametrizations(model, "weight").original().add_(1.0);   // an optimizer step on the original
        }
        assertClose(compiled.apply(x), Torch.toNd(model.forward(x).detach()), "after the original changed");
        Parametrize.removeParametrizations(model, "weight", false);
        assertClose(compiled.apply(x), Torch.toNd(model.forward(x).detach()), "after removing");
    }

    /**
     * With {@code inline_inbuilt_nn_modules} off a built-in layer is one call_module node, run by the
     * graph on the live layer: a weight-normed Linear computes its weight there, and a changed
     * magnitude is seen on the next call.
     */
    @Test
    void aParametrizedLayerKeptAsOneCallModuleNodeUsesItsComputedWeight() {
        System.setProperty("ember.dynamo.inline_inbuilt_nn_modules", "false");
        try {
            Tensor.manualSeed(6);
            Sequential model = new Sequential(Parametrizations.weightNorm(new Linear(4, 3)), new ReLU());
            Fn1<Tensor, Tensor> compiled = Ember.compile(model, dev.ember.Options.backend("inductor"));
            Tensor x = Tensor.randn(2, 4);
            assertClose(compiled.apply(x), Torch.toNd(model.forward(x).detach()), "weight-normed Linear as a call_module node");
            try (var unused = Ember.noGrad()) {
                Parametrize.parametrizations(model.children().getFirst(), "weight").originals().getFirst().mul_(-2.0);
            }
            assertClose(compiled.apply(x), Torch.toNd(model.forward(x).detach()), "after the magnitude changed");
        } finally {
            System.clearProperty("ember.dynamo.inline_inbuilt_nn_modules");
            Ember.reset();
        }
    }

    /** Export lifts a parametrized layer's originals under their state-dict names (torch.export's targets) and computes the weight in the graph. */
    @Test
    void anExportedWeightNormedConvolutionNamesItsOriginalsAndComputesTheWeight() {
        Tensor.manualSeed(8);
        Sequential model = new Sequential(Parametrizations.weightNorm(new Conv2d(2, 3, 3)), new BatchNorm2d(3));
        model.eval();
        Tensor x = Tensor.randn(1, 2, 5, 5);
        var ep = Ember.export(model, x);
        assertEquals(java.util.Set.of("0.bias", "0.parametrizations.weight.original0", "0.parametrizations.weight.original1", "1.weight", "1.bias"),
                ep.parameters().keySet());
        assertClose(ep.run(x).getFirst(), Torch.toNd(model.forward(x).detach()), "exported against eager");
    }

    @Test
    void anOrthogonalRecurrentWeightIsOrthogonalAndUsed() {
        Tensor.manualSeed(5);
        RNN rnn = new RNN(3, 4);
        Parametrizations.orthogonal(rnn, "weight_hh_l0", null, true);
        Tensor w = rnn.tensor("weight_hh_l0");
        assertClose(w.mT().matmul(w), Torch.call("torch.eye(4)"), "orthogonal", dev.ember.testing.TorchAssert.Tolerance.of(1e-5, 1e-5));
        assertTrue(rnn.stateDict().containsKey("parametrizations.weight_hh_l0.original"));
        assertTrue(rnn.stateDict().containsKey("parametrizations.weight_hh_l0.0.base"));
        RNN plain = new RNN(3, 4);
        Map<String, Tensor> sd = new LinkedHashMap<>();
        rnn.namedParameters().forEach((k, v) -> { if (!k.startsWith("parametrizations")) sd.put(k, v); });
        sd.put("weight_hh_l0", w.detach());
        plain.loadStateDict(sd);
        Tensor x = Tensor.randn(5, 1, 3);
        assertClose(rnn.forward(x), Torch.toNd(plain.forward(x).detach()), "the recurrent layer runs with the parametrized weight");
        assertEquals(DType.FLOAT32, w.dtype());
    }
}
