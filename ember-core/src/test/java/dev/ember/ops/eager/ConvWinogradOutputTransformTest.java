package dev.ember.ops.eager;

import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * F(2x2, 3x3)'s output transform ({@link ConvWinograd#transformOutputs}) on runs of tiles that end
 * inside a pair of vectors (a 28-wide row's 14 tiles, an odd width's half tile, a run starting
 * mid-row) both away from the output array's end (masked stores) and at it (whole vectors through
 * the scratch buffer, then a copy): each element of the run's tiles is {@code Aᵀ M A + bias}
 * computed in double, and nothing outside them is written.
 */
class ConvWinogradOutputTransformTest {
    private static final int L = FloatVector.SPECIES_PREFERRED.length();

    @BeforeEach
    void wideVectors() {
        assumeTrue(FloatVector.SPECIES_PREFERRED.vectorBitSize() >= 512, "ConvWinograd needs 512-bit vectors");
    }

    /** {outH, outW, first output row, first output column, tiles in the run}. */
    private static final int[][] RUNS = {
        {28, 28, 0, 0, 14},     // a whole 28-wide row: 28 columns, one full vector and 12 lanes of the next
        {28, 28, 26, 0, 14},    // the plane's last tile row: its second vector reaches past the array's end
        {28, 28, 26, 10, 9},    // a run from mid-row to the row's end, at the array's end
        {28, 28, 12, 4, 3},     // a short run inside a row (a block's first or last tiles)
        {27, 27, 0, 0, 14},     // an odd width: the last tile's second column falls outside the plane
        {27, 27, 26, 0, 14},    // and an odd height: the last tile row has no second output row
        {56, 56, 54, 0, 28},    // a 56-wide row: two vectors of tiles, the second partial, at the array's end
        {56, 56, 20, 8, 24},    // the same mid-plane
        {5, 37, 4, 0, 19},      // one row of tiles of a short plane, odd in both directions
    };

    @Test
    void partialRunsMatchTheTransformInDoubleAndWriteNothingElse() {
        Random rng = new Random(5);
        for (int[] r : RUNS) {
            int outH = r[0], outW = r[1], oh = r[2], ow = r[3], len = r[4];
            int stride = ConvWinograd.TBS + L + 3, off = 7;
            float[] m = new float[off + 16 * stride + 2 * L];
            for (int i = 0; i < m.length; i++) m[i] = (float) rng.nextGaussian();
            float bias = (float) rng.nextGaussian();
            // two planes, the run in the second: the last plane's runs are the ones at the array's end
            int dst = outH * outW;
            float[] out = new float[2 * outH * outW];
            Arrays.fill(out, Float.NaN);
            ConvWinograd.transformOutputs(m, off, stride, len, bias, out, dst, outH, outW, oh, ow, new float[16 * L]);

            float[] expected = new float[out.length];
            Arrays.fill(expected, Float.NaN);
            for (int t = 0; t < len; t++) {
                double[] y = tile(m, off + t, stride, bias);
                for (int dy = 0; dy < 2; dy++) {
                    for (int dx = 0; dx < 2; dx++) {
                        int row = oh + dy, col = ow + 2 * t + dx;
                        if (row < outH && col < outW) expected[dst + row * outW + col] = (float) y[2 * dy + dx];
                    }
                }
            }
            String ctx = "run " + Arrays.toString(r);
            for (int i = 0; i < out.length; i++) {
                if (Float.isNaN(expected[i])) {
                    assertTrue(Float.isNaN(out[i]), ctx + ": element " + i + " written (" + out[i] + ") outside the run's tiles");
                } else {
                    assertEquals(expected[i], out[i], 1e-5f * (1 + Math.abs(expected[i])), ctx + ": element " + i);
                }
            }
        }
    }

    /** {@code Aᵀ M A + bias} of one tile, {@code Aᵀ = [1 1 1 0; 0 1 -1 -1]}, in double: y00, y01, y10, y11. */
    private static double[] tile(float[] m, int at, int stride, float bias) {
        double[][] mm = new double[4][4];
        for (int xi = 0; xi < 16; xi++) mm[xi / 4][xi % 4] = m[at + xi * stride];
        double[][] at2 = {{1, 1, 1, 0}, {0, 1, -1, -1}};
        double[] y = new double[4];
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 2; j++) {
                double s = bias;
                for (int a = 0; a < 4; a++) for (int b = 0; b < 4; b++) s += at2[i][a] * mm[a][b] * at2[j][b];
                y[2 * i + j] = s;
            }
        }
        return y;
    }
}
