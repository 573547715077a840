package dev.ember.ops.eager;

import dev.ember.kernels.Conv2dGeometry;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The Winograd F(4x4, 3x3) kernel against a convolution summed in double, its error against the
 * F(2x2, 3x3) and direct kernels' on the same inputs, libtorch's float64 convolution, and its
 * selection by conv2d. 512-bit vectors only, like {@link ConvWinograd}.
 */
class ConvWinograd4Test {

    @BeforeEach
    void wideVectors() {
        assumeTrue(FloatVector.SPECIES_PREFERRED.vectorBitSize() >= 512, "ConvWinograd4 needs 512-bit vectors");
    }

    /**
     * Padding 0/1/2, heights and widths of every remainder modulo 4 (partial tiles at the bottom and
     * right edges), 1x1 to many tile rows, batch 1 and 3, groups 1 and 2, bias or none, 16 to 64
     * channels per group, five input layouts: every element within 2e-5 + 2e-4 |expected| (twice
     * the bound F(2x2)'s test holds).
     */
    @Test
    void matchesDoubleReferenceOverSweep() {
        int[][] sizes = {{8, 8}, {7, 9}, {9, 6}, {5, 37}, {3, 3}, {20, 1}, {13, 14}, {30, 31}, {4, 4}};
        int cases = ConvWinogradTest.sweep(new Random(17), sizes, ConvWinograd4::forward, 2e-5, 2e-4);
        assertTrue(cases >= 45, "cases " + cases);
    }

