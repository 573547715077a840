package dev.ember.kernels;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ember.kernels.GemmCases.Case;
import dev.ember.kernels.GemmCases.Data;
import dev.ember.tensor.Tensor;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class JavaGemmTest {
    static List<Case> cases() {
        return GemmCases.all();
    }

    @ParameterizedTest
    @MethodSource("cases")
    void sgemmMatchesFloat64Reference(Case cs) {
        Data d = Data.of(cs);
        float[] a = d.af(), b = d.bf(), c = d.cf();
        double[] before = GemmCases.toDoubles(c);
        JavaGemm.sgemm(cs.transA(), cs.transB(), cs.m(), cs.n(), cs.k(), (float) cs.alpha(), a, cs.aOff(), cs.lda(),
                b, cs.bOff(), cs.ldb(), (float) cs.beta(), c, cs.cOff(), cs.ldc());
        GemmCases.check(cs, GemmCases.toDoubles(a), GemmCases.toDoubles(b), before, GemmCases.toDoubles(c), 1e-4);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void dgemmMatchesFloat64Reference(Case cs) {
        Data d = Data.of(cs);
        double[] c = d.c().clone();
        JavaGemm.dgemm(cs.transA(), cs.transB(), cs.m(), cs.n(), cs.k(), cs.alpha(), d.a(), cs.aOff(), cs.lda(),
                d.b(), cs.bOff(), cs.ldb(), cs.beta(), c, cs.cOff(), cs.ldc());
        GemmCases.check(cs, d.a(), d.b(), d.c(), c, 1e-10);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void integerGemmsAreExact(Case cs) {
        if (cs.alpha() != Math.rint(cs.alpha()) || cs.beta() != Math.rint(cs.beta())) {
            return;
        }
        Random random = new Random(cs.toString().hashCode());
        long[] a = random.longs(Data.of(cs).a().length, -50, 50).toArray();
        long[] b = random.longs(Data.of(cs).b().length, -50, 50).toArray();
        long[] c = random.longs(Data.of(cs).c().length, -50, 50).toArray();
        long alpha = (long) cs.alpha(), beta = (long) cs.beta();
        long[] expected = c.clone();
        for (int i = 0; i < cs.m(); i++) {
            for (int j = 0; j < cs.n(); j++) {
                long sum = 0;
                for (int p = 0; p < cs.k(); p++) {
                    sum += a[cs.transA() ? cs.aOff() + p * cs.lda() + i : cs.aOff() + i * cs.lda() + p]
                            * b[cs.transB() ? cs.bOff() + j * cs.ldb() + p : cs.bOff() + p * cs.ldb() + j];
                }
                int ci = cs.cOff() + i * cs.ldc() + j;
                expected[ci] = alpha * sum + beta * c[ci];
            }
        }
        long[] cl = c.clone();
        JavaGemm.lgemm(cs.transA(), cs.transB(), cs.m(), cs.n(), cs.k(), alpha, a, cs.aOff(), cs.lda(),
                b, cs.bOff(), cs.ldb(), beta, cl, cs.cOff(), cs.ldc());
        assertArrayEquals(expected, cl, cs.toString());

        int[] ci = toInts(c);
        JavaGemm.igemm(cs.transA(), cs.transB(), cs.m(), cs.n(), cs.k(), (int) alpha, toInts(a), cs.aOff(), cs.lda(),
                toInts(b), cs.bOff(), cs.ldb(), (int) beta, ci, cs.cOff(), cs.ldc());
        assertArrayEquals(toInts(expected), ci, cs.toString());
    }

    @Test
    void igemmWrapsAroundOnOverflowLikeJavaArithmetic() {
        int[] c = {0};
        JavaGemm.igemm(false, false, 1, 1, 2, 1, new int[] {1 << 30, 1 << 30}, 0, 2, new int[] {2, 2}, 0, 1, 0, c, 0, 1);
        assertArrayEquals(new int[] {0}, c);
    }

    @Test
    void badArgumentsNameTheFunctionAndTheValue() {
        float[] a = new float[12], b = new float[12], c = new float[12];
        var e = assertThrows(IllegalArgumentException.class,
                () -> JavaGemm.sgemm(false, false, 3, 4, 4, 1, a, 0, 3, b, 0, 4, 0, c, 0, 4));
        assertTrue(e.getMessage().startsWith("sgemm: lda = 3 is less than the 4 columns of A"), e.getMessage());
        var l = assertThrows(IllegalArgumentException.class, () -> JavaGemm.lgemm(false, false, 2, 2, 2, 1,
                new long[4], 0, 2, new long[4], 0, 2, 0, new long[3], 0, 2));
        assertTrue(l.getMessage().startsWith("lgemm: C"), l.getMessage());
        assertTrue(l.getMessage().contains("needs 4 elements, but c.length = 3"), l.getMessage());
    }

    /**
     * Found by the differential fuzzer (seeds 1002872, 1009182, 1009232): a zero-size view can start
     * past its empty storage, and eager matmul and inductor's GEMM threw where ATen returns zeros.
     */
    @Test
    void emptyOperandsMayStartPastTheirArray() {
        float[] c = {7, 7, 7, 7};
        JavaGemm.sgemm(false, false, 2, 2, 0, 1, new float[0], 1, 0, new float[0], 1, 2, 0, c, 0, 2);
        assertArrayEquals(new float[] {0, 0, 0, 0}, c, "k = 0: C = beta * C");
        Tensor x = Tensor.randn(4, 0, 18).narrow(2, 1, 16), w = Tensor.randn(16, 32);   // A at offset 1 of an empty storage
        assertArrayEquals(new int[] {4, 0, 32}, x.matmul(w).shape());
        Tensor a = Tensor.randn(4, 0), b = Tensor.randn(0, 10).narrow(1, 1, 8);          // k = 0, B at offset 1
        assertArrayEquals(new float[32], a.matmul(b).toFloatArray());
    }

    private static int[] toInts(long[] v) {
        int[] r = new int[v.length];
        for (int i = 0; i < v.length; i++) {
            r[i] = (int) v[i];
        }
        return r;
    }
}
