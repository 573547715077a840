package dev.ember.nn;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Conv1d, BatchNorm1d, PReLU, the loss modules NLLLoss/BCELoss/BCEWithLogitsLoss/SmoothL1Loss/
 * HuberLoss/KLDivLoss, and the containers ModuleDict, ParameterList, ParameterDict with
 * {@link Module#registerParameter}: values and gradients against libtorch, PyTorch's names and
 * printouts, errors, and a model of them compiled as one graph equal to eager.
 */
class ConvNormAndContainerModulesTest {

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    private static Tensor randn(DType d, int... shape) { return Tensor.randn(shape).to(d); }

    @Test
    void conv1dMatchesLibtorch() {
        Tensor.manualSeed(1);
        int[][] configs = {{1, 0, 1, 1}, {2, 1, 1, 1}, {1, 2, 2, 1}, {2, 0, 1, 2}, {1, 1, 3, 4}};   // stride, padding, dilation, groups
        for (int[] c : configs) {
            Tensor x = randn(DType.FLOAT64, 3, 8, 17), w = randn(DType.FLOAT64, 4, 8 / c[3], 3), b = randn(DType.FLOAT64, 4);
            String what = "conv1d stride " + c[0] + " padding " + c[1] + " dilation " + c[2] + " groups " + c[3];
            String torch = "torch.conv1d(a, b, c, [" + c[0] + "], [" + c[1] + "], [" + c[2] + "], " + c[3] + ")";
            assertClose(F.conv1d(x, w, b, c[0], c[1], c[2], c[3]), Torch.call(torch, x, w, b), what);
            assertClose(F.conv1d(x.select(0, 1), w, b, c[0], c[1], c[2], c[3]), Torch.call(torch, x.select(0, 1), w, b), what + " unbatched");
            // gradients of input, weight and bias
            Tensor xl = x.detach().requiresGrad(true), wl = w.detach().requiresGrad(true), bl = b.detach().requiresGrad(true);
            Tensor y = F.conv1d(xl, wl, bl, c[0], c[1], c[2], c[3]);
            Tensor go = randn(DType.FLOAT64, y.shape());
            List<Tensor> got = Autograd.grad(List.of(y), List.of(xl, wl, bl), List.of(go), false, false, false);
            String body = "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\nc = c.detach().requires_grad_(True)\ny = " + torch
                    + "\ngo: List[Optional[Tensor]] = [d]\nreturn torch.autograd.grad([y], [a, b, c], go)";
            try (var m = Torch.scope()) {
                var want = Torch.callListWithGrad(m, body, x, w, b, go);
                for (int i = 0; i < 3; i++) assertClose(got.get(i), want.get(i), what + " gradient " + i);
            }
        }
        Conv1d conv = new Conv1d(4, 6, 3, 2, 1);
        assertEquals("Conv1d(4, 6, kernel_size=(3,), stride=(2,), padding=(1,))", conv.toString());
        assertEquals(List.of(6, 4, 3), List.of(conv.weight.size(0), conv.weight.size(1), conv.weight.size(2)));
        Tensor x = Tensor.randn(2, 4, 9);
        assertClose(conv.forward(x), Torch.call("torch.conv1d(a, b, c, [2], [1])", x, conv.weight, conv.bias), "Conv1d module");
        assertEquals("Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: [2, 4, 9, 1]",
                assertThrows(IllegalArgumentException.class, () -> conv.forward(Tensor.randn(2, 4, 9, 1))).getMessage());
    }

    @Test
    void batchNorm1dTrainsAndEvaluatesAsLibtorch() {
        Tensor.manualSeed(2);
        for (int[] shape : new int[][] {{6, 5}, {4, 5, 7}}) {
            BatchNorm1d bn = new BatchNorm1d(5);
            Tensor x = Tensor.randn(shape);
            Tensor rm = Tensor.zeros(5), rv = Tensor.ones(5);
            assertClose(bn.forward(x), Torch.call("torch.batch_norm(a, None, None, b, c, True, 0.1, 1e-5, False)", x, rm, rv), "train " + shape.length + "-d");
            var stats = Torch.callList("y = torch.batch_norm(a, None, None, b, c, True, 0.1, 1e-5, False)\nreturn [b, c]", x, rm, rv);
            assertClose(bn.runningMean, stats.get(0), "running mean " + shape.length + "-d");
            assertClose(bn.runningVar, stats.get(1), "running var " + shape.length + "-d");
            assertEquals(1L, (long) bn.numBatchesTracked.item());
            bn.eval();
            Tensor z = Tensor.randn(shape);
            assertClose(bn.forward(z), Torch.call("torch.batch_norm(a, b, c, d, e, False, 0.1, 1e-5, False)", z, bn.weight, bn.bias, bn.runningMean, bn.runningVar),
                    "eval " + shape.length + "-d");
        }
        assertEquals("BatchNorm1d: expected 2D or 3D input (got 4D input)",
                assertThrows(IllegalArgumentException.class, () -> new BatchNorm1d(3).forward(Tensor.randn(2, 3, 4, 5))).getMessage());
        assertEquals("BatchNorm1d(5, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)", new BatchNorm1d(5).toString());
        assertEquals(List.of("weight", "bias", "running_mean", "running_var", "num_batches_tracked"), new ArrayList<>(new BatchNorm1d(5).stateDict().keySet()));
    }

    @Test
    void preluMatchesLibtorchWithItsGradients() {
        Tensor.manualSeed(3);
        Tensor x = randn(DType.FLOAT64, 3, 4, 5);
        x = Tensor.where(x.abs().gt(0.3), x, 0.0);   // zeros too: ATen's kernel takes weight·x at 0
        for (Tensor w : List.of(Tensor.full(DType.FLOAT64, 0.25, 1), randn(DType.FLOAT64, 4))) {
            assertClose(F.prelu(x, w), Torch.call("torch.prelu(a, b)", x, w), "prelu with " + w.numel() + " weights");
            Tensor xl = x.detach().requiresGrad(true), wl = w.detach().requiresGrad(true);
            Tensor y = F.prelu(xl, wl);
            Tensor go = randn(DType.FLOAT64, y.shape());
            List<Tensor> got = Autograd.grad(List.of(y), List.of(xl, wl), List.of(go), false, false, false);
            try (var m = Torch.scope()) {
                var want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\ny = torch.prelu(a, b)\n"
                        + "go: List[Optional[Tensor]] = [c]\nreturn torch.autograd.grad([y], [a, b], go)", x, w, go);
                assertClose(got.get(0), want.get(0), "prelu input gradient");
                assertClose(got.get(1), want.get(1), "prelu weight gradient");
            }
        }
        assertEquals("prelu: Mismatch of parameter numbers and input channel size. Found parameter numbers = 3 and channel size = 4.",
                assertThrows(IllegalArgumentException.class, () -> F.prelu(Tensor.randn(2, 4), Tensor.randn(3))).getMessage());
        PReLU p = new PReLU(4, 0.1);
        assertEquals("PReLU(num_parameters=4)", p.toString());
        assertClose(p.forward(x.to(DType.FLOAT32)), Torch.call("torch.prelu(a, b)", x.to(DType.FLOAT32), p.weight), "PReLU module");
    }

    @Test
    void lossModulesComputeWhatLibtorchDoes() {
        Tensor.manualSeed(4);
        Tensor logits = Tensor.randn(6, 4), target = Tensor.ofLongs(0, 3, 1, 1, 2, 0);
        Tensor logp = F.logSoftmax(logits, 1);
        assertClose(new NLLLoss().forward(logp, target), Torch.call("torch.nll_loss(a, b)", logp, target), "NLLLoss");
        Tensor w = Tensor.rand(4);
        assertClose(new NLLLoss(w, "sum", 1).forward(logp, target), Torch.call("torch.nll_loss(a, b, c, 2, 1)", logp, target, w), "NLLLoss weighted, ignore 1");
        Tensor p = Tensor.rand(6, 4), y = Tensor.rand(6, 4);
        assertClose(new BCELoss().forward(p, y), Torch.call("torch.binary_cross_entropy(a, b)", p, y), "BCELoss");
        assertClose(new BCEWithLogitsLoss(null, Tensor.full(2.0, 4), "sum").forward(logits, y),
                Torch.call("torch.binary_cross_entropy_with_logits(a, b, None, c, 2)", logits, y, Tensor.full(2.0, 4)), "BCEWithLogitsLoss pos_weight");
        assertClose(new SmoothL1Loss("mean", 0.5).forward(logits, y), Torch.call("torch.smooth_l1_loss(a, b, 1, 0.5)", logits, y), "SmoothL1Loss");
        assertClose(new HuberLoss("none", 0.7).forward(logits, y), Torch.call("torch.huber_loss(a, b, 0, 0.7)", logits, y), "HuberLoss");
        Tensor q = F.softmax(Tensor.randn(6, 4), 1);
        assertClose(new KLDivLoss("batchmean", false).forward(logp, q), Torch.call("ops.aten.kl_div(a, b, 2) / 6", logp, q), "KLDivLoss batchmean");
    }

    @Test
    void containersRegisterWhatTheyHold() {
        ModuleDict<Module> heads = new ModuleDict<>();
        heads.put("cls", new Linear(4, 3)).put("reg", new Linear(4, 1));
        assertEquals(List.of("cls.weight", "cls.bias", "reg.weight", "reg.bias"), new ArrayList<>(heads.stateDict().keySet()));
        assertEquals("ModuleDict(\n  (cls): Linear(in_features=4, out_features=3, bias=True)\n  (reg): Linear(in_features=4, out_features=1, bias=True)\n)", heads.toString());
        assertThrows(IllegalArgumentException.class, () -> heads.get("box"));
        assertThrows(IllegalArgumentException.class, () -> heads.put("a.b", new ReLU()));

        ParameterList list = new ParameterList(new Parameter(Tensor.ones(2)), new Parameter(Tensor.zeros(3)));
        assertEquals(List.of("0", "1"), new ArrayList<>(list.namedParameters().keySet()));
        assertSame(list.get(-1), list.parameters().get(1));
        ParameterDict dict = new ParameterDict().put("alpha", new Parameter(Tensor.ones(1)));
        assertEquals(List.of("alpha"), new ArrayList<>(dict.stateDict().keySet()));

        // registered parameters convert with to(), load from a state dict, and refuse clashing names
        list.to(DType.FLOAT64);
        assertEquals(DType.FLOAT64, list.get(0).dtype());
        Map<String, Tensor> state = new LinkedHashMap<>();
        state.put("0", Tensor.full(DType.FLOAT64, 7.0, 2));
        state.put("1", Tensor.full(DType.FLOAT64, 8.0, 3));
        list.loadStateDict(state);
        assertEquals(7.0, list.get(0).sum().item() / 2);
        Linear lin = new Linear(2, 2);
        assertEquals("attribute 'weight' already exists in Linear (field weight)",
                assertThrows(IllegalArgumentException.class, () -> lin.registerParameter("weight", new Parameter(Tensor.ones(1)))).getMessage());
        lin.registerBuffer("scale", Tensor.ones(1));
        assertThrows(IllegalArgumentException.class, () -> lin.registerParameter("scale", new Parameter(Tensor.ones(1))));
    }

    /** A model a user might write with the new pieces: Conv1d, BatchNorm1d, PReLU, a ModuleDict of heads, a ParameterList of scales. */
    static final class SequenceModel extends Module {
        final Conv1d conv = new Conv1d(3, 8, 3, 1, 1);
        final BatchNorm1d norm = new BatchNorm1d(8);
        final PReLU act = new PReLU(8, 0.2);
        final ModuleDict<Linear> heads = new ModuleDict<>(Map.of("a", new Linear(8, 2)));
        final ParameterList scales = new ParameterList(new Parameter(Tensor.full(1.5, 1)), new Parameter(Tensor.full(0.5, 1)));

        SequenceModel() { heads.put("b", new Linear(8, 2)); }

        @Override
        public Tensor forward(Tensor x) {
            Tensor h = act.forward(norm.forward(conv.forward(x))).mean(new int[] {2}, false);
            Tensor out = null;
            int i = 0;
            for (Linear head : heads.values()) {
                Tensor y = head.forward(h).mul(scales.get(i++));
                out = out == null ? y : out.add(y);
            }
            return out;
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void aModelOfThemIsOneGraphEqualToEager(String backend) {
        Tensor.manualSeed(5);
        SequenceModel model = new SequenceModel();
        model.eval();
        Tensor x = Tensor.randn(4, 3, 10);
        ExplainOutput e = Ember.explain((Fn1<Tensor, Tensor>) model::forward).with(x);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertEquals(1, e.graphCount(), e.toString());
        Fn1<Tensor, Tensor> f = Ember.compile(model, Options.backend(backend));
        assertClose(f.apply(x), model.forward(x), "model under " + backend);
        // in training mode: batch statistics, and the running ones updated alike
        Tensor.manualSeed(5);
        SequenceModel a = new SequenceModel(), b = new SequenceModel();
        b.loadStateDict(a.stateDict());
        Fn1<Tensor, Tensor> fb = Ember.compile(b, Options.backend(backend));
        assertClose(fb.apply(x), a.forward(x), "training mode under " + backend);
        assertClose(b.norm.runningMean, a.norm.runningMean, "running mean under " + backend);
    }
}
