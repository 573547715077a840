package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * dropout: libtorch's mask comes from its own generator, so training mode is checked by its
 * properties (kept elements scaled by exactly 1/(1-p), zero fraction near p, reproducible from
 * the seed); the deterministic modes against libtorch.
 */
class PointwiseDropoutTest {

    static Tensor dropout(Tensor x, double p, boolean train) {
        return OpRegistry.get("aten.dropout.default").callTensor(x, p, train);
    }

    @Test
    void identityWhenNotTrainingOrPIsZeroAndZerosWhenPIsOne() {
        Random rng = new Random(2);
        try (NDManager m = Torch.scope()) {
            for (DType d : List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64)) {
                Tensor x = d.isFloatingPoint() ? Inputs.randn(rng, d, 3, 40) : Inputs.randint(rng, d, -5, 5, 3, 40);
                Tensor xt = Inputs.nonContiguous(x);
                assertClose(dropout(xt, 0.5, false), Torch.call(m, "torch.dropout(a, 0.5, False)", xt), "eval " + d);
                assertClose(dropout(xt, 1.0, true), Torch.call(m, "torch.dropout(a, 1.0, True)", xt), "p=1 " + d);
                if (d.isFloatingPoint()) assertClose(dropout(xt, 0.0, true), Torch.call(m, "torch.dropout(a, 0.0, True)", xt), "p=0 " + d);
                Tensor out = dropout(xt, 0.3, false);
                assertNotSame(xt, out);
                assertTrue(out.isContiguous(), "dropout's output is a fresh contiguous tensor");
            }
            Tensor specials = Inputs.specials(DType.FLOAT32);
            assertClose(dropout(specials, 1.0, true), Torch.call(m, "torch.dropout(a, 1.0, True)", specials), "p=1 multiplies by zero: NaN and inf give NaN");
        }
    }

    @Test
    void keptElementsAreScaledExactlyAndTheDropFractionIsNearP() {
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            for (double p : new double[] {0.1, 0.5, 0.9}) {
                Tensor x = Tensor.full(d, 1.75, 200_000);
                double[] y = dropout(x, p, true).toDoubleArray();
                double scale = d == DType.FLOAT32 ? 1.75f * (1f / (float) (1 - p)) : 1.75 * (1 / (1 - p));
                int dropped = 0;
                for (double v : y) {
                    if (v == 0) dropped++;
                    else assertEquals(scale, v, 0.0, "a kept element is x / (1 - p), rounded as ATen rounds it");
                }
                double fraction = dropped / (double) y.length, sigma = Math.sqrt(p * (1 - p) / y.length);
                assertTrue(Math.abs(fraction - p) < 6 * sigma, d + " p=" + p + ": dropped " + fraction);
            }
        }
    }

    @Test
    void theMaskIsReproducibleFromTheSeedAndDiffersBetweenCalls() {
        Tensor x = Tensor.ones(100_003);
        Tensor.manualSeed(42);
        float[] first = dropout(x, 0.5, true).toFloatArray(), second = dropout(x, 0.5, true).toFloatArray();
        Tensor.manualSeed(42);
        float[] again = dropout(x, 0.5, true).toFloatArray();
        assertArrayEquals(first, again, "same seed, same mask (however the work is split across cores)");
        assertFalse(java.util.Arrays.equals(first, second), "the next call draws a new mask");
    }

    @Test
    void dropoutIsTaggedNondeterministicAndPointwise() {
        OpOverload op = OpRegistry.get("aten.dropout.default");
        assertTrue(op.hasTag(Tag.NONDETERMINISTIC));
        assertTrue(op.hasTag(Tag.POINTWISE));
        assertEquals(List.of(3, 4), java.util.Arrays.stream(dropout(Tensor.zeros(3, 4), 0.5, true).shape()).boxed().toList());
    }
}
