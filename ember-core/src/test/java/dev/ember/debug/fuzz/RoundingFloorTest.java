package dev.ember.debug.fuzz;

import dev.ember.Ember;
import dev.ember.Fn4;
import dev.ember.nn.F;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Fuzzer seed 27631, a false alarm that hid in plain sight: the gradient of {@code layerNorm(x).sum()}
 * is exactly 0, and in float32 it is whatever x − mean rounds to. Inductor sums the squares of
 * {@code a2} in another order than eager, so {@code x} moves by a rounding, and its gradient lands
 * on noise 2,500 times larger than eager's; eager itself lands there on about half of the inputs one
 * rounding away. The rounding floor must sample enough of those neighbours to see it.
 */
class RoundingFloorTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor seed27631(Tensor a0, Tensor a1, Tensor a2, Tensor a3) {
        Tensor v0 = a0.matmul(a3);
        Tensor v2 = a2.pow(2.0).sum();
        return F.layerNorm(v0.add(v2), new int[] {2});
    }

    static Object[] inputs() {
        Generator g = new Generator(27631L);
        return new Object[] {Tensor.randn(g, 3, 2, 5), Tensor.randn(g, 5, 1), Tensor.randn(g, 1, 5), Tensor.randn(g, 5, 2)};
    }

    @Test
    void aCancellingLayerNormGradientIsWithinTheRoundingFloor() {
        Fn4<Tensor, Tensor, Tensor, Tensor, Tensor> fn = RoundingFloorTest::seed27631;
        var result = DifferentialRunner.run(fn, RoundingFloorTest::inputs, Config.parse("inductor/default+grad"));
        assertNull(result.eagerError());
        result.outcomes().forEach((config, disagreement) -> assertNull(disagreement, config + ": " + disagreement));
    }

    static java.util.List<Tensor> seed49235(Tensor a0) {
        Tensor v0 = F.layerNorm(a0, new int[] {7}, a0, a0, 1e-5);
        Tensor v9 = F.layerNorm(v0, new int[] {7}, v0, v0, 1e-5);
        return java.util.List.of(v9, v9);
    }

    /**
     * Fuzzer seed 49235: layer_norm of one value seen seven times (an expanded input) has variance
     * 0 in every row, so its gradient carries rstd³ ≈ 3·10⁷ times last-bit differences. Moving the
     * one stored value moved all seven together and hid that; the floor now moves an expanded
     * input's elements independently, and sees eager land as far from float64 as the compiled code.
     */
    @Test
    void anExpandedInputIsMovedElementByElement() {
        dev.ember.Fn1<Tensor, java.util.List<Tensor>> fn = RoundingFloorTest::seed49235;
        var result = DifferentialRunner.run(fn, () -> new Object[] {Tensor.randn(new Generator(49235L), 1).expand(7)},
                Config.parse("inductor/default+grad"));
        assertNull(result.eagerError());
        result.outcomes().forEach((config, disagreement) -> assertNull(disagreement, config + ": " + disagreement));
    }
}
