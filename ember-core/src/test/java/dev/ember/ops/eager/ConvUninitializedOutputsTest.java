package dev.ember.ops.eager;

import dev.ember.kernels.Conv2dGeometry;
import dev.ember.kernels.ConvWorkspace;
import dev.ember.ops.ConvOps;
import dev.ember.tensor.Allocation;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A convolution whose kernel writes every output element (Winograd, hot) takes its output, and
 * its input gradient, uninitialized: with the poison pattern on (every uninitialized array first
 * filled with NaN) the results are the zeroed run's bit for bit, and the convolution's value
 * within float32 rounding of a float64 reference. The paths that add into their output
 * (depthwise, the column path) keep zeroed outputs. The weight gradient by Winograd likewise.
 */
class ConvUninitializedOutputsTest {

    private boolean poisonBefore;

    @BeforeEach
    void setUp() {
        assumeTrue(FloatVector.SPECIES_PREFERRED.vectorBitSize() >= 512, "ConvWinograd needs 512-bit vectors");
        poisonBefore = Allocation.poisoning();
        ConvWinograd.TIER.markHotForTests();
    }

    @AfterEach
    void restore() {
        Allocation.setPoisoning(poisonBefore);
    }

    private static final int[] ONE = {1, 1}, NONE = {0, 0};

    /**
     * Batch 1, 2 and 3, odd heights and widths (partial tiles), 68 output channels (not a multiple of
     * the 8-channel register tile nor of the 16 lanes), padding 0 and 1.
     */
    @Test
    void winogradOutputsAndInputGradientsAreFullyWrittenOnPoisonedMemory() {
        Random rng = new Random(11);
        int[][] shapes = {{1, 64, 29, 31}, {3, 64, 30, 30}, {2, 64, 31, 29}};
        int cases = 0;
        for (int[] shape : shapes) {
            for (int pad = 0; pad <= 1; pad++) {
                Tensor x = Inputs.randn(rng, DType.FLOAT32, shape);
                Tensor w = ConvWinogradTest.scaled(Inputs.randn(rng, DType.FLOAT32, 68, shape[1], 3, 3), 1 / 24.0);
                int[] padding = {pad, pad};
                Conv2dGeometry g = Conv2dGeometry.of(x.shape(), w.shape(), ONE, padding, ONE, 1);
                assertTrue(Conv2d.overwritesOutput(DType.FLOAT32, g), "Winograd writes the whole output of " + g);
                assertTrue(Conv2dBackward.overwritesGradInput(DType.FLOAT32, g), "Winograd writes the whole input gradient of " + g);
                Tensor gradOut = Inputs.randn(rng, DType.FLOAT32, g.batch(), g.outChannels(), g.outH(), g.outW());

                Allocation.setPoisoning(false);
                Tensor clean = ConvOps.CONVOLUTION.callTensor(x, w, null, ONE, padding, ONE, false, NONE, 1L);
                Tensor cleanGrad = inputGradient(gradOut, x, w, padding);
                Allocation.setPoisoning(true);
                Tensor poisoned = ConvOps.CONVOLUTION.callTensor(x, w, null, ONE, padding, ONE, false, NONE, 1L);
                Tensor poisonedGrad = inputGradient(gradOut, x, w, padding);

                String ctx = "input " + java.util.Arrays.toString(shape) + " padding " + pad;
                assertFalse(hasNaN(poisoned), ctx + ": an output element the kernel did not write");
                assertFalse(hasNaN(poisonedGrad), ctx + ": an input-gradient element the kernel did not write");
                assertArrayEquals(clean.toFloatArray(), poisoned.toFloatArray(), ctx + ": output");
                assertArrayEquals(cleanGrad.toFloatArray(), poisonedGrad.toFloatArray(), ctx + ": input gradient");
                double[] expected = ConvWinogradTest.reference(x, w, null, g);
                float[] actual = poisoned.toFloatArray();
                for (int i = 0; i < expected.length; i++) {
                    assertEquals(expected[i], actual[i], 1e-5 + 1e-4 * Math.abs(expected[i]), ctx + ": element " + i + " against float64");
                }
                cases++;
            }
        }
        assertEquals(6, cases);
    }

