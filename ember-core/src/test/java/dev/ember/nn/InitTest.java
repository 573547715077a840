package dev.ember.nn;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * torch.nn.init's functions: PyTorch's gains and fan rules (computed by hand from its formulas),
 * the drawn values' bounds and moments on large tensors, in place on a parameter without
 * recording a gradient, and PyTorch's errors.
 */
class InitTest {

    private static double std(Tensor t) { return t.to(DType.FLOAT64).std().item(); }

    @Test
    void gainsAreTorchs() {
        assertEquals(1.0, Init.calculateGain("linear"));
        assertEquals(1.0, Init.calculateGain("conv2d"));
        assertEquals(5.0 / 3, Init.calculateGain("tanh"));
        assertEquals(Math.sqrt(2), Init.calculateGain("relu"));
        assertEquals(Math.sqrt(2 / (1 + 0.01 * 0.01)), Init.calculateGain("leaky_relu"));
        assertEquals(Math.sqrt(2 / 1.04), Init.calculateGain("leaky_relu", 0.2), 1e-15);
        assertEquals(0.75, Init.calculateGain("selu"));
        assertThrows(IllegalArgumentException.class, () -> Init.calculateGain("swish"));
    }

    @Test
    void drawsHaveTheBoundsAndSpreadOfTheirFormulas() {
        Tensor.manualSeed(3);
        Parameter w = new Parameter(Tensor.zeros(256, 128, 3, 3));   // fan_in 1152, fan_out 2304
        assertSame(w, Init.kaimingNormal_(w, 0, "fan_out", "relu"));
        assertEquals(Math.sqrt(2) / Math.sqrt(2304), std(w), 0.01 * Math.sqrt(2) / Math.sqrt(2304));
        assertNull(w.gradFn(), "an initialisation is not recorded");
        assertTrue(w.requiresGrad());

        Init.kaimingUniform_(w);   // leaky_relu with a = 0: gain sqrt(2), bound sqrt(6 / fan_in)
        double bound = Math.sqrt(6.0 / 1152);
        assertTrue(w.abs().max().item() <= bound, "inside ±" + bound);
        assertEquals(bound / Math.sqrt(3), std(w), 0.01 * bound);

        Tensor lin = Tensor.zeros(300, 500);
        Init.xavierUniform_(lin, 2.0);
        double xb = 2 * Math.sqrt(6.0 / 800);
        assertTrue(lin.abs().max().item() <= xb);
        assertEquals(xb / Math.sqrt(3), std(lin), 0.01 * xb);
        Init.xavierNormal_(lin);
        assertEquals(Math.sqrt(2.0 / 800), std(lin), 0.01 * Math.sqrt(2.0 / 800));

        Init.truncNormal_(lin, 0.5, 1.0, -0.5, 1.0);
        assertTrue(lin.min().item() >= -0.5 && lin.max().item() <= 1.0);
        Init.uniform_(lin, -3, -1);
        assertTrue(lin.min().item() >= -3 && lin.max().item() < -1);
        Init.normal_(lin, 4, 0.5);
        assertEquals(4, lin.mean().item(), 0.01);

        Tensor e = Tensor.zeros(2, 3);
        Init.eye_(e);
        assertArrayEquals(new double[] {1, 0, 0, 0, 1, 0}, e.toDoubleArray());
        Init.constant_(e, 0.3);
        assertEquals(0.3 * 6, e.sum().item(), 1e-6);
        Init.zeros_(e);
        assertEquals(0, e.abs().sum().item());
    }

    @Test
    void errorsAreTorchs() {
        assertEquals("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
                assertThrows(IllegalArgumentException.class, () -> Init.xavierUniform_(Tensor.zeros(5))).getMessage());
        assertEquals("Mode fan_avg not supported, please use one of fan_in, fan_out",
                assertThrows(IllegalArgumentException.class, () -> Init.kaimingNormal_(Tensor.zeros(3, 3), 0, "fan_avg", "relu")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Init.eye_(Tensor.zeros(2, 2, 2)));
    }
}
