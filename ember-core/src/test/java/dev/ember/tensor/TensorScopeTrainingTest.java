package dev.ember.tensor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.nn.BatchNorm1d;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.optim.Adam;
import dev.ember.optim.Optimizer;
import dev.ember.optim.SGD;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A training loop with a TensorScope per step (DJL's idiom) trains exactly as the loop without
 * one: what outlives a step (an optimizer's state, the parameters' gradients) is never released
 * with the step's temporaries, whose arrays the next step recycles.
 */
class TensorScopeTrainingTest {

    @AfterEach
    void noScopeLeftOpen() {
        TensorScope s = TensorScope.current();
        if (s != null) s.close();
        assertNull(TensorScope.current());
    }

    /** Losses, then every parameter and buffer, after {@code steps} steps; batches of 64 so that the step's arrays are pooled. */
    private static List<float[]> train(boolean scoped, boolean compiled, Function<Module, Optimizer> optimizer, boolean zeroGradEachStep) {
        Tensor.manualSeed(7);
        Sequential model = new Sequential(new Linear(32, 256), new BatchNorm1d(256), new ReLU(), new Linear(256, 4));
        Optimizer opt = optimizer.apply(model);
        Fn1<Tensor, Tensor> loss = x -> model.forward(x).square().mean();
        Fn1<Tensor, Tensor> step = compiled ? Ember.compile(loss) : loss;
        List<float[]> out = new ArrayList<>();
        float[] losses = new float[5];
        for (int i = 0; i < losses.length; i++) {
            Tensor x = Tensor.randn(64, 32);
            TensorScope scope = scoped ? TensorScope.open() : null;
            try {
                if (zeroGradEachStep || i % 2 == 0) opt.zeroGrad();   // else the gradients of two steps add up
                Tensor l = step.apply(x);
                l.backward();
                opt.step();
                losses[i] = (float) l.item();
            } finally {
                if (scope != null) scope.close();
            }
        }
        out.add(losses);
        model.stateDict().values().forEach(t -> out.add(t.toFloatArray()));
        for (var p : model.parameters()) if (p.grad() != null) out.add(p.grad().toFloatArray());
        return out;
    }

    private static void assertSameTraining(List<float[]> expected, List<float[]> got) {
        assertEquals(expected.size(), got.size());
        for (int i = 0; i < expected.size(); i++) assertArrayEquals(expected.get(i), got.get(i), i == 0 ? "losses" : "state " + i);
    }

    @ParameterizedTest(name = "compiled={0}")
    @ValueSource(booleans = {false, true})
    void adamWithAScopePerStepTrainsAsWithout(boolean compiled) {
        Function<Module, Optimizer> adam = m -> new Adam(m.parameters(), Adam.options().lr(1e-2));
        assertSameTraining(train(false, compiled, adam, true), train(true, compiled, adam, true));
    }

    @ParameterizedTest(name = "compiled={0}")
    @ValueSource(booleans = {false, true})
    void sgdMomentumWithGradientsAccumulatedAcrossScopesTrainsAsWithout(boolean compiled) {
        Function<Module, Optimizer> sgd = m -> new SGD(m.parameters(), SGD.options().lr(0.05).momentum(0.9));
        assertSameTraining(train(false, compiled, sgd, false), train(true, compiled, sgd, false));
    }

    @Test
    void aModelBuiltInsideAScopeKeepsItsParameters() {
        Linear layer;
        try (TensorScope scope = TensorScope.open()) {
            layer = new Linear(128, 256);   // a 128 KB weight, pooled size
        }
        Tensor x = Tensor.randn(2, 128);
        assertArrayEquals(x.matmul(layer.weight.transpose(0, 1)).add(layer.bias).toFloatArray(), layer.forward(x).toFloatArray());
    }

    @Test
    void anEscapedTensorOutlivesItsScopeAndItsArrayIsNotRecycled() {
        int n = 70_003;   // a size no other test uses
        Tensor kept;
        float[] values;
        try (TensorScope scope = TensorScope.open()) {
            kept = TensorScope.escape(Tensor.randn(n));
            values = kept.toFloatArray();
        }
        Object next;
        try (TensorScope scope = TensorScope.open()) {
            next = Tensor.randn(n).storage().data();
        }
        assertNotSame(kept.storage().data(), next, "the escaped array is not in the pool");
        assertArrayEquals(values, kept.toFloatArray(), "and still holds its values");
    }
}