    /**
     * The weight gradient by Winograd ({@link ConvWinogradWeight}, hot) takes its output
     * uninitialized, and its positions' sums from this thread's workspace: with the poison pattern
     * on and that workspace full of NaN, the gradient is the zeroed run's bit for bit and within
     * float32 rounding of a float64 reference. Padding 1 and 0, odd widths (half tiles), 68 output
     * channels, batch 4 and 5 (at least 784 tiles, where the kernel applies).
     */
    @Test
    void winogradWeightGradientsAreFullyWrittenOnPoisonedMemoryAndStaleWorkspaces() {
        Random rng = new Random(13);
        ConvWinogradWeight.TIER.markHotForTests();
        int[][] cases = {{4, 32, 28, 29, 1}, {5, 64, 27, 27, 0}};
        for (int[] k : cases) {
            Tensor x = Inputs.randn(rng, DType.FLOAT32, k[0], k[1], k[2], k[3]);
            Tensor w = ConvWinogradTest.scaled(Inputs.randn(rng, DType.FLOAT32, 68, k[1], 3, 3), 1 / 24.0);
            int[] padding = {k[4], k[4]};
            Conv2dGeometry g = Conv2dGeometry.of(x.shape(), w.shape(), ONE, padding, ONE, 1);
            assertTrue(Conv2dBackward.overwritesGradWeight(DType.FLOAT32, g), "Winograd writes the whole weight gradient of " + g);
            Tensor gradOut = Inputs.randn(rng, DType.FLOAT32, g.batch(), g.outChannels(), g.outH(), g.outW());

            Allocation.setPoisoning(false);
            Tensor clean = weightGradient(gradOut, x, w, padding);
            Allocation.setPoisoning(true);
            float[] stale = (float[]) ConvWorkspace.array(ConvWorkspace.Slot.TRANSFORMED_OUTPUTS, new float[0], 16 * 68 * k[1]);
            java.util.Arrays.fill(stale, Float.NaN);
            Tensor poisoned = weightGradient(gradOut, x, w, padding);

            String ctx = "input " + java.util.Arrays.toString(k);
            assertFalse(hasNaN(poisoned), ctx + ": a weight-gradient element the kernel did not write, or a stale sum read");
            assertArrayEquals(clean.toFloatArray(), poisoned.toFloatArray(), ctx + ": weight gradient");
            double[] expected = ConvWinogradWeightTest.reference(gradOut, x, g);
            float[] actual = poisoned.toFloatArray();
            double scale = Math.sqrt((double) g.batch() * g.outH() * g.outW());
            for (int i = 0; i < expected.length; i++) {
                assertEquals(expected[i], actual[i], 1e-5 * scale + 1e-4 * Math.abs(expected[i]), ctx + ": element " + i + " against float64");
            }
        }
    }

