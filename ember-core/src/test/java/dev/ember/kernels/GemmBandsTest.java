package dev.ember.kernels;

import dev.ember.ops.eager.GemmBatched;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** How a batch of products shares the cores: whole, in row bands, or one after another. */
class GemmBandsTest {
    /** {@link Gemm#threadsItself} of a float32/float64 product (OpenBLAS threads it) and of an integer one. */
    private static final boolean FLOAT = true, INTEGER = false;

    @Test
    void mediumProductsAreCutIntoBandsThatOpenBlasRunsOnOneThread() {
        assertEquals(32, Gemm.bandRows(FLOAT, 128, 128, 64), "128x128x64: 32 rows x 8192 = the single-thread limit");
        assertEquals(64, Gemm.bandRows(FLOAT, 128, 64, 64));
        assertEquals(40, Gemm.bandRows(FLOAT, 40, 64, 64), "small enough for one thread whole");
        assertEquals(256, Gemm.bandRows(FLOAT, 256, 256, 64), "16-row bands would be too thin: OpenBLAS threads each");
        assertEquals(128, Gemm.bandRows(INTEGER, 128, 128, 64), "integer kernels are single-threaded: whole products side by side");
        assertEquals(1, Gemm.bandRows(FLOAT, 0, 128, 64));
    }

    @Test
    void everyBandLandsInItsRowsOfItsBatch() {
        int batches = 3, m = 70, n = 128, k = 64;   // bands of 32, 32 and 6 rows
        java.util.Random rng = new java.util.Random(3);
        float[] a = new float[batches * m * k], b = new float[batches * k * n], c = new float[batches * m * n];
        for (int i = 0; i < a.length; i++) a[i] = rng.nextFloat() - 0.5f;
        for (int i = 0; i < b.length; i++) b[i] = rng.nextFloat() - 0.5f;
        GemmBatched.strided(false, false, batches, m, n, k, a, 0, m * k, k, b, 0, k * n, n, c, 0, n);
        float[] want = new float[c.length];
        for (int i = 0; i < batches; i++) {
            for (int r = 0; r < m; r++) {
                for (int j = 0; j < n; j++) {
                    double sum = 0;
                    for (int p = 0; p < k; p++) sum += (double) a[i * m * k + r * k + p] * b[i * k * n + p * n + j];
                    want[i * m * n + r * n + j] = (float) sum;
                }
            }
        }
        assertArrayEquals(want, c, 1e-4f);
    }
}
