package dev.ember.nn;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
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
 * SoftMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, MultiLabelMarginLoss,
 * HingeEmbeddingLoss, PoissonNLLLoss, GaussianNLLLoss and TripletMarginWithDistanceLoss, each
 * reduction, against libtorch's ATen ops (or, for the three PyTorch writes in Python, its formula
 * run in libtorch): values, gradients, errors; and a compiled model's loss and gradients equal to
 * eager.
 */
class MoreLossesTest {
    private static final List<String> REDUCTIONS = List.of("none", "mean", "sum");
    private final Random rng = new Random(67);

    private static int r(String reduction) { return REDUCTIONS.indexOf(reduction); }

    private Tensor signs(int... shape) { return Inputs.randint(rng, DType.INT64, 0, 2, shape).mul(2L).sub(1L).to(DType.FLOAT64); }

    @Test
    void atenLossesMatchLibtorch() {
        try (NDManager m = Torch.scope()) {
            for (String red : REDUCTIONS) {
                Tensor x = Inputs.randn(rng, DType.FLOAT64, 4, 5), y = signs(4, 5);
                assertClose(new SoftMarginLoss(red).forward(x, y), Torch.call(m, "ops.aten.soft_margin_loss(a, b, " + r(red) + ")", x, y), "soft_margin " + red);
                assertClose(new HingeEmbeddingLoss(0.7, red).forward(x, y), Torch.call(m, "ops.aten.hinge_embedding_loss(a, b, 0.7, " + r(red) + ")", x, y), "hinge " + red);
                Tensor t = Inputs.randint(rng, DType.INT64, 0, 5, 4, 5).to(DType.FLOAT64), rate = x.abs().add(0.1);
                for (boolean full : new boolean[] {false, true}) {
                    assertClose(new PoissonNLLLoss(true, full, 1e-8, red).forward(x, t), Torch.call(m, "ops.aten.poisson_nll_loss(a, b, True, " + (full ? "True" : "False") + ", 1e-8, " + r(red) + ")", x, t),
                            "poisson log " + full + " " + red);
                    assertClose(new PoissonNLLLoss(false, full, 1e-3, red).forward(rate, t), Torch.call(m, "ops.aten.poisson_nll_loss(a, b, False, " + (full ? "True" : "False") + ", 1e-3, " + r(red) + ")", rate, t),
                            "poisson rate " + full + " " + red);
                }
                Tensor cls = Inputs.randint(rng, DType.INT64, 0, 5, 4), w = Inputs.rand(rng, DType.FLOAT64, 5);
                for (int p : new int[] {1, 2}) {
                    assertClose(new MultiMarginLoss(p, 0.8, null, red).forward(x, cls), Torch.call(m, "ops.aten.multi_margin_loss(a, b, " + p + ", 0.8, None, " + r(red) + ")", x, cls),
                            "multi_margin p" + p + " " + red);
                    assertClose(new MultiMarginLoss(p, 1.0, w, red).forward(x, cls), Torch.call(m, "ops.aten.multi_margin_loss(a, b, " + p + ", 1.0, c, " + r(red) + ")", x, cls, w),
                            "multi_margin weighted p" + p + " " + red);
                }
                Tensor row = x.select(0, 1), one = Tensor.of(new long[] {3}, new int[0]);
                assertClose(F.multiMarginLoss(row, one, 1, 1.0, null, red), Torch.call(m, "ops.aten.multi_margin_loss(a, b, 1, 1.0, None, " + r(red) + ")", row, one), "multi_margin 1-d " + red);
                Tensor labels = Tensor.of(new long[] {3, 0, -1, 1, 2, 4, 1, 4, 3, 0, 2, 2, -1, -1, 3, -1, 0, 2, 1, 4}, 4, 5);
                assertClose(new MultiLabelMarginLoss(red).forward(x, labels), Torch.call(m, "ops.aten.multilabel_margin_loss(a, b, " + r(red) + ")", x, labels), "multilabel_margin " + red);
                Tensor rowLabels = Tensor.of(new long[] {4, 1, -1, 2, 0}, 5);
                assertClose(F.multilabelMarginLoss(row, rowLabels, red), Torch.call(m, "ops.aten.multilabel_margin_loss(a, b, " + r(red) + ")", row, rowLabels), "multilabel_margin 1-d " + red);
            }
        }
    }

