package dev.ember.nn;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The new nn modules: PyTorch's printouts and initial parameters, their forward against F and
 * libtorch, a Sequential of them compiled into one graph with no break (inductor and aot_eager
 * computing what eager does), and a training step of GroupNorm + LeakyReLU + SmoothL1 compiled
 * against eager.
 */
class MoreModulesTest {

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    @Test
    void modulesPrintAsPyTorchDoes() {
        Sequential s = new Sequential(new Tanh(), new Sigmoid(), new LeakyReLU(), new ELU(0.5), new Softplus(), new Hardtanh(), new ReLU6(),
                new Hardswish(), new Mish(), new Identity(), new Softmax(1), new LogSoftmax(-1), new GroupNorm(2, 6), new AvgPool2d(2),
                new MSELoss(), new L1Loss(), new CrossEntropyLoss());
        assertEquals("""
                Sequential(
                  (0): Tanh()
                  (1): Sigmoid()
                  (2): LeakyReLU(negative_slope=0.01)
                  (3): ELU(alpha=0.5)
                  (4): Softplus(beta=1.0, threshold=20.0)
                  (5): Hardtanh(min_val=-1.0, max_val=1.0)
                  (6): ReLU6()
                  (7): Hardswish()
                  (8): Mish()
                  (9): Identity()
                  (10): Softmax(dim=1)
                  (11): LogSoftmax(dim=-1)
                  (12): GroupNorm(2, 6, eps=1e-05, affine=True)
                  (13): AvgPool2d(kernel_size=2, stride=2, padding=0)
                  (14): MSELoss()
                  (15): L1Loss()
                  (16): CrossEntropyLoss()
                )""", s.toString());
    }

    @Test
    void groupNormStartsAsPyTorchsAndChecksItsArguments() {
        GroupNorm gn = new GroupNorm(3, 6);
        assertArrayEquals(Tensor.ones(6).toDoubleArray(), gn.weight.toDoubleArray());
        assertArrayEquals(Tensor.zeros(6).toDoubleArray(), gn.bias.toDoubleArray());
        assertEquals(List.of("weight", "bias"), new ArrayList<>(gn.namedParameters().keySet()));
        GroupNorm plain = new GroupNorm(2, 4, 1e-3, false);
        assertEquals(List.of(), plain.parameters());
        assertThrows(IllegalArgumentException.class, () -> new GroupNorm(4, 6));
        assertThrows(IllegalArgumentException.class, () -> new Hardtanh(1.0, -1.0));
        Tensor x = Tensor.randn(2, 6, 3);
        assertClose(gn.forward(x), Torch.call("torch.group_norm(a, 3)", x), "GroupNorm forward");
    }

    @Test
    void lossModulesComputeWhatFComputes() {
        Tensor x = Tensor.randn(4, 5), y = Tensor.randn(4, 5);
        Tensor target = Tensor.ofLongs(0, 4, 2, 1);
        assertClose(new MSELoss().forward(x, y), F.mseLoss(x, y), "MSELoss");
        assertClose(new L1Loss("sum").forward(x, y), Torch.call("ops.aten.l1_loss(a, b, 2)", x, y), "L1Loss sum");
        assertClose(new CrossEntropyLoss().forward(x, target), F.crossEntropy(x, target), "CrossEntropyLoss");
        Tensor w = Tensor.rand(5);
        assertClose(new CrossEntropyLoss(w, "sum", 2, 0.1).forward(x, target), F.crossEntropy(x, target, w, "sum", 2, 0.1), "CrossEntropyLoss options");
    }

    /** A small model touching the new activations, normalizations and losses. */
    static final class Body extends Module {
        final Sequential layers = new Sequential(new Linear(6, 8), new GroupNorm(2, 8), new LeakyReLU(0.1), new Linear(8, 8), new ELU(), new Softplus(),
                new Hardtanh(-2.0, 2.0), new ReLU6(), new Hardswish(), new Mish(), new Identity(), new Tanh(), new Sigmoid(), new LogSoftmax(1));

        @Override
        public Tensor forward(Tensor x) { return layers.forward(x); }
    }

