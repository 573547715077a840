package dev.ember.ops;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * randperm, bernoulli and multinomial: Ember's generator is not libtorch's, so their draws are
 * checked by what they must satisfy — a permutation, reproducible from a seed, frequencies within
 * a few standard deviations of the probabilities, no repeats without replacement, zero weights
 * never drawn while positive ones remain — and their errors against libtorch's.
 */
class RandomSamplingTest {

    @Test
    void randpermIsASeededUniformPermutation() {
        Tensor.manualSeed(1);
        Tensor p = Tensor.randperm(50);
        assertEquals(DType.INT64, p.dtype());
        long[] sorted = p.toLongArray().clone();
        Arrays.sort(sorted);
        assertArrayEquals(Tensor.arange(0, 50, 1).toLongArray(), sorted, "a permutation of 0..49");
        Tensor.manualSeed(1);
        assertArrayEquals(p.toLongArray(), Tensor.randperm(50).toLongArray(), "the same seed, the same permutation");
        // where 0 lands is uniform over 5 places: 5000 draws, each place 1000 ± 4σ (σ ≈ 28)
        int[] at = new int[5];
        Generator g = new Generator(7);
        for (int i = 0; i < 5000; i++) {
            long[] q = Tensor.randperm(g, 5).toLongArray();
            for (int k = 0; k < 5; k++) if (q[k] == 0) at[k]++;
        }
        for (int k = 0; k < 5; k++) assertTrue(Math.abs(at[k] - 1000) < 115, Arrays.toString(at));
        assertEquals(0, Tensor.randperm(0).numel());
    }

    @Test
    void bernoulliDrawsZerosAndOnesWithTheGivenProbabilities() {
        Tensor.manualSeed(2);
        Tensor probs = Tensor.full(0.3, 20000);
        Tensor draws = probs.bernoulli();
        assertEquals(DType.FLOAT32, draws.dtype());
        assertTrue(draws.eq(0.0).logicalOr(draws.eq(1.0)).all().item() != 0, "only 0 and 1");
        double mean = draws.mean().item();
        assertTrue(Math.abs(mean - 0.3) < 4 * Math.sqrt(0.3 * 0.7 / 20000), "mean " + mean);
        Tensor mixed = Tensor.of(new double[] {0, 1, 0, 1}, 4).bernoulli();
        assertClose(mixed, Tensor.of(new double[] {0, 1, 0, 1}, 4), "probabilities 0 and 1 are certain");
        double half = Tensor.zeros(DType.FLOAT64, 20000).bernoulli(0.5).mean().item();
        assertTrue(Math.abs(half - 0.5) < 4 * Math.sqrt(0.25 / 20000), "bernoulli(p) " + half);
        var e = assertThrows(IllegalArgumentException.class, () -> Tensor.zeros(3).bernoulli(1.5));
        assertTrue(e.getMessage().contains("bernoulli_ expects p to be in [0, 1], but got p=1.5"), e.getMessage());
    }

    @Test
    void bernoulliCompilesAndDrawsAgainEachCall() {
        Fn1<Tensor, Tensor> fn = p -> p.bernoulli().mul(2.0);
        var compiled = Ember.compile(fn);
        Tensor p = Tensor.full(0.5, 1000);
        Tensor a = compiled.apply(p), b = compiled.apply(p);
        assertTrue(a.eq(0.0).logicalOr(a.eq(2.0)).all().item() != 0);
        assertFalse(a.eq(b).all().item() != 0, "a fresh draw each call, not a constant");
    }

    @Test
    void multinomialFrequenciesAndRules() {
        Tensor.manualSeed(3);
        Tensor w = Tensor.of(new double[] {1, 0, 3, 6}, 4);   // unnormalized: 0.1, 0, 0.3, 0.6
        long[] draws = w.multinomial(20000, true).toLongArray();
        int[] hist = new int[4];
        for (long d : draws) hist[(int) d]++;
        assertEquals(0, hist[1], "a zero weight is never drawn");
        double[] expect = {0.1, 0, 0.3, 0.6};
        for (int k : new int[] {0, 2, 3}) {
            double sigma = Math.sqrt(20000 * expect[k] * (1 - expect[k]));
            assertTrue(Math.abs(hist[k] - 20000 * expect[k]) < 4 * sigma, Arrays.toString(hist));
        }
        Tensor rows = Tensor.of(new float[] {1, 1, 1, 1, 5, 0, 0, 1}, 2, 4);
        Tensor noRepeat = rows.multinomial(3);
        assertArrayEquals(new int[] {2, 3}, noRepeat.shape());
        for (int r = 0; r < 2; r++) {
            long[] row = noRepeat.select(0, r).toLongArray();
            assertEquals(3, Arrays.stream(row).distinct().count(), "no repeats without replacement");
        }
        long[] second = noRepeat.select(0, 1).toLongArray();
        assertTrue((second[0] == 0 || second[0] == 3) && (second[1] == 0 || second[1] == 3), "the positive weights come first: " + Arrays.toString(second));

        Tensor ints = Tensor.ofLongs(1, 2);
        checkError(() -> ints.multinomial(1), "torch.multinomial(a, 1)", ints, "multinomial only supports floating-point dtypes for input, got: Long");
        Tensor three = Tensor.of(1f, 2f, 3f);
        checkError(() -> three.multinomial(4), "torch.multinomial(a, 4)", three, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
        Tensor negative = Tensor.of(1f, -2f);
        checkError(() -> negative.multinomial(1), "torch.multinomial(a, 1)", negative, "probability tensor contains either `inf`, `nan` or element < 0");
        Tensor zeros = Tensor.zeros(3);
        checkError(() -> zeros.multinomial(1), "torch.multinomial(a, 1)", zeros, "invalid multinomial distribution (sum of probabilities <= 0)");
    }

    private static void checkError(Runnable ember, String torch, Tensor arg, String words) {
        var e = assertThrows(RuntimeException.class, ember::run);
        assertTrue(e.getMessage().contains(words), "Ember's message: " + e.getMessage());
        var t = assertThrows(RuntimeException.class, () -> Torch.call(torch, arg));
        assertTrue(t.getMessage().contains(words), "libtorch's message: " + t.getMessage());
    }
}