    @Test
    void pythonLossesMatchPyTorchsFormulasInLibtorch() {
        try (NDManager m = Torch.scope()) {
            for (String red : REDUCTIONS) {
                String reduce = red.equals("mean") ? "l.mean()" : red.equals("sum") ? "l.sum()" : "l";
                Tensor x = Inputs.randn(rng, DType.FLOAT64, 4, 5), y = Inputs.randint(rng, DType.INT64, 0, 2, 4, 5).to(DType.FLOAT64), w = Inputs.rand(rng, DType.FLOAT64, 5);
                String mlsm = "l = -(b * ops.aten.log_sigmoid(a) + (1 - b) * ops.aten.log_sigmoid(-a))\n";
                assertClose(new MultiLabelSoftMarginLoss(null, red).forward(x, y), Torch.call(m, mlsm + "l = l.sum(dim=1) / 5\nreturn " + reduce, x, y), "multilabel_soft_margin " + red);
                assertClose(new MultiLabelSoftMarginLoss(w, red).forward(x, y), Torch.call(m, mlsm + "l = (l * c).sum(dim=1) / 5\nreturn " + reduce, x, y, w), "weighted multilabel_soft_margin " + red);
                Tensor target = Inputs.randn(rng, DType.FLOAT64, 4, 5), var = Inputs.rand(rng, DType.FLOAT64, 4, 5).add(0.1);
                var = var.maskedFill(Tensor.of(new boolean[] {true, false, false, false, false}, 5), 1e-9);   // below eps: clamped
                for (Tensor v : List.of(var, var.select(1, 2), var.narrow(1, 1, 1))) {
                    for (boolean full : new boolean[] {false, true}) {
                        String vv = v.dim() == 1 ? "c.unsqueeze(-1)" : "c";
                        assertClose(new GaussianNLLLoss(full, 1e-6, red).forward(x, target, v),
                                Torch.call(m, "v = " + vv + ".clamp(min=1e-6)\nl = 0.5 * (torch.log(v) + (a - b) ** 2 / v)" + (full ? " + 0.9189385332046727" : "") + "\nreturn " + reduce, x, target, v),
                                "gaussian_nll " + java.util.Arrays.toString(v.shape()) + " " + full + " " + red);
                    }
                }
                Tensor a = Inputs.randn(rng, DType.FLOAT64, 6, 4), p = Inputs.randn(rng, DType.FLOAT64, 6, 4), n = Inputs.randn(rng, DType.FLOAT64, 6, 4);
                for (boolean swap : new boolean[] {false, true}) {
                    String s = swap ? "True" : "False";
                    assertClose(new TripletMarginWithDistanceLoss(null, 1.5, swap, red).forward(a, p, n),
                            Torch.call(m, "torch.triplet_margin_loss(a, b, c, 1.5, 2.0, 1e-6, " + s + ", " + r(red) + ")", a, p, n), "triplet default distance " + swap + " " + red);
                    String cos = "dp = 1 - torch.cosine_similarity(a, b, 1, 1e-8)\ndn = 1 - torch.cosine_similarity(a, c, 1, 1e-8)\n"
                            + (swap ? "dn = torch.minimum(dn, 1 - torch.cosine_similarity(b, c, 1, 1e-8))\n" : "") + "l = torch.clamp_min(0.5 + dp - dn, 0)\nreturn " + reduce;
                    assertClose(new TripletMarginWithDistanceLoss((u, v) -> F.cosineSimilarity(u, v).rsub(1.0), 0.5, swap, red).forward(a, p, n),
                            Torch.call(m, cos, a, p, n), "triplet cosine distance " + swap + " " + red);
                }
            }
        }
    }