    static Tensor functions(Tensor x, Tensor y) {
        Tensor p = F.sigmoid(x);
        Tensor image = x.reshape(2, 2, 2, 3);
        Tensor parts = Tensor.stack(List.of(
                F.selu(x).sum(), F.celu(x, 0.5).sum(), F.hardsigmoid(x).sum(), F.logSigmoid(x).sum(), F.softsign(x).sum(), F.tanhshrink(x).sum(),
                F.softmin(x, 1).sum(), F.glu(x, 1).sum(), F.normalize(x).sum(), F.cosineSimilarity(x, y).sum(), F.pairwiseDistance(x, y).sum(),
                F.pad(image, new int[] {1, -1, 2, 0}, 0.5).sum(), F.groupNorm(image, 2).sum(), F.l1Loss(x, y), F.smoothL1Loss(x, y, "sum", 0.5),
                F.huberLoss(x, y, "mean", 0.7), F.klDiv(F.logSoftmax(x, 1), F.softmax(y, 1), "batchmean", false),
                F.binaryCrossEntropy(p, F.sigmoid(y), null, "mean")), 0);
        return parts;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledFunctionsAndSequentialMatchEagerWithNoGraphBreak(String backend) {
        Tensor.manualSeed(11);
        Tensor x = Tensor.randn(4, 6).to(DType.FLOAT64), y = Tensor.randn(4, 6).to(DType.FLOAT64);
        ExplainOutput e = Ember.explain((Fn2<Tensor, Tensor, Tensor>) MoreModulesTest::functions).with(x, y);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertEquals(1, e.graphCount(), e.toString());
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(MoreModulesTest::functions, Options.backend(backend));
        assertArrayEquals(functions(x, y).toDoubleArray(), f.apply(x, y).toDoubleArray(), 1e-10, backend);

        Body body = new Body();
        Tensor in = Tensor.randn(5, 6);
        ExplainOutput m = Ember.explain((Fn1<Tensor, Tensor>) body::forward).with(in);
        assertEquals(0, m.graphBreakCount(), m.toString());
        assertEquals(1, m.graphCount(), m.toString());
        Fn1<Tensor, Tensor> compiled = Ember.compile(body, Options.backend(backend));
        assertClose(compiled.apply(in), body.forward(in), "Sequential of the new modules under " + backend);
    }

    /** The model of the training step: Linear, GroupNorm, LeakyReLU, Linear. */
    static Sequential trainingModel() {
        Tensor.manualSeed(5);
        return new Sequential(new Linear(6, 8), new GroupNorm(4, 8), new LeakyReLU(0.2), new Linear(8, 3));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void aTrainingStepCompiledMatchesEager(String backend) {
        Tensor.manualSeed(9);
        Tensor x = Tensor.randn(5, 6), y = Tensor.randn(5, 3);
        Sequential eagerModel = trainingModel(), compiledModel = trainingModel();
        Fn2<Tensor, Tensor, Tensor> eagerLoss = (in, target) -> F.smoothL1Loss(eagerModel.forward(in), target, "mean", 0.5);
        Fn2<Tensor, Tensor, Tensor> compiledLoss = Ember.compile((in, target) -> F.smoothL1Loss(compiledModel.forward(in), target, "mean", 0.5),
                Options.backend(backend));
        List<Tensor> before = new ArrayList<>();
        for (Sequential model : List.of(eagerModel, compiledModel)) {
            dev.ember.optim.SGD sgd = new dev.ember.optim.SGD(model.parameters(), dev.ember.optim.SGD.options().lr(0.5));
            Tensor loss = (model == eagerModel ? eagerLoss : compiledLoss).apply(x, y);
            loss.backward();
            before.add(loss);
            sgd.step();
        }
        assertClose(before.get(1), before.get(0), "loss under " + backend);
        List<Parameter> want = eagerModel.parameters(), got = compiledModel.parameters();
        for (int i = 0; i < want.size(); i++) {
            assertClose(got.get(i).grad(), want.get(i).grad(), "gradient of parameter " + i + " under " + backend);
            assertClose(got.get(i), want.get(i), "parameter " + i + " after the step under " + backend);
        }
    }
}
