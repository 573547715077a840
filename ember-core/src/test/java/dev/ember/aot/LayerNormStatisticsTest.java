package dev.ember.aot;

import dev.ember.Ember;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.nn.F;
import dev.ember.inductor.runtime.KernelTier;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import dev.ember.testing.SameBits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;


/**
 * Compiled layer_norm gives eager's bits: its decomposition takes a row's mean and variance in
 * float64 and rounds them once, as the kernel does. (It took them in float32: a few ulp off per
 * element, and fuzzer seed 600315's chain of normalizations grew that past the tolerance.)
 */
class LayerNormStatisticsTest {
    /** Rows far from zero with a small spread, then a second normalization over two dims. */
    static Tensor twoNormalizations(Tensor x, Tensor w, Tensor b) {
        Tensor first = F.layerNorm(x.mul(3).add(40), new int[] {93}, w, b, 1e-5);
        return F.layerNorm(first.exp().mul(x), new int[] {5, 93}, null, null, 1e-5);
    }

    @AfterEach
    void tiersChooseAgain() { KernelTier.forceForm(null); }

    /** Inductor's kernels in both forms: the SIMD one sums the statistics on widened double lanes. */
    @ParameterizedTest
    @ValueSource(strings = {"aot_eager", "inductor/scalar", "inductor/simd"})
    void compiledLayerNormGivesEagersBits(String config) {
        if (config.startsWith("inductor")) KernelTier.forceForm(config.endsWith("simd"));
        Generator g = new Generator(600315);
        // 93 columns: whole vectors and a masked tail on every lane width
        Tensor x = Tensor.randn(g, 8, 5, 93), w = Tensor.randn(g, 93), b = Tensor.randn(g, 93);
        Tensor want = twoNormalizations(x, w, b);
        Tensor got = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) LayerNormStatisticsTest::twoNormalizations,
                Options.backend(config.substring(0, config.indexOf('/') < 0 ? config.length() : config.indexOf('/')))).apply(x, w, b);
        SameBits.assertSameBits(want, got, config);
    }
}
