package dev.ember.aot;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * An input the compiled graph writes in place is saved for backward as the forward's copy of its
 * old value; the version check belongs to what backward reads, so the write (the graph's own, after
 * the forward) must not trip it. The compiled function threw "modified by an inplace operation"
 * where eager trains (differential fuzzer, seed 47089).
 */
class MutatedInputSavedForBackwardTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor f(Tensor a, Tensor counts) {
        Tensor v = a.add(counts).abs();        // recomputing a + counts in backward reads counts
        counts.add_(1L);                        // the graph writes counts after using it
        return v.to(DType.FLOAT64);
    }

    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor"})
    void anInputWrittenByTheGraphAfterItsUseStillTrains(String backend) {
        var compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) MutatedInputSavedForBackwardTest::f, Options.backend(backend));
        for (int call = 0; call < 2; call++) {
            Tensor a = Tensor.randn(new Generator(call), 8).requiresGrad(true), ea = a.detach().clone().requiresGrad(true);
            Tensor counts = Tensor.randint(new Generator(4 + call), -4, 5, 1, 2, 1).to(DType.INT32), eCounts = counts.clone();
            f(ea, eCounts).sum().backward();
            compiled.apply(a, counts).sum().backward();
            assertArrayEquals(ea.grad().toFloatArray(), a.grad().toFloatArray(), 0f, backend);
            assertArrayEquals(eCounts.toIntArray(), counts.toIntArray(), backend + ": the write reached the caller's tensor");
        }
    }
}
