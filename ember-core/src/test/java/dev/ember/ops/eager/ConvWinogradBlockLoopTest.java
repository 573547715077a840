package dev.ember.ops.eager;

import dev.ember.kernels.Conv2dGeometry;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The block loop F(2x2, 3x3) and F(4x4, 3x3) share ({@link ConvWinograd#run}) on images of many
 * blocks: blocks that end inside a tile row, images cut into several work items (batch 1: one per
 * core and more, each splitting its own padded rows, from a row past the image's first), channel counts
 * that are not multiples of the vector length or of the register tile's 8 output channels, and
 * per-thread workspaces left over from a larger convolution. Every element is checked against the
 * convolution summed in double ({@link ConvWinogradTest#reference}).
 */
class ConvWinogradBlockLoopTest {

    @BeforeEach
    void wideVectors() {
        assumeTrue(FloatVector.SPECIES_PREFERRED.vectorBitSize() >= 512, "Winograd needs 512-bit vectors");
    }

    /** {batch, channels, out channels, height, width, padding}: from 4 (F(4x4)) to 15 (F(2x2)) blocks per image. */
    private static final int[][] SHAPES = {
        {1, 40, 20, 45, 61, 1},   // batch 1: the image cut into a work item per core and more
        {3, 48, 24, 33, 70, 0},   // no padding: the output two rows and columns smaller
        {2, 24, 12, 50, 29, 2},   // padding 2: two zero rows and columns on each side
        {1, 17, 9, 64, 64, 1},    // odd channel counts
    };

    @Test
    void f2MatchesDoubleReferenceOnImagesOfManyBlocks() {
        check(ConvWinograd::forward, 1e-5, 1e-4, new Random(31));
    }

    @Test
    void f4MatchesDoubleReferenceOnImagesOfManyBlocks() {
        check(ConvWinograd4::forward, 2e-5, 2e-4, new Random(37));
    }

    /**
     * A convolution after a larger one on the same thread reuses its workspaces (padded rows,
     * transformed inputs, weights and sums), whose stale contents must never reach the output:
     * 64 -> 64 channels first, then 40 -> 20 (fewer than the stale weights' blocks of 8), for both tilings.
     */
    @Test
    void staleWorkspacesFromALargerConvolutionDoNotLeakIntoTheNext() {
        Random rng = new Random(41);
        for (ConvWinogradTest.Kernel kernel : new ConvWinogradTest.Kernel[] {ConvWinograd::forward, ConvWinograd4::forward}) {
            run(kernel, rng, new int[] {2, 64, 64, 56, 56, 1}, 2e-5, 2e-4);
            run(kernel, rng, new int[] {1, 40, 20, 30, 30, 1}, 2e-5, 2e-4);
        }
    }

    private static void check(ConvWinogradTest.Kernel kernel, double atol, double rtol, Random rng) {
        for (int[] shape : SHAPES) run(kernel, rng, shape, atol, rtol);
    }

    private static void run(ConvWinogradTest.Kernel kernel, Random rng, int[] s, double atol, double rtol) {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, s[0], s[1], s[3], s[4]);
        Tensor w = ConvWinogradTest.scaled(Inputs.randn(rng, DType.FLOAT32, s[2], s[1], 3, 3), 1 / Math.sqrt(9.0 * s[1]));
        Tensor b = Inputs.randn(rng, DType.FLOAT32, s[2]);
        Conv2dGeometry g = Conv2dGeometry.of(x.shape(), w.shape(), new int[] {1, 1}, new int[] {s[5], s[5]}, new int[] {1, 1}, 1);
        Tensor out = Tensor.allocate(DType.FLOAT32, g.batch(), g.outChannels(), g.outH(), g.outW());
        Arrays.fill(out.storage().floats(), Float.NaN);   // every element must be written
        kernel.forward(x, w, b, out, g);
        double[] expected = ConvWinogradTest.reference(x, w, b, g);
        float[] actual = out.toFloatArray();
        for (int i = 0; i < expected.length; i++) {
            double err = Math.abs(actual[i] - expected[i]);
            assertTrue(err <= atol + rtol * Math.abs(expected[i]),
                    Arrays.toString(s) + ": element " + i + " is " + actual[i] + ", expected " + expected[i]);
        }
    }
}
