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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The Winograd F(3x3, 2x2) weight gradient against the gradient summed in double by plain loops,
 * and its selection by the convolution's backward. 512-bit vectors only, like {@link ConvWinograd}.
 */
class ConvWinogradWeightTest {

    @BeforeEach
    void wideVectors() {
        assumeTrue(FloatVector.SPECIES_PREFERRED.vectorBitSize() >= 512, "ConvWinograd needs 512-bit vectors");
    }

    /**
     * The kernel itself, on shapes {@link ConvWinogradWeight#applies} leaves to the column path too:
     * padding 0/1/2, odd and even output heights and widths (half tiles at the bottom and right
     * edges), rows shorter and longer than a vector of tiles, batch 1 to 3, groups 1 and 2, 16 to
     * 64 channels per group, and inputs in five layouts (contiguous, a row window, every other
     * channel, strided, channels-last).
     */
    @Test
    void matchesDoubleReferenceOverSweep() {
        Random rng = new Random(17);
        int[][] sizes = {{8, 8}, {7, 9}, {9, 6}, {5, 37}, {3, 3}, {20, 1}, {30, 34}};
        int cases = 0;
        for (int pad = 0; pad <= 2; pad++) {
            for (int[] hw : sizes) {
                if (hw[0] + 2 * pad < 3 || hw[1] + 2 * pad < 3) continue;
                for (int groups = 1; groups <= 2; groups++) {
                    int batch = 1 + cases % 3;
                    int cg = new int[] {16, 24, 64, 32}[cases % 4], og = new int[] {16, 20, 64, 40}[(cases / 2) % 4];
                    Tensor x = ConvWinogradTest.input(rng, cases % 5, batch, groups * cg, hw[0], hw[1]);
                    Conv2dGeometry g = Conv2dGeometry.of(x.shape(), new int[] {groups * og, cg, 3, 3}, new int[] {1, 1}, new int[] {pad, pad}, new int[] {1, 1}, groups);
                    Tensor gy = Inputs.randn(rng, DType.FLOAT32, g.batch(), g.outChannels(), g.outH(), g.outW());
                    Tensor dw = Tensor.allocate(DType.FLOAT32, groups * og, cg, 3, 3);
                    ConvWinogradWeight.gradWeight(gy, x, g, dw);
                    String ctx = "pad " + pad + " input " + Arrays.toString(x.shape()) + " strides " + Arrays.toString(x.strides())
                            + " groups " + groups + " out channels " + g.outChannels();
                    assertClose(reference(gy, x, g), dw.toFloatArray(), g, ctx);
                    cases++;
                }
            }
        }
        assertTrue(cases >= 30, "cases " + cases);
    }

