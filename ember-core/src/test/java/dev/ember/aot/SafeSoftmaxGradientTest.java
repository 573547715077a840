package dev.ember.aot;

import dev.ember.Ember;
import dev.ember.Fn4;
import dev.ember.Options;
import dev.ember.nn.F;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Attention where a query sees no key (its mask row all false): the output row is 0, as ATen's
 * {@code _safe_softmax} makes it, and so are that query's gradients, eager and compiled for
 * training. They were NaN: softmax's backward multiplied the zero gradient by the row's NaN weights.
 */
class SafeSoftmaxGradientTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor attend(Tensor q, Tensor k, Tensor v, Tensor mask) {
        return F.scaledDotProductAttention(q, k, v, mask, 0.0, false).mul(v.sum()).sum();
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void aQueryThatSeesNoKeyGetsZeroGradients(String backend) {
        Generator g = new Generator(21);
        Tensor q = Tensor.randn(g, 2, 3, 4).requiresGrad(true), k = Tensor.randn(g, 2, 5, 4).requiresGrad(true), v = Tensor.randn(g, 2, 5, 4);
        Tensor mask = Tensor.of(new double[] {1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1}, 3, 5).gt(0.5);
        Fn4<Tensor, Tensor, Tensor, Tensor, Tensor> f = backend.equals("eager") ? SafeSoftmaxGradientTest::attend
                : Ember.compile((Fn4<Tensor, Tensor, Tensor, Tensor, Tensor>) SafeSoftmaxGradientTest::attend, Options.backend(backend));
        f.apply(q, k, v, mask).backward();
        float[] dq = q.grad().toFloatArray(), dk = k.grad().toFloatArray();
        for (float x : dk) assertFalse(Float.isNaN(x), "a key's gradient is NaN");
        for (int b = 0; b < 2; b++) {
            for (int j = 0; j < 4; j++) assertEquals(0f, dq[(b * 3 + 1) * 4 + j], "query 1 of batch " + b + " sees no key");
            for (int row : new int[] {0, 2}) for (int j = 0; j < 4; j++) assertFalse(Float.isNaN(dq[(b * 3 + row) * 4 + j]));
        }
    }
}
