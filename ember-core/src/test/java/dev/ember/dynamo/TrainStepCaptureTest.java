package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.nn.F;
import dev.ember.nn.Linear;
import dev.ember.nn.Parameter;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.optim.Adam;
import dev.ember.optim.Optimizer;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A whole training step in one compiled function (zeroGrad, forward, loss, backward, step), as
 * users write it: the same losses and parameters as eager step for step, and three graph breaks
 * that name what runs as one call (zeroGrad, backward, step) — it was 121 breaks and recompile-limit
 * warnings while the tracer walked the optimizer's and the engine's internals.
 */
class TrainStepCaptureTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Sequential model() {
        Tensor.manualSeed(4);
        return new Sequential(new Linear(6, 16), new ReLU(), new Linear(16, 3));
    }

    static Tensor step(Sequential m, Optimizer opt, Tensor x, Tensor y) {
        opt.zeroGrad();
        Tensor loss = F.crossEntropy(m.forward(x), y);
        loss.backward();
        opt.step();
        return loss;
    }

    @Test
    void aWholeStepCompiledTrainsAsEagerWithThreeBreaks() {
        Sequential eager = model(), compiled = model();
        Adam eagerOpt = new Adam(eager.parameters(), Adam.options().lr(0.01));
        Adam compiledOpt = new Adam(compiled.parameters(), Adam.options().lr(0.01));
        Fn2<Tensor, Tensor, Tensor> fn = (x, y) -> {
            compiledOpt.zeroGrad();
            Tensor loss = F.crossEntropy(compiled.forward(x), y);
            loss.backward();
            compiledOpt.step();
            return loss;
        };
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(fn);
        Tensor x = Tensor.randn(8, 6), y = Tensor.randint(0, 3, 8);
        for (int i = 0; i < 4; i++) {
            Tensor want = step(eager, eagerOpt, x, y), got = f.apply(x, y);
            assertEquals(want.item(), got.item(), 1e-6, "loss at step " + i);
        }
        List<Parameter> a = eager.parameters(), b = compiled.parameters();
        for (int i = 0; i < a.size(); i++) assertArrayEquals(a.get(i).toDoubleArray(), b.get(i).toDoubleArray(), 1e-6, "parameter " + i);

        var e = Ember.explain(fn).with(x, y);
        assertEquals(3, e.graphBreakCount(), e.toString());
        String text = e.toString();
        for (String reason : List.of("zeroGrad() runs as one call", "backward() runs as one call", "step() runs as one call")) {
            assertTrue(text.contains(reason), reason + " in\n" + text);
        }
    }
}
