package dev.ember.inductor;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.function.BinaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One node, one value, however many loops compute it and at whichever JIT tier. Found by the
 * differential fuzzer (seed 290306), after about 300 programs: tanh of a row, saved for the
 * backward by a vector loop, and the same tanh inside a clamp whose bound is read through a
 * transposed input, so that loop ran scalar. Once C2 had compiled the Vector API's tanh (an SVML
 * call) the two differed in the last bit, and clamp's gradient, which asked whether the result
 * equalled its input, sent about one element in seven to the bound instead. Two fixes, each
 * enough alone: ops whose SIMD form cannot equal the scalar one have none (VectorMathConsistencyTest),
 * and clamp's derivative compares the inputs, as ATen's does (LibtorchGradientTest's clamp cases).
 */
class OneValuePerNodeTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor tanhClampedByTheTransposedInput(Tensor x, Tensor bound) {
        Tensor y = x.mul(2.0).tanh();
        Tensor b = bound.contiguous().abs();
        return y.clamp(b.neg(), b);
    }

    @Test
    void aGradientThroughTanhAndClampStaysEagerSAfterTheKernelsAreHot() {
        BinaryOperator<Tensor> eager = OneValuePerNodeTest::tanhClampedByTheTransposedInput;
        var compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) OneValuePerNodeTest::tanhClampedByTheTransposedInput, Options.backend("inductor"));
        float[] want = gradient(eager);
        // enough calls for C2 to compile the loops and what they call (the failure began near call 40)
        for (int call = 0; call < 200; call++) {
            float[] got = gradient(compiled::apply);
            for (int i = 0; i < want.length; i++) {
                if (Float.floatToIntBits(got[i]) != Float.floatToIntBits(want[i])) {
                    assertEquals(want[i], got[i], 1e-6, "call " + call + ", gradient element " + i);
                }
            }
        }
    }

    /** The gradients of {@code f(x, bound)}: x contiguous, bound a transposed view. */
    private static float[] gradient(BinaryOperator<Tensor> f) {
        Generator g = new Generator(290306L);
        Tensor x = Tensor.randn(g, 2, 16, 8, 16).requiresGrad(true);
        Tensor bound = Tensor.randn(g, 2, 16, 16, 8).transpose(2, 3).requiresGrad(true);
        f.apply(x, bound).to(DType.FLOAT64).sum().backward();
        return Tensor.cat(java.util.List.of(x.grad().flatten(), bound.grad().contiguous().flatten()), 0).toFloatArray();
    }
}
