package dev.ember.ops.kernels;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ember.ops.kernels.GemmCases.Case;
import dev.ember.ops.kernels.GemmCases.Data;
import dev.ember.tensor.DType;
import java.util.ArrayList;
import java.util.List;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class GemmDotTest {
    /**
     * A row-major times B^T: the shared GEMM cases of that form, plus shapes that leave rows, columns
     * and vector lanes over (m, n not multiples of the 4x4 tile, k not of the vector), that go
     * parallel, and a k long enough that A's rows are taken in several L2 blocks.
     */
    static List<Case> cases() {
        List<Case> cases = new ArrayList<>(GemmCases.all().stream().filter(c -> !c.transA() && c.transB()).toList());
        int[][] shapes = {{1, 2048, 512}, {3, 5, 100}, {6, 7, 1000}, {64, 520, 512}, {37, 41, 8195}, {257, 9, 64}};
        for (int[] s : shapes) {
            int m = s[0], n = s[1], k = s[2];
            cases.add(new Case(false, true, m, n, k, 0, k, 0, k, 0, n, 1, 0));
            cases.add(new Case(false, true, m, n, k, 3, k + 5, 7, k + 2, 5, n + 3, 0.75, -1.25));
        }
        return cases;
    }

    @ParameterizedTest
    @MethodSource("cases")
    void matchesFloat64Reference(Case cs) {
        if (cs.alpha() == 0) return;          // Gemm sends those to BLAS, which must not read A and B
        Data d = Data.of(cs);
        float[] a = d.af(), b = d.bf(), c = d.cf();
        double[] before = GemmCases.toDoubles(c);
        GemmDot.multiply(cs.m(), cs.n(), cs.k(), (float) cs.alpha(), a, cs.aOff(), cs.lda(),
                b, cs.bOff(), cs.ldb(), (float) cs.beta(), c, cs.cOff(), cs.ldc());
        GemmCases.check(cs, GemmCases.toDoubles(a), GemmCases.toDoubles(b), before, GemmCases.toDoubles(c), 1e-5);
    }

    @Test
    void gemmSendsFewRowLinearProductsHereOnly() {
        assumeTrue(FloatVector.SPECIES_PREFERRED.length() >= 16, "512-bit vectors");
        assertTrue(GemmDot.suits(64, 2048, 2048));
        assertTrue(GemmDot.suits(1, 1000, 512));
        assertFalse(GemmDot.suits(1024, 1024, 1024), "many rows: OpenBLAS is faster");
        assertFalse(GemmDot.suits(64, 1024, 256), "short dot products: OpenBLAS is faster");
        assertFalse(GemmDot.suits(64, 64, 16), "k shorter than the tile's vectors");
    }

    /** Through Gemm's dispatch, with C's old contents NaN (beta == 0 must not read them) and a NaN-free result. */
    @Test
    void gemmDispatchComputesTheProduct() {
        Case cs = new Case(false, true, 64, 48, 1024, 0, 1024, 0, 1024, 0, 48, 1, 0);
        Data d = Data.of(cs);
        float[] a = d.af(), b = d.bf(), c = d.cf();
        double[] before = GemmCases.toDoubles(c);
        Gemm.multiply(DType.FLOAT32, 64, 48, 1024, 1, new Gemm.Operand(a, 0, 1024, false), new Gemm.Operand(b, 0, 1024, true), 0, c, 0, 48);
        GemmCases.check(cs, GemmCases.toDoubles(a), GemmCases.toDoubles(b), before, GemmCases.toDoubles(c), 1e-5);
    }
}