    /** A depthwise convolution adds into its output: it does not ask for an uninitialized one, and poisoning changes nothing. */
    @Test
    void depthwiseConvolutionsKeepZeroedOutputs() {
        Random rng = new Random(12);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 64, 28, 28), w = Inputs.randn(rng, DType.FLOAT32, 64, 1, 3, 3);
        Conv2dGeometry g = Conv2dGeometry.of(x.shape(), w.shape(), ONE, ONE, ONE, 64);
        assertFalse(Conv2d.overwritesOutput(DType.FLOAT32, g), "depthwise accumulates into a zeroed output");
        Allocation.setPoisoning(false);
        Tensor clean = ConvOps.CONVOLUTION.callTensor(x, w, null, ONE, ONE, ONE, false, NONE, 64L);
        Allocation.setPoisoning(true);
        Tensor poisoned = ConvOps.CONVOLUTION.callTensor(x, w, null, ONE, ONE, ONE, false, NONE, 64L);
        assertArrayEquals(clean.toFloatArray(), poisoned.toFloatArray());
    }

    /** While Winograd is cold (a fresh JVM) the column path computes the convolution into a zeroed output. */
    @Test
    void aColdKernelMeansAZeroedOutput() {
        assumeTrue(dev.ember.kernels.Blas.nativeAvailable(), "OpenBLAS");
        Conv2dGeometry g = Conv2dGeometry.of(new int[] {4, 64, 28, 28}, new int[] {64, 64, 3, 3}, ONE, ONE, ONE, 1);
        assumeTrue(!ConvWinograd4.applies(DType.FLOAT32, g), "F(4x4) switched on");
        try {
            ConvWinograd.TIER.resetForTests();
            assertFalse(Conv2d.overwritesOutput(DType.FLOAT32, g));
            assertFalse(Conv2dBackward.overwritesGradInput(DType.FLOAT32, g));
            assertEquals(0, ConvWinograd.TIER.coldCalls(), "asking counts no cold call");
            ConvWinogradWeight.TIER.resetForTests();
            assertFalse(Conv2dBackward.overwritesGradWeight(DType.FLOAT32, g), "the cold weight gradient runs the column path");
            assertEquals(0, ConvWinogradWeight.TIER.coldCalls(), "asking counts no cold call");
        } finally {
            ConvWinograd.TIER.markHotForTests();
            ConvWinogradWeight.TIER.markHotForTests();
        }
        assertTrue(Conv2d.overwritesOutput(DType.FLOAT32, g));
        assertTrue(Conv2dBackward.overwritesGradWeight(DType.FLOAT32, g));
    }

    /**
     * {@code convolution.out} (what inductor calls to put a convolution's output in its arena) into
     * an out full of NaN, as a reused arena slot holds a previous call's values: Winograd (hot) writes
     * every element; the paths that add into their output (depthwise; the column path while a kernel
     * is cold) get out zeroed first. Each result is the functional op's bit for bit; so is an out that
     * is the input itself, and an out of the wrong shape is refused with both shapes named.
     */
    @Test
    void convolutionOutWritesEveryElementOfAStaleOut() {
        Random rng = new Random(14);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 64, 29, 28), w = ConvWinogradTest.scaled(Inputs.randn(rng, DType.FLOAT32, 68, 64, 3, 3), 1 / 24.0);
        Tensor depthwise = Inputs.randn(rng, DType.FLOAT32, 64, 1, 3, 3), bias = Inputs.randn(rng, DType.FLOAT32, 64);
        Conv2dGeometry g = Conv2dGeometry.of(x.shape(), w.shape(), ONE, ONE, ONE, 1);
        assertTrue(Conv2d.overwritesOutput(DType.FLOAT32, g));
        assertOutFormMatches(x, w, null, 1, "Winograd, hot");
        assertOutFormMatches(x, depthwise, null, 64, "depthwise, which adds into its output");
        assertOutFormMatches(x, depthwise, bias, 64, "depthwise with a bias, its output's start");
        // out the input itself (the shapes agree): the kernels read their input while they write, so the result is computed apart first
        Tensor square = ConvWinogradTest.scaled(Inputs.randn(rng, DType.FLOAT32, 64, 64, 3, 3), 1 / 24.0), own = x.clone();
        Tensor expected = ConvOps.CONVOLUTION.callTensor(x, square, null, ONE, ONE, ONE, false, NONE, 1L);
        assertArrayEquals(expected.toFloatArray(), ConvOps.CONVOLUTION_OUT.callTensor(own, square, null, ONE, ONE, ONE, false, NONE, 1L, own).toFloatArray(),
                "out is the input");
        IllegalArgumentException wrongShape = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> ConvOps.CONVOLUTION_OUT.callTensor(x, w, null, ONE, ONE, ONE, false, NONE, 1L, Tensor.zeros(2, 68, 29, 27)));
        assertEquals("convolution: the out tensor has shape [2, 68, 29, 27] but the result has shape [2, 68, 29, 28]; Ember does not resize out "
                + "(ATen would, with a warning): pass an out of shape [2, 68, 29, 28]", wrongShape.getMessage());
        assumeTrue(dev.ember.kernels.Blas.nativeAvailable(), "OpenBLAS");
        assumeTrue(!ConvWinograd4.applies(DType.FLOAT32, g), "F(4x4) switched on");
        try {
            ConvWinograd.TIER.resetForTests();
            assertFalse(Conv2d.overwritesOutput(DType.FLOAT32, g));
            // the first call has the warming thread run Winograd, which may mark it hot before the second: the two calls may take
            // the two paths, which round differently, so this case compares within float rounding (every element written is the point)
            assertOutFormMatches(x, w, null, 1, "Winograd cold: the column path", 1e-5f);
        } finally {
            ConvWinograd.TIER.markHotForTests();
        }
    }

    private static void assertOutFormMatches(Tensor x, Tensor w, Tensor bias, long groups, String what) {
        assertOutFormMatches(x, w, bias, groups, what, 0f);
    }

    private static void assertOutFormMatches(Tensor x, Tensor w, Tensor bias, long groups, String what, float tolerance) {
        Tensor expected = ConvOps.CONVOLUTION.callTensor(x, w, bias, ONE, ONE, ONE, false, NONE, groups);
        Tensor out = Tensor.full(expected.shape(), Float.NaN);
        Tensor returned = ConvOps.CONVOLUTION_OUT.callTensor(x, w, bias, ONE, ONE, ONE, false, NONE, groups, out);
        assertTrue(returned == out, what + ": returns out");
        assertFalse(hasNaN(out), what + ": an element left stale");
        if (tolerance == 0f) assertArrayEquals(expected.toFloatArray(), out.toFloatArray(), what);
        else assertArrayEquals(expected.toFloatArray(), out.toFloatArray(), tolerance, what);
    }

    private static Tensor inputGradient(Tensor gradOut, Tensor x, Tensor w, int[] padding) {
        List<Tensor> grads = ConvOps.CONVOLUTION_BACKWARD.callList(gradOut, x, w, null, ONE, padding, ONE, false, NONE, 1L, new boolean[] {true, false, false});
        return grads.get(0);
    }

    private static Tensor weightGradient(Tensor gradOut, Tensor x, Tensor w, int[] padding) {
        List<Tensor> grads = ConvOps.CONVOLUTION_BACKWARD.callList(gradOut, x, w, null, ONE, padding, ONE, false, NONE, 1L, new boolean[] {false, true, false});
        return grads.get(1);
    }

    private static boolean hasNaN(Tensor t) {
        for (float v : t.toFloatArray()) if (Float.isNaN(v)) return true;
        return false;
    }
}
