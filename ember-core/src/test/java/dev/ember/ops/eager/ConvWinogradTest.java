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
 * The Winograd F(2x2, 3x3) kernel against a convolution computed in double by plain loops, and
 * its selection by conv2d (forward and the input gradient) for the benchmark's shape. It runs on
 * 512-bit vectors only, like {@link ConvDirect}.
 */
class ConvWinogradTest {

    @BeforeEach
    void wideVectors() {
        assumeTrue(FloatVector.SPECIES_PREFERRED.vectorBitSize() >= 512, "ConvWinograd needs 512-bit vectors");
    }

    /**
     * Padding 0/1/2, odd and even heights and widths (partial tiles at the bottom and right edges),
     * batch 1 and 3, groups 1 and 2, bias or none, 16 to 64 channels per group, contiguous and
     * non-contiguous inputs (a row slice, a channel slice, strided, channels-last).
     */
    @Test
    void matchesDoubleReferenceOverSweep() {
        int cases = sweep(new Random(7), new int[][] {{8, 8}, {7, 9}, {9, 6}, {5, 37}, {3, 3}, {20, 1}}, ConvWinograd::forward, 1e-5, 1e-4);
        assertTrue(cases >= 30, "cases " + cases);
    }

    /** A 3x3, stride-1 float32 convolution kernel under test. */
    interface Kernel {
        void forward(Tensor input, Tensor weight, Tensor bias, Tensor out, Conv2dGeometry g);
    }

    /**
     * Runs {@code kernel} over paddings 0 to 2, the given input sizes, groups 1 and 2, and rotating
     * batch sizes, channel counts, bias and input layouts, checking every element against
     * {@link #reference} within {@code atol + rtol * |expected|}; returns the cases run.
     */
    static int sweep(Random rng, int[][] sizes, Kernel kernel, double atol, double rtol) {
        int cases = 0;
        for (int pad = 0; pad <= 2; pad++) {
            for (int[] hw : sizes) {
                if (hw[0] + 2 * pad < 3 || hw[1] + 2 * pad < 3) continue;
                for (int groups = 1; groups <= 2; groups++) {
                    int batch = cases % 2 == 0 ? 1 : 3;
                    int cg = new int[] {16, 24, 64, 32}[cases % 4], og = new int[] {16, 12, 64, 40}[(cases / 2) % 4];
                    boolean withBias = cases % 3 != 0;
                    Tensor x = input(rng, cases % 5, batch, groups * cg, hw[0], hw[1]);
                    Tensor w = scaled(Inputs.randn(rng, DType.FLOAT32, groups * og, cg, 3, 3), 1 / Math.sqrt(9.0 * cg));
                    Tensor b = withBias ? Inputs.randn(rng, DType.FLOAT32, groups * og) : null;
                    Conv2dGeometry g = Conv2dGeometry.of(x.shape(), w.shape(), new int[] {1, 1}, new int[] {pad, pad}, new int[] {1, 1}, groups);
                    Tensor out = Tensor.allocate(DType.FLOAT32, g.batch(), g.outChannels(), g.outH(), g.outW());
                    kernel.forward(x, w, b, out, g);
                    String ctx = "pad " + pad + " input " + Arrays.toString(x.shape()) + " strides " + Arrays.toString(x.strides())
                            + " groups " + groups + " out channels " + g.outChannels() + (withBias ? " bias" : "");
                    assertClose(reference(x, w, b, g), out.toFloatArray(), ctx, atol, rtol);
                    cases++;
                }
            }
        }
        return cases;
    }

    /** Uneven padding (height and width padded differently) and an output of a single tile row and column. */
    @Test
    void unevenPaddingAndTinyOutputs() {
        Random rng = new Random(11);
        for (int[] k : new int[][] {{2, 16, 6, 11, 2, 0}, {1, 32, 3, 4, 0, 2}, {3, 16, 4, 3, 1, 0}}) {
            Tensor x = Inputs.randn(rng, DType.FLOAT32, k[0], k[1], k[2], k[3]);
            Tensor w = scaled(Inputs.randn(rng, DType.FLOAT32, 24, k[1], 3, 3), 1 / Math.sqrt(9.0 * k[1]));
            Tensor b = Inputs.randn(rng, DType.FLOAT32, 24);
            Conv2dGeometry g = Conv2dGeometry.of(x.shape(), w.shape(), new int[] {1, 1}, new int[] {k[4], k[5]}, new int[] {1, 1}, 1);
            Tensor out = Tensor.allocate(DType.FLOAT32, g.batch(), g.outChannels(), g.outH(), g.outW());
            ConvWinograd.forward(x, w, b, out, g);
            assertClose(reference(x, w, b, g), out.toFloatArray(), "case " + Arrays.toString(k), 1e-5, 1e-4);
        }
    }

