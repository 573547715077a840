package dev.ember.inductor;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compiling draws nothing from the global generator (max-autotune times its variants on random
 * inputs of a scratch generator), so the numbers a program draws after a compiled call are eager's,
 * as Dynamo's preserve_global_state keeps torch's RNG state across a compile.
 */
class CompileLeavesRandomStreamTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor fn(Tensor x) { return x.sin().mul(2.0).add(1.0).relu(); }

    /** A graph with a random op of its own: its timing runs would draw too. */
    static Tensor withDropout(Tensor x) { return dev.ember.nn.F.dropout(x.sin(), 0.5, true).mul(2.0); }

    @ParameterizedTest
    @ValueSource(strings = {"default", "max-autotune", "reduce-overhead"})
    void compilingDrawsNothingFromTheGlobalGenerator(String mode) {
        Tensor x = Tensor.randn(64, 256);
        Tensor.manualSeed(5);
        fn(x);
        Tensor eagerNext = Tensor.randn(8);

        Fn1<Tensor, Tensor> f = Ember.compile(CompileLeavesRandomStreamTest::fn, Options.defaults().mode(mode));
        Tensor.manualSeed(5);
        f.apply(x);
        Tensor compiledNext = Tensor.randn(8);
        assertTrue(compiledNext.allclose(eagerNext, 0, 0, false), mode + ": " + compiledNext + " vs " + eagerNext);
    }

    @ParameterizedTest
    @ValueSource(strings = {"default", "max-autotune"})
    void aGraphWithDropoutDrawsAsEagerDoesAndCompilingDrawsNothingMore(String mode) {
        Tensor x = Tensor.randn(64, 256);
        Tensor.manualSeed(9);
        Tensor eagerOut = withDropout(x);
        Tensor eagerNext = Tensor.randn(8);

        Fn1<Tensor, Tensor> f = Ember.compile(CompileLeavesRandomStreamTest::withDropout, Options.defaults().mode(mode));
        Tensor.manualSeed(9);
        Tensor compiledOut = f.apply(x);
        Tensor compiledNext = Tensor.randn(8);
        assertTrue(compiledOut.allclose(eagerOut, 1e-6, 1e-6, false), mode + ": the dropout's mask differs from eager's");
        assertTrue(compiledNext.allclose(eagerNext, 0, 0, false), mode + ": " + compiledNext + " vs " + eagerNext);
    }
}
