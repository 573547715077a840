package dev.ember.aot;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A compiled graph's autograd node gives an input a gradient only when an output that depends on
 * it received one, as eager's per-op nodes do: an input that reaches only outputs the loss never
 * used (a value live across a break and read as a number) keeps {@code grad() == null}, not zeros.
 * Found by the differential fuzzer (seed 20261139).
 */
class NoGradientWhereEagerHasNoneTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor f(Tensor a, Tensor b) {
        Tensor x = a.relu();
        Tensor y = b.mul(2.0);                 // live across the break: an output of the first graph
        Ember.graphBreak();
        double s = y.sum().item();             // read as a number only: no gradient path to b
        return x.mul(s > 0 ? 2.0 : 3.0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor"})
    void anInputReachingOnlyUnusedOutputsGetsNoGradient(String backend) {
        var compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) NoGradientWhereEagerHasNoneTest::f, Options.backend(backend));
        for (int call = 0; call < 2; call++) {
            Tensor a = Tensor.randn(new Generator(call), 3).requiresGrad(true), b = Tensor.randn(new Generator(5 + call), 4).requiresGrad(true);
            Tensor ea = a.detach().clone().requiresGrad(true), eb = b.detach().clone().requiresGrad(true);
            f(ea, eb).sum().backward();
            compiled.apply(a, b).sum().backward();
            assertNull(eb.grad(), "eager: b has no path to the loss");
            assertNull(b.grad(), backend + " call " + call);
            assertArrayEquals(ea.grad().toFloatArray(), a.grad().toFloatArray(), 1e-6f, backend);
        }
    }
}