    /**
     * conv2d of the training benchmark's shape (8 x 64 -> 64 channels, 28x28, 3x3, padding 1; 56x56
     * goes to F(4x4): ConvWinograd4Test) and its input gradient run the Winograd kernel: the
     * selection holds, and the results are its results bit for bit.
     */
    @Test
    void conv2dAndItsInputGradientPickWinogradForTheTrainingShape() {
        ConvWinograd.TIER.markHotForTests();   // past a fresh JVM's first calls (see the next test)
        Random rng = new Random(3);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 8, 64, 28, 28), w = scaled(Inputs.randn(rng, DType.FLOAT32, 64, 64, 3, 3), 1 / 24.0);
        Conv2dGeometry g = Conv2dGeometry.of(x.shape(), w.shape(), new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1);
        assertTrue(ConvWinograd.applies(DType.FLOAT32, g) && !ConvWinograd4.applies(DType.FLOAT32, g), "F(2x2) selected for " + g);
        Tensor viaConv2d = Tensor.allocate(DType.FLOAT32, 8, 64, 28, 28), direct = Tensor.allocate(DType.FLOAT32, 8, 64, 28, 28);
        Conv2d.forward(x, w, null, viaConv2d, g);
        ConvWinograd.forward(x, w, null, direct, g);
        assertArrayEquals(direct.toFloatArray(), viaConv2d.toFloatArray(), "conv2d ran ConvWinograd");