    @Test
    void gradientsMatchLibtorch() {
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 4, 5), y = signs(4, 5), cls = Inputs.randint(rng, DType.INT64, 0, 5, 4), w = Inputs.rand(rng, DType.FLOAT64, 5);
        Tensor labels = Tensor.of(new long[] {3, 0, -1, 1, 2, 4, 1, 4, 3, 0, 2, 2, -1, -1, 3, -1, 0, 2, 1, 4}, 4, 5);
        Tensor counts = Inputs.randint(rng, DType.INT64, 0, 5, 4, 5).to(DType.FLOAT64);
        try (NDManager m = Torch.scope()) {
            record Case(String name, java.util.function.Function<Tensor, Tensor> ember, String torch, Tensor other) {}
            for (Case c : List.of(
                    new Case("soft_margin", t -> F.softMarginLoss(t, y, "sum"), "ops.aten.soft_margin_loss(a, b, 2)", y),
                    new Case("hinge", t -> F.hingeEmbeddingLoss(t, y, 0.5, "mean"), "ops.aten.hinge_embedding_loss(a, b, 0.5, 1)", y),
                    new Case("poisson", t -> F.poissonNllLoss(t, counts, true, true, 1e-8, "mean"), "ops.aten.poisson_nll_loss(a, b, True, True, 1e-8, 1)", counts),
                    new Case("multi_margin", t -> F.multiMarginLoss(t, cls, 2, 0.9, w, "sum"), "ops.aten.multi_margin_loss(a, b, 2, 0.9, c, 2)", cls),
                    new Case("multilabel_margin", t -> F.multilabelMarginLoss(t, labels, "mean"), "ops.aten.multilabel_margin_loss(a, b, 1)", labels))) {
                Tensor leaf = x.detach().requiresGrad(true);
                c.ember().apply(leaf).backward();
                NDList want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([" + c.torch() + "], [a])", x, c.other(), w);
                assertClose(leaf.grad(), want.head(), c.name() + " gradient");
            }
            Tensor target = Inputs.randn(rng, DType.FLOAT64, 4, 5), var = Inputs.rand(rng, DType.FLOAT64, 4, 1).add(0.1);
            Tensor xl = x.detach().requiresGrad(true), vl = var.detach().requiresGrad(true);
            F.gaussianNllLoss(xl, target, vl, true, 1e-6, "mean").backward();
            NDList want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nc = c.detach().requires_grad_(True)\n"
                    + "l = (0.5 * (torch.log(c) + (a - b) ** 2 / c) + 0.9189385332046727).mean()\nreturn torch.autograd.grad([l], [a, c])", x, target, var);
            assertClose(xl.grad(), want.get(0), "gaussian_nll input gradient");
            assertClose(vl.grad(), want.get(1), "gaussian_nll var gradient");
        }
    }

    @Test
    void badArgumentsFailLikePyTorch() {
        Tensor x = Tensor.randn(4, 5), cls = Tensor.of(new long[] {1, 2, 3, 0}, 4);
        try (NDManager m = Torch.scope()) {
            refused(m, "multi_margin p 3", () -> F.multiMarginLoss(x, cls, 3, 1.0, null, "mean"), "ops.aten.multi_margin_loss(a, b, 3, 1.0, None, 1)", x, cls);
            Tensor three = Tensor.of(new long[] {1, 2, 3}, 3);
            refused(m, "multi_margin target size", () -> F.multiMarginLoss(x, three, 1, 1.0, null, "mean"), "ops.aten.multi_margin_loss(a, b, 1, 1.0, None, 1)", x, three);
            Tensor w = Tensor.ones(4);
            refused(m, "multi_margin weight size", () -> F.multiMarginLoss(x, cls, 1, 1.0, w, "mean"), "ops.aten.multi_margin_loss(a, b, 1, 1.0, c, 1)", x, cls, w);
            Tensor labels = Tensor.zeros(DType.INT64, 4, 4);
            refused(m, "multilabel_margin target size", () -> F.multilabelMarginLoss(x, labels, "mean"), "ops.aten.multilabel_margin_loss(a, b, 1)", x, labels);
            Tensor empty = Tensor.zeros(4, 0);
            refused(m, "multilabel_margin empty", () -> F.multilabelMarginLoss(empty, labels, "mean"), "ops.aten.multilabel_margin_loss(a, b, 1)", empty, labels);
        }
        assertEquals("gaussian_nll_loss: var has negative entry/entries",
                assertThrows(IllegalArgumentException.class, () -> F.gaussianNllLoss(x, x, x.sub(10.0), false, 1e-6, "mean")).getMessage());
        assertEquals("gaussian_nll_loss: var is of incorrect size",
                assertThrows(IllegalArgumentException.class, () -> F.gaussianNllLoss(x, x, Tensor.ones(4, 2), false, 1e-6, "mean")).getMessage());
        assertEquals("TripletMarginWithDistanceLoss: expected margin to be greater than 0, got 0.0 instead",
                assertThrows(IllegalArgumentException.class, () -> new TripletMarginWithDistanceLoss(null, 0, false, "mean")).getMessage());
        assertEquals("soft_margin_loss: avg is not a valid value for reduction",
                assertThrows(IllegalArgumentException.class, () -> F.softMarginLoss(x, x, "avg")).getMessage());
        assertEquals("MultiMarginLoss: only p == 1 and p == 2 supported", assertThrows(IllegalArgumentException.class, () -> new MultiMarginLoss(3, 1, null, "mean")).getMessage());
    }

    /** A linear head trained with several of the losses at once: compiled loss and weight gradient equal eager's. */
    @Test
    void compiledLossesEqualEager() {
        Tensor.manualSeed(8);
        Linear eager = new Linear(6, 5), twin = new Linear(6, 5);
        twin.loadStateDict(eager.stateDict());
        Tensor cls = Tensor.of(new long[] {1, 4, 0}, 3), labels = Tensor.of(new long[] {2, 0, -1, 1, 1, 3, 4, -1, 0, 0, 1, 2, 3, 4, -1}, 3, 5);
        Tensor signs = Tensor.of(new double[] {1, -1, 1, 1, -1, -1, 1, -1, 1, 1, 1, -1, -1, 1, -1}, 3, 5).to(DType.FLOAT32);
        class Objective {
            final Linear head;
            Objective(Linear head) { this.head = head; }
            Tensor loss(Tensor x, Tensor anchorShift) {
                Tensor z = head.forward(x);
                return F.softMarginLoss(z, signs, "mean").add(F.multiMarginLoss(z, cls, 2, 1.0, null, "sum")).add(F.multilabelMarginLoss(z, labels, "mean"))
                        .add(F.hingeEmbeddingLoss(z, signs, 1.0, "sum")).add(F.poissonNllLoss(z, signs.abs(), true, false, 1e-8, "mean"))
                        .add(F.multilabelSoftMarginLoss(z, signs.clampMin(0.0), null, "mean"))
                        .add(F.tripletMarginWithDistanceLoss(z, z.add(anchorShift), z.flip(0), null, 1.0, true, "mean"));
            }
        }
        Tensor x = Tensor.randn(3, 6), shift = Tensor.randn(3, 5);
        Fn2<Tensor, Tensor, Tensor> fn = new Objective(twin)::loss;
        Tensor want = new Objective(eager).loss(x, shift), got = Ember.compile(fn, Options.backend("inductor").fullgraph(true)).apply(x, shift);
        assertClose(got, want, "loss", TorchAssert.Tolerance.of(1e-5, 1e-5));
        List<Tensor> wantGrads = Autograd.grad(want, eager.weight, eager.bias), gotGrads = Autograd.grad(got, twin.weight, twin.bias);
        for (int i = 0; i < 2; i++) assertClose(gotGrads.get(i), wantGrads.get(i), "gradient " + i, TorchAssert.Tolerance.of(1e-4, 1e-5));
    }
}
