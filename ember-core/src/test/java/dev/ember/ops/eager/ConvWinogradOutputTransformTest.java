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
 * The output transforms of F(2x2, 3x3) ({@link ConvWinograd#transformOutputs}) and F(4x4, 3x3)
 * ({@link ConvWinograd4#transformOutputs}) on runs of tiles that end
 * inside a pair of vectors (a 28-wide row's 14 tiles, an odd width's half tile, a run starting
 * mid-row) both away from the output array's end (masked stores) and at it (whole vectors through
 * the scratch buffer, then a copy): each element of the run's tiles is {@code Aᵀ M A + bias}
 * computed in double, and nothing outside them is written. Until session 39 these stores went
 * through a method taking the vector, which C2 left out of line.
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
    void f2PartialRunsMatchTheTransformInDoubleAndWriteNothingElse() {
        check(2, RUNS, new Random(5));
    }

    /** {outH, outW, first output row, first output column, tiles in the run}, F(4x4)'s tiles. */
    private static final int[][] RUNS4 = {
        {56, 56, 0, 0, 14},     // a 56-wide row: three and a half vectors
        {56, 56, 52, 0, 14},    // the plane's last tile row, at the array's end
        {56, 56, 52, 20, 9},    // from mid-row to the end, at the array's end
        {56, 56, 8, 4, 5},      // a short run inside a row
        {30, 30, 28, 0, 8},     // the last tile: two of its rows and two of its columns outside the plane
        {30, 30, 12, 24, 2},
        {61, 70, 60, 8, 16},    // a whole vector of tiles from column 8: its fourth vector partial, one row left
    };

    @Test
    void f4PartialRunsMatchTheTransformInDoubleAndWriteNothingElse() {
        check(4, RUNS4, new Random(6));
    }

    private static void check(int side, int[][] runs, Random rng) {
        int positions = (side + 2) * (side + 2);
        for (int[] r : runs) {
            int outH = r[0], outW = r[1], oh = r[2], ow = r[3], len = r[4];
            int stride = ConvWinograd.TBS + L + 3, off = 7;
            float[] m = new float[off + positions * stride + 2 * L];
            for (int i = 0; i < m.length; i++) m[i] = (float) rng.nextGaussian();
            float bias = (float) rng.nextGaussian();
            // two planes, the run in the second: the last plane's runs are the ones at the array's end
            int dst = outH * outW;
            float[] out = new float[2 * outH * outW];
            Arrays.fill(out, Float.NaN);
            float[] scratch = new float[positions * L];
            if (side == 2) ConvWinograd.transformOutputs(m, off, stride, len, bias, out, dst, outH, outW, oh, ow, scratch);
            else ConvWinograd4.transformOutputs(m, off, stride, len, bias, out, dst, outH, outW, oh, ow, scratch);

            float[] expected = new float[out.length];
            Arrays.fill(expected, Float.NaN);
            for (int t = 0; t < len; t++) {
                double[][] y = tile(side, m, off + t, stride, bias);
                for (int dy = 0; dy < side; dy++) {
                    for (int dx = 0; dx < side; dx++) {
                        int row = oh + dy, col = ow + side * t + dx;
                        if (row < outH && col < outW) expected[dst + row * outW + col] = (float) y[dy][dx];
                    }
                }
            }
            String ctx = "F(" + side + "x" + side + ") run " + Arrays.toString(r);
            for (int i = 0; i < out.length; i++) {
                if (Float.isNaN(expected[i])) {
                    assertTrue(Float.isNaN(out[i]), ctx + ": element " + i + " written (" + out[i] + ") outside the run's tiles");
                } else {
                    assertEquals(expected[i], out[i], 2e-5f * (1 + Math.abs(expected[i])), ctx + ": element " + i);
                }
            }
        }
    }

    /** {@code Aᵀ M A + bias} of one tile in double: F(2x2)'s {@code Aᵀ} (2x4) or F(4x4)'s (4x6). */
    private static double[][] tile(int side, float[] m, int at, int stride, float bias) {
        int n = side + 2;
        double[][] mm = new double[n][n];
        for (int xi = 0; xi < n * n; xi++) mm[xi / n][xi % n] = m[at + xi * stride];
        double[][] at2 = side == 2 ? new double[][] {{1, 1, 1, 0}, {0, 1, -1, -1}}
                : new double[][] {{1, 1, 1, 1, 1, 0}, {0, 1.5, -1.5, 2 / 3.0, -2 / 3.0, 0}, {0, 2.25, 2.25, 4 / 9.0, 4 / 9.0, 0},
                        {0, 3.375, -3.375, 8 / 27.0, -8 / 27.0, 1}};
        double[][] y = new double[side][side];
        for (int i = 0; i < side; i++) {
            for (int j = 0; j < side; j++) {
                double s = bias;
                for (int a = 0; a < n; a++) for (int b = 0; b < n; b++) s += at2[i][a] * mm[a][b] * at2[j][b];
                y[i][j] = s;
            }
        }
        return y;
    }
}