        // the input gradient: the output gradient convolved with the flipped weight (training's 4 x 64 x 28x28)
        Tensor gradOut = Inputs.randn(rng, DType.FLOAT32, 4, 64, 28, 28), in = Inputs.randn(rng, DType.FLOAT32, 4, 64, 28, 28);
        Conv2dGeometry fg = Conv2dGeometry.of(in.shape(), w.shape(), new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1);
        Conv2dGeometry transposed = Conv2dBackward.directGradInput(fg);
        assertTrue(ConvWinograd.applies(DType.FLOAT32, transposed), "Winograd selected for the input gradient " + transposed);
        Tensor gradInput = Tensor.allocate(DType.FLOAT32, 4, 64, 28, 28), expected = Tensor.allocate(DType.FLOAT32, 4, 64, 28, 28);
        Conv2dBackward.backward(gradOut, in, w, fg, gradInput, null, null);
        ConvWinograd.forward(gradOut, Conv2dBackward.flippedWeight(w, fg), null, expected, transposed);
        assertArrayEquals(expected.toFloatArray(), gradInput.toFloatArray(), "the input gradient ran ConvWinograd");
    }

    /**
     * While the kernel is cold (a fresh JVM: ColdStart) conv2d runs the column path (im2col and
     * OpenBLAS) and the kernel a warm-up slice, until a slice runs at compiled speed; then conv2d
     * runs the kernel. Both paths give the convolution (within float32 rounding of each other).
     */
    @Test
    void aColdWinogradKernelLeavesConv2dToTheColumnPathUntilItIsCompiled() {
        assumeTrue(dev.ember.kernels.Blas.nativeAvailable(), "OpenBLAS");
        Random rng = new Random(5);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 64, 28, 28), w = scaled(Inputs.randn(rng, DType.FLOAT32, 64, 64, 3, 3), 1 / 24.0);
        Conv2dGeometry g = Conv2dGeometry.of(x.shape(), w.shape(), new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1);
        assumeTrue(ConvWinograd.applies(DType.FLOAT32, g), "512-bit vectors");
        Tensor winograd = Tensor.allocate(DType.FLOAT32, 2, 64, 28, 28), cold = Tensor.allocate(DType.FLOAT32, 2, 64, 28, 28);
        ConvWinograd.forward(x, w, null, winograd, g);
        try {
            ConvWinograd.TIER.resetForTests();
            Conv2d.forward(x, w, null, cold, g);
            // the choice is made when the call starts, cold after the reset: whatever the warming thread does after it
            assertEquals(1, ConvWinograd.TIER.coldCalls(), "the cold call was counted");
            assertFalse(java.util.Arrays.equals(winograd.toFloatArray(), cold.toFloatArray()), "the column path, not Winograd, computed it");
            float[] a = winograd.toFloatArray(), b = cold.toFloatArray();
            for (int i = 0; i < a.length; i++) assertEquals(a[i], b[i], 1e-4f, "element " + i);
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!ConvWinograd.TIER.hot() && System.nanoTime() < deadline) ConvWinograd.TIER.exercise();
            assertTrue(ConvWinograd.TIER.hot(), "a slice ran at compiled speed");
            Tensor hot = Tensor.allocate(DType.FLOAT32, 2, 64, 28, 28);
            Conv2d.forward(x, w, null, hot, g);
            assertArrayEquals(winograd.toFloatArray(), hot.toFloatArray(), "hot: conv2d runs Winograd");
        } finally {
            ConvWinograd.TIER.markHotForTests();
        }
    }

    /** A float32 input of the given shape in one of five layouts (contiguous, or views with other strides). */
    static Tensor input(Random rng, int layout, int... shape) {
        return switch (layout) {
            case 0 -> Inputs.randn(rng, DType.FLOAT32, shape);
            // a window of wider rows: unit column stride, row stride W + 3
            case 1 -> Inputs.randn(rng, DType.FLOAT32, shape[0], shape[1], shape[2], shape[3] + 3).slice(3, 2, 2 + shape[3], 1);
            // every other channel of twice as many
            case 2 -> Inputs.randn(rng, DType.FLOAT32, shape[0], 2 * shape[1], shape[2], shape[3]).slice(1, 1, 2 * shape[1], 2);
            case 3 -> Inputs.strided(Inputs.randn(rng, DType.FLOAT32, shape), 2, 1);
            default -> Inputs.layout(Inputs.randn(rng, DType.FLOAT32, shape), new int[] {0, 2, 3, 1}, 1, 0);
        };
    }

    static Tensor scaled(Tensor t, double factor) {
        float[] v = t.toFloatArray();
        Tensor out = Tensor.allocate(DType.FLOAT32, t.shape());
        float[] o = out.storage().floats();
        for (int i = 0; i < v.length; i++) o[i] = (float) (v[i] * factor);
        return out;
    }

    /** The convolution (stride 1, dilation 1, 3x3) summed in double by plain loops, as a flat NCHW array. */
    static double[] reference(Tensor x, Tensor w, Tensor b, Conv2dGeometry g) {
        int n = g.batch(), c = g.channels(), h = g.height(), wd = g.width(), o = g.outChannels(), oh = g.outH(), ow = g.outW();
        int cg = g.groupChannels(), og = g.groupOutChannels();
        float[] xs = contiguous(x), ws = w.toFloatArray(), bs = b == null ? null : b.toFloatArray();
        double[] out = new double[n * o * oh * ow];
        for (int img = 0; img < n; img++) {
            for (int k = 0; k < o; k++) {
                int group = k / og;
                for (int y = 0; y < oh; y++) {
                    for (int z = 0; z < ow; z++) {
                        double s = bs == null ? 0 : bs[k];
                        for (int ci = 0; ci < cg; ci++) {
                            int ch = group * cg + ci;
                            for (int i = 0; i < 3; i++) {
                                int yy = y + i - g.padH();
                                if (yy < 0 || yy >= h) continue;
                                for (int j = 0; j < 3; j++) {
                                    int zz = z + j - g.padW();
                                    if (zz < 0 || zz >= wd) continue;
                                    s += (double) ws[((k * cg + ci) * 3 + i) * 3 + j] * xs[((img * c + ch) * h + yy) * wd + zz];
                                }
                            }
                        }
                        out[((img * o + k) * oh + y) * ow + z] = s;
                    }
                }
            }
        }
        return out;
    }

    private static float[] contiguous(Tensor t) {
        return t.toFloatArray();
    }

    /** Every element within {@code atol + rtol * |expected|} (the outputs are of order one: weights scaled by 1/sqrt(9 * channels)). */
    private static void assertClose(double[] expected, float[] actual, String ctx, double atol, double rtol) {
        assertTrue(expected.length == actual.length, ctx + ": " + actual.length + " elements, expected " + expected.length);
        for (int i = 0; i < expected.length; i++) {
            double err = Math.abs(actual[i] - expected[i]);
            if (!(err <= atol + rtol * Math.abs(expected[i]))) {
                throw new AssertionError(ctx + ": element " + i + " is " + actual[i] + ", expected " + expected[i]);
            }
        }
    }
}
