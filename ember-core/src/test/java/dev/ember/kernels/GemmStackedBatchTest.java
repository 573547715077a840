package dev.ember.kernels;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A batch of products that share B and whose A row blocks follow one another (a linear layer on a
 * [batch, seq, features] input) runs as one tall product; any other batch does not; and both give
 * the float64 product.
 */
class GemmStackedBatchTest {
    @Test
    void onlyASharedBAndRowBlocksThatFollowOneAnotherStack() {
        int m = 5, k = 7;
        Gemm.Operand rowMajor = new Gemm.Operand(new float[1], 0, k, false);
        assertTrue(Gemm.stacksIntoOneProduct(3, m, rowMajor, i -> i * m * k, i -> 0));
        assertTrue(Gemm.stacksIntoOneProduct(3, m, rowMajor, i -> 4 + i * m * k, i -> 9), "offsets of A and B");
        assertFalse(Gemm.stacksIntoOneProduct(3, m, rowMajor, i -> i * m * k, i -> i * k * 11), "a B per product");
        assertFalse(Gemm.stacksIntoOneProduct(3, m, rowMajor, i -> i * (m * k + 1), i -> 0), "a gap between A's blocks");
        assertFalse(Gemm.stacksIntoOneProduct(3, m, new Gemm.Operand(new float[1], 0, m, true), i -> i * m * k, i -> 0), "A transposed");
        assertFalse(Gemm.stacksIntoOneProduct(3, 0, rowMajor, i -> 0, i -> 0), "no rows");
    }

    @Test
    void stackedAndUnstackedBatchesGiveTheFloat64Product() {
        int batches = 4, m = 33, n = 70, k = 40, lda = k + 3;   // A's rows padded: blocks still follow one another
        Random r = new Random(5);
        float[] a = new float[batches * m * lda], b = new float[k * n];
        for (int i = 0; i < a.length; i++) a[i] = (float) r.nextGaussian();
        for (int i = 0; i < b.length; i++) b[i] = (float) r.nextGaussian();
        for (boolean shared : new boolean[] {true, false}) {
            float[] bb = shared ? b : new float[batches * k * n];
            if (!shared) for (int i = 0; i < batches; i++) System.arraycopy(b, 0, bb, i * k * n, k * n);
            float[] c = new float[batches * m * n];
            Gemm.multiplyBatched(batches, m, n, k, 1, new Gemm.Operand(a, 0, lda, false), i -> i * m * lda,
                    new Gemm.Operand(bb, 0, n, false), shared ? i -> 0 : i -> i * k * n, 0, c, 0, n);
            for (int i = 0; i < batches * m; i++) {
                for (int j = 0; j < n; j++) {
                    double want = 0, scale = 0;
                    for (int p = 0; p < k; p++) {
                        want += (double) a[i * lda + p] * b[p * n + j];
                        scale += Math.abs((double) a[i * lda + p] * b[p * n + j]);
                    }
                    assertEquals(want, c[i * n + j], 1e-5 * scale + 1e-6, (shared ? "shared B" : "a B per product") + " row " + i + " column " + j);
                }
            }
        }
    }
}
