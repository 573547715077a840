package dev.ember.nn;

import dev.ember.Ember;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** The example of docs/tensors.md's "Attention", as written there, checked row by row. */
class AttentionDocsExampleTest {
    @Test
    void longCausalAttentionWithoutTheScoreMatrix() {
        Tensor q = Tensor.randn(1, 8, 4096, 64), k = Tensor.randn(1, 8, 4096, 64), v = Tensor.randn(1, 8, 4096, 64);
        try (var s = Ember.noGrad()) {
            Tensor out = F.scaledDotProductAttention(q, k, v, null, 0.0, true);   // [1, 8, 4096, 64]; no 8×4096×4096 scores
            assertArrayEquals(new int[] {1, 8, 4096, 64}, out.shape());
            assertClose(out.select(2, 0), v.select(2, 0), "the first query sees the first key only");
            for (int row : new int[] {1, 127, 128, 3000, 4095}) {
                Tensor qi = q.select(0, 0).select(1, row).unsqueeze(1);                // [8, 1, 64]
                Tensor seen = k.select(0, 0).narrow(1, 0, row + 1), values = v.select(0, 0).narrow(1, 0, row + 1);
                Tensor weights = F.softmax(qi.matmul(seen.transpose(1, 2)).mul(1 / Math.sqrt(64)), -1);
                assertClose(out.select(0, 0).select(1, row), weights.matmul(values).squeeze(1), "row " + row);
            }
        }
    }
}
