package dev.ember.aot;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.CompiledFrame;
import dev.ember.dynamo.FrameRegistry;
import dev.ember.nn.BatchNorm1d;
import dev.ember.nn.F;
import dev.ember.nn.GELU;
import dev.ember.nn.Linear;
import dev.ember.nn.Parameter;
import dev.ember.nn.Sequential;
import dev.ember.optim.AdamW;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Training graphs generic in their sizes: a batch size that changes between steps compiles once more
 * (the recompile that makes it a symbol), and that one forward and backward pair then trains every
 * later size as eager does, where each size used to compile a pair of its own.
 */
class DynamicTrainingTest {

    @AfterEach
    void reset() { Ember.reset(); }

    private static final int[] BATCHES = {2, 5, 8, 3, 17, 33, 6, 11};

    private static CompiledFrame frameOf(Options opts) {
        return FrameRegistry.frames().stream().filter(f -> f.options() == opts).findFirst().orElseThrow();
    }

    /** Losses and parameters after each AdamW step of an MLP, eager or compiled, over the batches above. */
    private static List<float[]> train(Options opts) {
        Tensor.manualSeed(11);
        Sequential net = new Sequential(new Linear(10, 32), new GELU(), new Linear(32, 4));
        AdamW opt = new AdamW(net.parameters(), AdamW.options().lr(1e-2));
        Fn1<Tensor, Tensor> forward = opts == null ? net::call : Ember.compile(net, opts);
        Generator data = new Generator(5);
        List<float[]> trace = new ArrayList<>();
        for (int n : BATCHES) {
            Tensor x = Tensor.randn(data, n, 10), y = Tensor.randint(0, 4, new int[] {n});
            opt.zeroGrad();
            Tensor loss = F.crossEntropy(forward.apply(x), y);
            loss.backward();
            for (Parameter p : net.parameters()) trace.add(p.grad().toFloatArray());
            opt.step();
            trace.add(loss.toFloatArray());
            for (Parameter p : net.parameters()) trace.add(p.toFloatArray());
        }
        return trace;
    }

    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor"})
    void anMlpTrainsEveryBatchSizeWithOneGenericPairAsEagerDoes(String backend) {
        List<float[]> eager = train(null);
        Options opts = Options.backend(backend);
        List<float[]> compiled = train(opts);
        assertEquals(eager.size(), compiled.size());
        for (int i = 0; i < eager.size(); i++) assertArrayEquals(eager.get(i), compiled.get(i), 1e-6f, backend + ": value " + i + " of the steps' gradients, losses and weights");
        CompiledFrame frame = frameOf(opts);
        assertEquals(2, frame.entries().size(), backend + ": the first batch size, then one training graph for every other");
        assertTrue(frame.entries().getFirst().graph().guards().stream().anyMatch(g -> g.describe().contains("2 <= ")),
                "the generic entry guards its symbol's range");
    }

    static List<Tensor> twoOutputs(Tensor x, Tensor w) { return List.of(x.matmul(w).relu(), x.mul(w.sum()).sum(1, false)); }

    /** Only the first output gets a gradient: the backward specialized for a missing tangent is generic too. */
    @Test
    void aBackwardWithoutSomeTangentsIsGenericToo() {
        Options opts = Options.backend("inductor");
        var f = Ember.compile((Fn2<Tensor, Tensor, List<Tensor>>) DynamicTrainingTest::twoOutputs, opts);
        Generator g = new Generator(3);
        Tensor w0 = Tensor.randn(g, 6, 4);
        for (int n : BATCHES) {
            Tensor x = Tensor.randn(g, n, 6);
            Tensor we = w0.clone().requiresGrad(true), wc = w0.clone().requiresGrad(true);
            twoOutputs(x, we).get(0).sum().backward();
            f.apply(x, wc).get(0).sum().backward();
            assertArrayEquals(we.grad().toFloatArray(), wc.grad().toFloatArray(), 1e-5f, "n = " + n);
            Tensor we2 = w0.clone().requiresGrad(true), wc2 = w0.clone().requiresGrad(true);
            twoOutputs(x, we2).get(1).sum().backward();
            f.apply(x, wc2).get(1).sum().backward();
            assertArrayEquals(we2.grad().toFloatArray(), wc2.grad().toFloatArray(), 1e-4f, "second output, n = " + n);
        }
        assertEquals(2, frameOf(opts).entries().size());
    }

    static Tensor scaled(Tensor x, Tensor w) { return x.mul(w).sum(); }

    /** A saved input written in place before backward is refused, as eager refuses it, at sizes the graph was not traced at. */
    @Test
    void aSavedInputWrittenBeforeBackwardIsRefusedAtEverySize() {
        Options opts = Options.backend("inductor");
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) DynamicTrainingTest::scaled, opts);
        for (int n : new int[] {3, 7, 12}) {
            Tensor x = Tensor.randn(n, 4), w = Tensor.randn(n, 4).requiresGrad(true);
            Tensor out = f.apply(x, w);
            x.add_(1.0);
            IllegalStateException e = assertThrows(IllegalStateException.class, out::backward, "n = " + n);
            assertTrue(e.getMessage().startsWith("one of the variables needed for gradient computation has been modified by an inplace operation"), e.getMessage());
        }
        assertEquals(2, frameOf(opts).entries().size());
    }

    /**
     * Batch norm in training divides by the batch's element count, a float the lowered graph cannot
     * keep generic: the graph is compiled per size, trains as eager does, and the log says why.
     */
    @Test
    void aGraphThatCannotBeGenericStillTrainsPerSize() {
        Options opts = Options.backend("inductor");
        Tensor.manualSeed(2);
        Sequential eagerNet = new Sequential(new Linear(6, 8), new BatchNorm1d(8));
        Tensor.manualSeed(2);
        Sequential compiledNet = new Sequential(new Linear(6, 8), new BatchNorm1d(8));
        Fn1<Tensor, Tensor> f = Ember.compile(compiledNet, opts);
        for (int n : new int[] {3, 5, 9}) {
            Tensor x = Tensor.randn(n, 6);
            eagerNet.call(x).square().sum().backward();
            f.apply(x).square().sum().backward();
        }
        for (int i = 0; i < eagerNet.parameters().size(); i++) {
            assertArrayEquals(eagerNet.parameters().get(i).grad().toFloatArray(), compiledNet.parameters().get(i).grad().toFloatArray(), 1e-4f);
        }
        assertEquals(3, frameOf(opts).entries().size(), "one graph per size");
    }
}