    /**
     * The benchmark's shape (2 x 64 -> 64, 56x56, padding 1): F(4x4)'s largest error against float64
     * is of the direct kernel's order (at most twice it; 7.9e-6 against its 7.7e-6 measured, where the
     * points 0, ±1, ±2 gave 4.8e-5), and F(4x4) holds float32's default tolerance against libtorch's
     * float64 convolution, as F(2x2) does.
     */
    @Test
    void errorOnTheBenchmarkShapeIsOfTheDirectKernelsOrder() {
        Random rng = new Random(23);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 64, 56, 56), w = ConvWinogradTest.scaled(Inputs.randn(rng, DType.FLOAT32, 64, 64, 3, 3), 1 / 24.0);
        Tensor b = Inputs.randn(rng, DType.FLOAT32, 64);
        Conv2dGeometry g = Conv2dGeometry.of(x.shape(), w.shape(), new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1);
        double[] exact = ConvWinogradTest.reference(x, w, b, g);
        Tensor four = Tensor.allocate(DType.FLOAT32, 2, 64, 56, 56), two = Tensor.allocate(DType.FLOAT32, 2, 64, 56, 56);
        Tensor summed = Tensor.allocate(DType.FLOAT32, 2, 64, 56, 56);
        ConvWinograd4.forward(x, w, b, four, g);
        ConvWinograd.forward(x, w, b, two, g);
        ConvDirect.forward(x, w, b, summed, g);
        double e4 = maxError(exact, four.toFloatArray()), e2 = maxError(exact, two.toFloatArray()), direct = maxError(exact, summed.toFloatArray());
        System.out.printf("benchmark shape: largest error F(4x4) %.3g, F(2x2) %.3g, direct %.3g%n", e4, e2, direct);
        assertTrue(e4 <= 2 * direct, "F(4x4) error " + e4 + " against the direct kernel's " + direct);
        var libtorch = Torch.call("torch.conv2d(a.double(), b.double(), c.double(), 1, 1).float()", x, w, b);
        assertClose(two, libtorch, "F(2x2) against libtorch float64");
        assertClose(four, libtorch, "F(4x4) against libtorch float64");
    }

    /** On ReLU outputs (every input non-negative, as in the second convolution of a stack) the same bound holds. */
    @Test
    void errorOnNonNegativeInputsIsOfTheDirectKernelsOrder() {
        Random rng = new Random(29);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 1, 64, 60, 60).relu(), w = ConvWinogradTest.scaled(Inputs.randn(rng, DType.FLOAT32, 64, 64, 3, 3), 1 / 24.0);
        Conv2dGeometry g = Conv2dGeometry.of(x.shape(), w.shape(), new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1);
        double[] exact = ConvWinogradTest.reference(x, w, null, g);
        Tensor four = Tensor.allocate(DType.FLOAT32, 1, 64, 60, 60), summed = Tensor.allocate(DType.FLOAT32, 1, 64, 60, 60);
        ConvWinograd4.forward(x, w, null, four, g);
        ConvDirect.forward(x, w, null, summed, g);
        double e4 = maxError(exact, four.toFloatArray()), direct = maxError(exact, summed.toFloatArray());
        assertTrue(e4 <= 2 * direct, "F(4x4) error " + e4 + " against the direct kernel's " + direct);
    }

    /**
     * On by default; switched off, conv2d of the benchmark's shape runs F(2x2) (bit for bit); the
     * training input gradient's 28x28 keeps F(2x2) either way.
     */
    @Test
    void conv2dPicksF4ForLargeImagesUnlessSwitchedOff() {
        ConvWinograd4.TIER.markHotForTests();
        ConvWinograd.TIER.markHotForTests();
        Random rng = new Random(3);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 64, 56, 56), w = ConvWinogradTest.scaled(Inputs.randn(rng, DType.FLOAT32, 64, 64, 3, 3), 1 / 24.0);
        Conv2dGeometry g = Conv2dGeometry.of(x.shape(), w.shape(), new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1);
        Conv2dGeometry small = Conv2dGeometry.of(new int[] {4, 64, 28, 28}, w.shape(), new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1);
        assertTrue(ConvWinograd4.applies(DType.FLOAT32, g), "F(4x4) selected for " + g);
        assertFalse(ConvWinograd4.applies(DType.FLOAT32, small), "28x28 keeps F(2x2)");
        Tensor viaConv2d = Tensor.allocate(DType.FLOAT32, 2, 64, 56, 56), expected = Tensor.allocate(DType.FLOAT32, 2, 64, 56, 56);
        Conv2d.forward(x, w, null, viaConv2d, g);
        ConvWinograd4.forward(x, w, null, expected, g);
        assertArrayEquals(expected.toFloatArray(), viaConv2d.toFloatArray(), "conv2d ran ConvWinograd4");
        boolean was = ConvWinograd4.enabled;
        try {
            ConvWinograd4.enabled = false;
            assertFalse(ConvWinograd4.applies(DType.FLOAT32, g), "off when switched off");
            Conv2d.forward(x, w, null, viaConv2d, g);
            ConvWinograd.forward(x, w, null, expected, g);
            assertArrayEquals(expected.toFloatArray(), viaConv2d.toFloatArray(), "switched off, conv2d ran F(2x2)");
        } finally {
            ConvWinograd4.enabled = was;
        }
    }

    /** The switch's values: unset/empty/1/true on, 0/false off, anything else on with a word on stderr (not an exception). */
    @Test
    void theSwitchReadsItsValuesAndReportsOthers() {
        for (String on : new String[] {null, "", "1", " TRUE "}) assertTrue(ConvWinograd4.switchedOn(on), "'" + on + "'");
        for (String off : new String[] {"0", "false", " False "}) assertFalse(ConvWinograd4.switchedOn(off), "'" + off + "'");
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        try {
            System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
            assertTrue(ConvWinograd4.switchedOn("yes"));
        } finally {
            System.setErr(err);
        }
        String said = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(said.contains("'yes': expected 1, true, 0 or false; Winograd F(4x4) stays on"), said);
    }

    private static double maxError(double[] expected, float[] actual) {
        double worst = 0;
        for (int i = 0; i < expected.length; i++) worst = Math.max(worst, Math.abs(actual[i] - expected[i]));
        return worst;
    }
}