    /** Uneven padding, a single tile row or column, and a batch that takes several chunks of images (the GEMMs adding into M). */
    @Test
    void unevenPaddingTinyOutputsAndSeveralChunks() {
        Random rng = new Random(19);
        for (int[] k : new int[][] {{2, 16, 6, 11, 2, 0}, {1, 32, 3, 4, 0, 2}, {3, 16, 4, 3, 1, 0}}) {
            Tensor x = Inputs.randn(rng, DType.FLOAT32, k[0], k[1], k[2], k[3]);
            Conv2dGeometry g = Conv2dGeometry.of(x.shape(), new int[] {24, k[1], 3, 3}, new int[] {1, 1}, new int[] {k[4], k[5]}, new int[] {1, 1}, 1);
            Tensor gy = Inputs.randn(rng, DType.FLOAT32, g.batch(), g.outChannels(), g.outH(), g.outW());
            Tensor dw = Tensor.allocate(DType.FLOAT32, 24, k[1], 3, 3);
            ConvWinogradWeight.gradWeight(gy, x, g, dw);
            assertClose(reference(gy, x, g), dw.toFloatArray(), g, "case " + Arrays.toString(k));
        }
        // 16 -> 16 channels of 100x100: 5.1 MB of V and W per image, so a 16 MB chunk holds 3 of the 7 images
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 7, 16, 100, 100);
        Conv2dGeometry g = Conv2dGeometry.of(x.shape(), new int[] {16, 16, 3, 3}, new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1);
        long perImage = 16L * 32 * 50 * 50 * Float.BYTES;
        assertEquals(3, ConvWinogradWeight.CHUNK_BYTES / perImage, "chunks of 3, 3 and 1 images");
        Tensor gy = Inputs.randn(rng, DType.FLOAT32, 7, 16, 100, 100);
        Tensor dw = Tensor.allocate(DType.FLOAT32, 16, 16, 3, 3);
        ConvWinogradWeight.gradWeight(gy, x, g, dw);
        assertClose(reference(gy, x, g), dw.toFloatArray(), g, "7 images in chunks");
    }

    /**
     * The training benchmark's convolution (4 x 64 -> 64 channels, 28x28, padding 1): its backward
     * computes the weight gradient here, bit for bit this kernel's result; while the kernel is cold
     * (a fresh JVM) the column path computes it, within rounding of the same values.
     */
    @Test
    void theBackwardPicksWinogradForTheTrainingShapeOnceHot() {
        Random rng = new Random(23);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 4, 64, 28, 28), w = Inputs.randn(rng, DType.FLOAT32, 64, 64, 3, 3);
        Tensor gy = Inputs.randn(rng, DType.FLOAT32, 4, 64, 28, 28);
        Conv2dGeometry g = Conv2dGeometry.of(x.shape(), w.shape(), new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1);
        assertTrue(ConvWinogradWeight.applies(DType.FLOAT32, g), "selected for " + g);
        Tensor direct = Tensor.allocate(DType.FLOAT32, 64, 64, 3, 3), viaBackward = Tensor.allocate(DType.FLOAT32, 64, 64, 3, 3);
        ConvWinogradWeight.gradWeight(gy, x, g, direct);
        try {
            ConvWinogradWeight.TIER.markHotForTests();
            Conv2dBackward.backward(gy, x, w, g, null, viaBackward, null);
            assertArrayEquals(direct.toFloatArray(), viaBackward.toFloatArray(), "the backward ran ConvWinogradWeight");
            assumeTrue(dev.ember.kernels.Blas.nativeAvailable(), "the cold path runs on OpenBLAS");
            ConvWinogradWeight.TIER.resetForTests();
            Tensor cold = Tensor.allocate(DType.FLOAT32, 64, 64, 3, 3);
            Conv2dBackward.backward(gy, x, w, g, null, cold, null);
            assertEquals(1, ConvWinogradWeight.TIER.coldCalls(), "the cold call was counted");
            assertFalse(Arrays.equals(direct.toFloatArray(), cold.toFloatArray()), "the column path, not Winograd, computed it");
            assertClose(reference(gy, x, g), cold.toFloatArray(), g, "the column path");
        } finally {
            ConvWinogradWeight.TIER.markHotForTests();
        }
    }

    /**
     * Not for 5x5 kernels, stride 2, dilation 2, float64, fewer than 16 channels per group, fewer
     * than 784 tiles in the batch, rows of fewer than 7 tiles, or an image whose transformed
     * operands pass the chunk's budget.
     */
    @Test
    void appliesOnlyWhereItComputesAndPays() {
        assertTrue(ConvWinogradWeight.applies(DType.FLOAT32, geometry(new int[] {4, 32, 28, 28}, new int[] {32, 32, 3, 3}, 1, 1, 1)));
        assertTrue(ConvWinogradWeight.applies(DType.FLOAT32, geometry(new int[] {16, 64, 14, 14}, new int[] {64, 64, 3, 3}, 1, 1, 1)));
        assertFalse(ConvWinogradWeight.applies(DType.FLOAT64, geometry(new int[] {4, 32, 28, 28}, new int[] {32, 32, 3, 3}, 1, 1, 1)));
        assertFalse(ConvWinogradWeight.applies(DType.FLOAT32, geometry(new int[] {4, 32, 28, 28}, new int[] {32, 32, 5, 5}, 1, 1, 1)));
        assertFalse(ConvWinogradWeight.applies(DType.FLOAT32, geometry(new int[] {4, 32, 28, 28}, new int[] {32, 32, 3, 3}, 2, 1, 1)));
        assertFalse(ConvWinogradWeight.applies(DType.FLOAT32, geometry(new int[] {4, 32, 28, 28}, new int[] {32, 32, 3, 3}, 1, 2, 1)));
        assertFalse(ConvWinogradWeight.applies(DType.FLOAT32, geometry(new int[] {4, 16, 28, 28}, new int[] {32, 8, 3, 3}, 1, 1, 2)), "8 channels per group");
        assertFalse(ConvWinogradWeight.applies(DType.FLOAT32, geometry(new int[] {2, 64, 28, 28}, new int[] {64, 64, 3, 3}, 1, 1, 1)), "392 tiles");
        assertFalse(ConvWinogradWeight.applies(DType.FLOAT32, geometry(new int[] {64, 64, 7, 7}, new int[] {64, 64, 3, 3}, 1, 1, 1)), "rows of 4 tiles");
        assertFalse(ConvWinogradWeight.applies(DType.FLOAT32, geometry(new int[] {1, 256, 112, 112}, new int[] {256, 256, 3, 3}, 1, 1, 1)), "100 MB per image");
    }

    private static Conv2dGeometry geometry(int[] input, int[] weight, int stride, int dilation, int groups) {
        return Conv2dGeometry.of(input, weight, new int[] {stride, stride}, new int[] {1, 1}, new int[] {dilation, dilation}, groups);
    }

    /** The weight gradient summed in double by plain loops, as a flat {@code [O, C/groups, 3, 3]} array. */
    static double[] reference(Tensor gy, Tensor x, Conv2dGeometry g) {
        int n = g.batch(), c = g.channels(), h = g.height(), wd = g.width(), o = g.outChannels(), oh = g.outH(), ow = g.outW();
        int cg = g.groupChannels(), og = g.groupOutChannels();
        float[] xs = x.toFloatArray(), gs = gy.toFloatArray();
        double[] out = new double[o * cg * 9];
        for (int k = 0; k < o; k++) {
            int group = k / og;
            for (int ci = 0; ci < cg; ci++) {
                int ch = group * cg + ci;
                for (int i = 0; i < 3; i++) {
                    for (int j = 0; j < 3; j++) {
                        double s = 0;
                        for (int img = 0; img < n; img++) {
                            for (int y = 0; y < oh; y++) {
                                int yy = y + i - g.padH();
                                if (yy < 0 || yy >= h) continue;
                                for (int z = 0; z < ow; z++) {
                                    int zz = z + j - g.padW();
                                    if (zz < 0 || zz >= wd) continue;
                                    s += (double) gs[((img * o + k) * oh + y) * ow + z] * xs[((img * c + ch) * h + yy) * wd + zz];
                                }
                            }
                        }
                        out[((k * cg + ci) * 3 + i) * 3 + j] = s;
                    }
                }
            }
        }
        return out;
    }

    /**
     * Every element within {@code 1e-5·√terms + 1e-4·|expected|}: a gradient element sums
     * {@code batch·outH·outW} products of unit-variance values, so its size (and float32's rounding
     * of it) grows as the square root of that count.
     */
    private static void assertClose(double[] expected, float[] actual, Conv2dGeometry g, String ctx) {
        assertEquals(expected.length, actual.length, ctx + ": elements");
        double scale = Math.sqrt((double) g.batch() * g.outH() * g.outW());
        for (int i = 0; i < expected.length; i++) {
            double tol = 1e-5 * scale + 1e-4 * Math.abs(expected[i]);
            assertTrue(Math.abs(actual[i] - expected[i]) <= tol,
                    ctx + ": element " + i + " is " + actual[i] + ", expected " + expected[i] + " (tolerance " + tol + ")");
        }
    }
}
