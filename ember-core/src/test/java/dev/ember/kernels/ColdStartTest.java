package dev.ember.kernels;

import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A cold Java GEMM kernel's products run on OpenBLAS while the kernel gets compiled; once hot it runs them itself. */
class ColdStartTest {
    @BeforeEach
    void cold() {
        assumeTrue(FloatVector.SPECIES_PREFERRED.length() >= 16 && Blas.nativeAvailable() && ColdStart.ENABLED,
                "512-bit vectors (the few-row kernels), OpenBLAS, and EMBER_COLD_START not set to java");
        GemmDot.TIER.resetForTests();
        GemmBroadcast.TIER.resetForTests();
    }

    @AfterEach
    void hotAgain() {
        // other tests in this JVM expect the kernels they name to run: leave them hot
        GemmDot.TIER.markHotForTests();
        GemmBroadcast.TIER.markHotForTests();
    }

    /** Gaussian floats from a seed (BlasThreadsTest's operands too). */
    static float[] random(int n, long seed) {
        Random r = new Random(seed);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = (float) r.nextGaussian();
        return x;
    }

    @Test
    void aColdKernelsProductIsOpenBlasesAndAHotKernelsItsOwn() {
        int m = 8, n = 1024, k = 512;
        assertTrue(GemmDot.suits(m, n, k) && GemmBroadcast.suits(m, n, k));
        float[] a = random(m * k, 1), bt = random(n * k, 2), b = random(k * n, 3);
        for (boolean dot : new boolean[] {true, false}) {
            ColdStart.Tier kernel = dot ? GemmDot.TIER : GemmBroadcast.TIER;
            float[] rhs = dot ? bt : b;
            int ldb = dot ? k : n;
            float[] viaGemm = new float[m * n], openBlas = new float[m * n], java = new float[m * n];
            Gemm.multiply(m, n, k, 1, new Gemm.Operand(a, 0, k, false), new Gemm.Operand(rhs, 0, ldb, dot), 0, viaGemm, 0, n);
            Blas.sgemmOnOneThread(false, dot, m, n, k, 1f, a, 0, k, rhs, 0, ldb, 0f, openBlas, 0, n);
            // the choice is made when the call starts, cold after the reset: whatever the warming thread does after it
            assertArrayEquals(openBlas, viaGemm, kernel + " cold: the product is OpenBLAS's on one thread, bit for bit");
            assertEquals(1, kernel.coldCalls());
            // hot as the tiers make it, by slices at compiled speed: marking it hot while it is still interpreted would compare
            // an interpreted run with a compiled one, which differ in the last bit (the JIT tiers' own rounding)
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!kernel.hot() && System.nanoTime() < deadline) kernel.exercise();
            assertTrue(kernel.hot(), kernel + " reached compiled speed");
            Gemm.multiply(m, n, k, 1, new Gemm.Operand(a, 0, k, false), new Gemm.Operand(rhs, 0, ldb, dot), 0, viaGemm, 0, n);
            if (dot) GemmDot.multiply(m, n, k, 1f, a, 0, k, rhs, 0, ldb, 0f, java, 0, n);
            else GemmBroadcast.multiply(m, n, k, 1f, a, 0, k, rhs, 0, ldb, 0f, java, 0, n);
            assertArrayEquals(java, viaGemm, kernel + " hot: the Java kernel's product, bit for bit");
        }
    }

    @Test
    void exercisingAColdKernelGetsItCompiledAndMarkedHot() {
        for (ColdStart.Tier kernel : new ColdStart.Tier[] {GemmDot.TIER, GemmBroadcast.TIER}) {
            long deadline = System.nanoTime() + 60_000_000_000L;
            int slices = 0;
            while (!kernel.hot() && System.nanoTime() < deadline) {
                kernel.exercise();
                slices++;
                Thread.onSpinWait();
            }
            assertTrue(kernel.hot(), kernel + " still not at compiled speed after " + slices + " cold products");
            assertEquals(slices, kernel.coldCalls(), "every cold product counted, whether or not it started a slice");
        }
    }
}
