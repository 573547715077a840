package dev.ember.ops;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.nn.F;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The training ops under Ember.compile: captured in one graph with no break, and what the compiled
 * graph returns is what eager returns — with the inductor they have no lowering, so each runs its
 * eager kernel as an extern call among generated code.
 */
class TrainingOpsCompileTest {

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    /** A loss step touching every new op: the results are folded into one float64 vector. */
    static Tensor step(Tensor logits, Tensor target, Tensor x) {
        Tensor ce = F.crossEntropy(logits, target);
        Tensor smoothed = F.crossEntropy(logits, target, null, "sum", 1, 0.1);
        Tensor nll = F.nllLoss(logits.logSoftmax(1, DType.FLOAT64), target);
        Tensor mse = F.mseLoss(x, x.remainder(0.75), "sum");
        Tensor mod = x.fmod(-1.5).add(x.floorDivide(0.5)).add(Tensor.remainder(2.0, x.abs().add(1.0)));
        Tensor top = x.topk(2, 1, true).get(1);
        Tensor sorted = x.sort(1, true).get(0);
        Tensor scattered = x.scatterAdd(1, top, sorted.narrow(1, 0, 2)).scatter(1, top, 0.5);
        Tensor added = x.indexAdd(0, target, logits.narrow(1, 0, 4));
        Tensor hot = F.oneHot(target, 5).to(DType.FLOAT64);
        Tensor picked = Tensor.where(x.gt(0.0), 1.0, x).clamp(x.neg(), x.abs());
        return Tensor.stack(java.util.List.of(ce, smoothed, nll, mse, mod.sum(), x.cumsum(1).sum(), scattered.sum(), added.sum(), hot.sum(),
                picked.sum(), top.to(DType.FLOAT64).sum()), 0);
    }

    /** The in-place and out= forms on tensors made inside the function (the compiler may make them functional). */
    static Tensor writes(Tensor logits, Tensor target, Tensor x) {
        Tensor a = x.mul(3.0);
        a.remainder_(0.7);
        a.fmod_(x.abs().add(0.5));
        a.floorDivide_(x.abs().add(0.25));
        Tensor b = logits.clone();
        b.scatter_(1, target.unsqueeze(1), -1.0);
        b.scatterAdd_(1, target.unsqueeze(1), logits.narrow(1, 0, 1));
        b.indexAdd_(0, target, logits);
        Tensor c = Tensor.empty(DType.FLOAT64, 6, 4);
        x.cumsumOut(0, c);
        Tensor d = Tensor.empty(DType.FLOAT64, 6, 4);
        x.remainderOut(x.abs().add(1.0), d);
        return Tensor.stack(java.util.List.of(a.sum(), b.sum(), c.sum(), d.sum()), 0);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void inPlaceAndOutFormsCompileToWhatEagerComputes(String backend) {
        Tensor.manualSeed(4);
        Tensor logits = Tensor.randn(6, 5).to(DType.FLOAT64), x = Tensor.randn(6, 4).to(DType.FLOAT64);
        Tensor target = Tensor.ofLongs(0, 4, 1, 1, 3, 2);
        Fn3<Tensor, Tensor, Tensor, Tensor> f = Ember.compile(TrainingOpsCompileTest::writes, Options.backend(backend));
        assertArrayEquals(writes(logits, target, x).toDoubleArray(), f.apply(logits, target, x).toDoubleArray(), 1e-12, backend);
    }

    static Tensor inferredOneHot(Tensor labels) {
        return F.oneHot(labels.add(1L)).mul(2L);
    }

    @Test
    void oneHotWithoutAClassCountBreaksTheGraphAndStillComputesWhatEagerDoes() {
        Tensor labels = Tensor.ofLongs(2, 0, 3);
        ExplainOutput e = Ember.explain((Fn1<Tensor, Tensor>) TrainingOpsCompileTest::inferredOneHot).with(labels);
        assertEquals(1, e.graphBreakCount(), e.toString());
        assertTrue(e.breakReasons().getFirst().reason().contains("pass num_classes"), e.toString());
        Fn1<Tensor, Tensor> f = Ember.compile(TrainingOpsCompileTest::inferredOneHot, Options.backend("inductor"));
        assertArrayEquals(inferredOneHot(labels).toLongArray(), f.apply(labels).toLongArray());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void compiledMatchesEagerWithNoGraphBreak(String backend) {
        Tensor.manualSeed(3);
        Tensor logits = Tensor.randn(6, 5).to(DType.FLOAT64), x = Tensor.randn(6, 4).to(DType.FLOAT64);
        Tensor target = Tensor.ofLongs(0, 4, 1, 1, 3, 2);
        ExplainOutput e = Ember.explain((Fn3<Tensor, Tensor, Tensor, Tensor>) TrainingOpsCompileTest::step).with(logits, target, x);
        assertEquals(0, e.graphBreakCount(), e.toString());
        Fn3<Tensor, Tensor, Tensor, Tensor> f = Ember.compile(TrainingOpsCompileTest::step, Options.backend(backend));
        Tensor want = step(logits, target, x), got = f.apply(logits, target, x);
        assertArrayEquals(want.toDoubleArray(), got.toDoubleArray(), 1e-12, backend);
    }
}
