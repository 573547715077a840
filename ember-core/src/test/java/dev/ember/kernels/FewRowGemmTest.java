package dev.ember.kernels;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ember.kernels.GemmCases.Case;
import dev.ember.kernels.GemmCases.Data;
import java.util.ArrayList;
import java.util.List;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Ember's own float32 GEMM kernels for few rows: GemmDot (A * B^T) and GemmBroadcast (A * B), against float64. */
class FewRowGemmTest {
    /**
     * The shared GEMM cases with A row-major, plus shapes that leave rows, columns and vector lanes
     * over (m not a multiple of the 4-row tile, n not of GemmBroadcast's 64 columns or of a vector,
     * k not of a vector), that go parallel, that cross GemmBroadcast's reduction blocks (k > 256,
     * with beta != 0 applied once only) and GemmDot's L2 blocks of A (k = 8195).
     */
    static List<Case> cases() {
        List<Case> cases = new ArrayList<>(GemmCases.all().stream().filter(c -> !c.transA() && c.alpha() != 0).toList());
        int[][] shapes = {{1, 2048, 512}, {3, 5, 100}, {6, 7, 1000}, {64, 520, 512}, {37, 41, 8195}, {257, 9, 64},
            {5, 200, 600}, {8, 129, 257}, {4, 64, 64}};
        for (int[] s : shapes) {
            for (boolean transB : new boolean[] {false, true}) {
                int m = s[0], n = s[1], k = s[2], ldb = transB ? k : n;
                cases.add(new Case(false, transB, m, n, k, 0, k, 0, ldb, 0, n, 1, 0));
                cases.add(new Case(false, transB, m, n, k, 3, k + 5, 7, ldb + 2, 5, n + 3, 0.75, -1.25));
            }
        }
        return cases;
    }

    @ParameterizedTest
    @MethodSource("cases")
    void matchesFloat64Reference(Case cs) {
        Data d = Data.of(cs);
        float[] a = d.af(), b = d.bf(), c = d.cf();
        double[] before = GemmCases.toDoubles(c);
        if (cs.transB()) {
            GemmDot.multiply(cs.m(), cs.n(), cs.k(), (float) cs.alpha(), a, cs.aOff(), cs.lda(),
                    b, cs.bOff(), cs.ldb(), (float) cs.beta(), c, cs.cOff(), cs.ldc());
        } else {
            GemmBroadcast.multiply(cs.m(), cs.n(), cs.k(), (float) cs.alpha(), a, cs.aOff(), cs.lda(),
                    b, cs.bOff(), cs.ldb(), (float) cs.beta(), c, cs.cOff(), cs.ldc());
        }
        GemmCases.check(cs, GemmCases.toDoubles(a), GemmCases.toDoubles(b), before, GemmCases.toDoubles(c), 1e-5);
    }

    @Test
    void gemmSendsOnlyTheShapesMeasuredFasterHere() {
        assumeTrue(FloatVector.SPECIES_PREFERRED.length() >= 16, "512-bit vectors");
        assertTrue(GemmDot.suits(64, 2048, 2048));
        assertTrue(GemmDot.suits(4, 1000, 512));
        assertFalse(GemmDot.suits(1024, 1024, 1024), "many rows: OpenBLAS is faster");
        assertFalse(GemmDot.suits(64, 1024, 256), "short dot products: OpenBLAS is faster");
        assertFalse(GemmDot.suits(64, 64, 16), "k shorter than the tile's vectors");
        assertFalse(GemmDot.suits(128, 100, 1024), "many rows, few columns: OpenBLAS is faster");
        assertFalse(GemmDot.suits(8, 10, 1000), "too small to split across cores");
        assertTrue(GemmBroadcast.suits(1, 2048, 2048));
        assertTrue(GemmBroadcast.suits(64, 2048, 2048));
        assertFalse(GemmBroadcast.suits(128, 1024, 1024), "from 128 rows on, OpenBLAS");
        assertFalse(GemmBroadcast.suits(64, 1024, 256), "short reductions: OpenBLAS is faster");
        assertFalse(GemmBroadcast.suits(1, 32, 2048), "narrower than one tile");
        assertFalse(GemmBroadcast.suits(64, 392, 576), "an im2col convolution's narrow product: OpenBLAS is faster");
    }

    /** Through Gemm's dispatch (a shape both kernels take), both layouts, with C's old contents NaN (beta == 0 must not read them). */
    @Test
    void gemmDispatchComputesTheProduct() {
        for (boolean transB : new boolean[] {false, true}) {
            int m = 2, n = 512, k = 1024, ldb = transB ? k : n;
            Case cs = new Case(false, transB, m, n, k, 0, k, 0, ldb, 0, n, 1, 0);
            assertTrue(!FloatVector.SPECIES_PREFERRED.equals(FloatVector.SPECIES_512)
                    || (transB ? GemmDot.suits(m, n, k) : GemmBroadcast.suits(m, n, k)), "the shape reaches Ember's kernel");
            Data d = Data.of(cs);
            float[] a = d.af(), b = d.bf(), c = d.cf();
            double[] before = GemmCases.toDoubles(c);
            Gemm.multiply(m, n, k, 1, new Gemm.Operand(a, 0, k, false), new Gemm.Operand(b, 0, ldb, transB), 0, c, 0, n);
            GemmCases.check(cs, GemmCases.toDoubles(a), GemmCases.toDoubles(b), before, GemmCases.toDoubles(c), 1e-5);
        }
    }
}
