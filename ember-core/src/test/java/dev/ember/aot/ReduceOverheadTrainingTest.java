package dev.ember.aot;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.nn.Linear;
import dev.ember.nn.Parameter;
import dev.ember.nn.Sequential;
import dev.ember.nn.Tanh;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * mode("reduce-overhead") in training: a forward's outputs and saved values stay where they are while
 * its backward is pending (PyTorch's CUDA graph trees start no new generation then), so two forwards
 * before one backward train as eager does; once the backward has run, the next call reuses the arrays.
 */
class ReduceOverheadTrainingTest {

    @AfterEach
    void reset() { Ember.reset(); }

    private static final Options REDUCE_OVERHEAD = Options.defaults().mode("reduce-overhead");

    /** The parameters' gradients after each of three steps that run {@code forwards} forwards, then one backward of their sum. */
    private static List<float[]> gradients(boolean compiled, int forwards) {
        Tensor.manualSeed(1);
        Sequential net = new Sequential(new Linear(4, 8), new Tanh(), new Linear(8, 1));
        Fn1<Tensor, Tensor> forward = compiled ? Ember.compile(net, REDUCE_OVERHEAD) : net::call;
        Generator data = new Generator(2);
        List<float[]> trace = new ArrayList<>();
        for (int step = 0; step < 3; step++) {
            net.zeroGrad();
            Tensor loss = null;
            for (int i = 0; i < forwards; i++) {
                Tensor l = forward.apply(Tensor.randn(data, 5, 4)).pow(2).mean();   // pow saves the forward's output
                loss = loss == null ? l : loss.add(l);
            }
            loss.backward();
            for (Parameter p : net.parameters()) trace.add(p.grad().toFloatArray());
        }
        return trace;
    }

    @Test
    void twoAndThreeForwardsBeforeOneBackwardGiveEagersGradients() {
        for (int forwards : new int[] {2, 3}) {
            List<float[]> eager = gradients(false, forwards);
            List<float[]> compiled = gradients(true, forwards);
            assertEquals(eager.size(), compiled.size());
            for (int i = 0; i < eager.size(); i++) assertArrayEquals(eager.get(i), compiled.get(i), 1e-6f, forwards + " forwards: gradient " + i);
            Ember.reset();
        }
    }

    @Test
    void microBatchesAccumulatedWithoutZeroingGiveEagersGradients() {
        List<List<float[]>> runs = new ArrayList<>();
        for (boolean compiled : new boolean[] {false, true}) {
            Tensor.manualSeed(3);
            Sequential net = new Sequential(new Linear(4, 8), new Tanh(), new Linear(8, 1));
            Fn1<Tensor, Tensor> forward = compiled ? Ember.compile(net, REDUCE_OVERHEAD) : net::call;
            Generator data = new Generator(4);
            List<float[]> trace = new ArrayList<>();
            for (int micro = 0; micro < 4; micro++) {
                forward.apply(Tensor.randn(data, 5, 4)).pow(2).mean().backward();
                for (Parameter p : net.parameters()) trace.add(p.grad().toFloatArray());
            }
            runs.add(trace);
        }
        for (int i = 0; i < runs.get(0).size(); i++) assertArrayEquals(runs.get(0).get(i), runs.get(1).get(i), 1e-6f, "accumulated gradient " + i);
    }

    @Test
    void aForwardWhoseBackwardRanHasItsOutputsReusedByTheNextCall() {
        Tensor.manualSeed(5);
        Sequential net = new Sequential(new Linear(4, 8), new Tanh(), new Linear(8, 1));
        Fn1<Tensor, Tensor> forward = Ember.compile(net, REDUCE_OVERHEAD);
        for (int warm = 0; warm < 2; warm++) forward.apply(Tensor.randn(5, 4)).sum().backward();
        Tensor first = forward.apply(Tensor.randn(5, 4));
        Tensor pending = forward.apply(Tensor.randn(5, 4));          // first's backward is pending: first stays valid
        assertFalse(first.storage().isOverwritten(), "a forward whose backward is pending keeps its outputs");
        first.add(pending).sum().backward();
        forward.apply(Tensor.randn(5, 4));                            // both backwards ran: the arrays are reused again
        assertTrue(pending.storage().isOverwritten() || first.storage().isOverwritten(), "the steady loop still reuses output arrays");
    }
}
