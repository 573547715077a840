package dev.ember.optim;

import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code Ember.compile(optimizer)}: Adam's and AdamW's steps run as one compiled function of the parameter
 * lists, step for step equal to eager stepping, compiled once although the step size changes every
 * step and a scheduler changes the learning rate.
 */
class CompiledOptimizerTest {

    @AfterEach
    void reset() { Ember.reset(); }

    private static List<Tensor> parameters(long seed) {
        Generator g = new Generator(seed);
        List<Tensor> ps = new ArrayList<>();
        for (int[] shape : new int[][] {{16, 8}, {16}, {4, 16}, {4}}) ps.add(Tensor.randn(g, shape).requiresGrad(true));
        return ps;
    }

    /** Gradients that differ from step to step, the same for both copies. */
    private static void setGrads(List<Tensor> ps, int step) {
        Generator g = new Generator(1000 + step);
        for (Tensor p : ps) p.setGrad(Tensor.randn(g, p.shape()));
    }

    private static void assertSame(List<Tensor> eager, List<Tensor> compiled, String when) {
        for (int i = 0; i < eager.size(); i++) assertArrayEquals(eager.get(i).toFloatArray(), compiled.get(i).toFloatArray(), 2e-6f, when + ", parameter " + i);
    }

    @Test
    void compiledAdamWStepsAsEagerAndCompilesOnce() {
        for (boolean decoupled : new boolean[] {true, false}) {
            List<Tensor> eager = parameters(7), compiled = parameters(7);
            var options = Adam.options().lr(1e-2).weightDecay(0.01).decoupledWeightDecay(decoupled);
            Adam eagerOpt = new Adam(eager, options);
            CompileCounter cc = new CompileCounter();
            Adam compiledOpt = new Adam(compiled, options);
            Ember.compile(compiledOpt, Options.backend(cc));
            StepLR eagerLr = new StepLR(eagerOpt, 2, 0.5), compiledLr = new StepLR(compiledOpt, 2, 0.5);
            for (int step = 1; step <= 6; step++) {
                setGrads(eager, step);
                setGrads(compiled, step);
                eagerOpt.step();
                compiledOpt.step();
                eagerLr.step();
                compiledLr.step();
                assertSame(eager, compiled, "decoupled " + decoupled + ", step " + step);
            }
            assertEquals(1, cc.frameCount(), "one compile for six steps, three learning rates and six step sizes");
            Ember.reset();
        }
    }

    @Test
    void theInductorsFusedStepEqualsEagerStepping() {
        List<Tensor> eager = parameters(8), compiled = parameters(8);
        AdamW eagerOpt = new AdamW(eager, AdamW.options().lr(3e-3));
        AdamW compiledOpt = new AdamW(compiled, AdamW.options().lr(3e-3));
        Ember.compile(compiledOpt, Options.backend("inductor"));
        for (int step = 1; step <= 5; step++) {
            setGrads(eager, step);
            setGrads(compiled, step);
            eagerOpt.step();
            compiledOpt.step();
            assertSame(eager, compiled, "step " + step);
        }
        for (int i = 0; i < eager.size(); i++) {
            assertArrayEquals(eagerOpt.state(eager.get(i)).get("exp_avg_sq").toFloatArray(),
                    compiledOpt.state(compiled.get(i)).get("exp_avg_sq").toFloatArray(), 1e-7f, "second moment " + i);
        }
    }
}
