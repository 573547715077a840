package dev.ember.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** GEMM test cases, their data, and a float64 reference to check any GEMM against. */
final class GemmCases {
    private GemmCases() {}

    /** Shapes (m, n, k): trivial, empty, skinny, and big enough to cross JavaGemm's tiles and go parallel. */
    private static final int[][] SHAPES = {
        {1, 1, 1}, {0, 3, 4}, {3, 0, 4}, {3, 4, 0}, {0, 0, 0}, {1, 7, 1}, {7, 1, 5}, {2, 3, 4},
        {100, 3, 7}, {3, 100, 7}, {5, 6, 300}, {17, 33, 65}, {67, 529, 260}, {130, 40, 513},
    };

    /**
     * One call: transposes, sizes, where each matrix sits in its array (offset, leading dimension,
     * padding after) and the scalars. beta == 0 cases start with C full of NaN, alpha == 0 cases
     * with A and B full of NaN, since BLAS must then not read them.
     */
    record Case(boolean transA, boolean transB, int m, int n, int k, int aOff, int lda, int bOff, int ldb,
                int cOff, int ldc, double alpha, double beta) {
        int aRows() { return transA ? k : m; }
        int aCols() { return transA ? m : k; }
        int bRows() { return transB ? n : k; }
        int bCols() { return transB ? k : n; }

        @Override public String toString() {
            return (transA ? "A^T" : "A") + "*" + (transB ? "B^T" : "B") + " m=" + m + " n=" + n + " k=" + k
                    + " off=" + aOff + "/" + bOff + "/" + cOff + " ld=" + lda + "/" + ldb + "/" + ldc
                    + " alpha=" + alpha + " beta=" + beta;
        }
    }

    static List<Case> all() {
        List<Case> cases = new ArrayList<>();
        for (int[] s : SHAPES) {
            for (int t = 0; t < 4; t++) {
                boolean ta = (t & 1) != 0, tb = (t & 2) != 0;
                int aCols = ta ? s[0] : s[2], bCols = tb ? s[2] : s[1], cCols = s[1];
                cases.add(new Case(ta, tb, s[0], s[1], s[2], 0, aCols, 0, bCols, 0, cCols, 1, 0));
                cases.add(new Case(ta, tb, s[0], s[1], s[2], 3, aCols + 5, 7, bCols + 2, 5, cCols + 3, 0.75, -1.25));
                if (t == 0) {
                    cases.add(new Case(ta, tb, s[0], s[1], s[2], 1, aCols + 1, 2, bCols, 0, cCols + 1, 0, 2));
                    cases.add(new Case(ta, tb, s[0], s[1], s[2], 0, aCols, 0, bCols, 0, cCols, -2, 1));
                }
            }
        }
        return cases;
    }

    /** The three arrays of a case, in float64, filled with small random values (or NaN, see {@link Case}). */
    record Data(double[] a, double[] b, double[] c) {
        static Data of(Case cs) {
            Random random = new Random(cs.toString().hashCode());
            double[] a = values(random, cs.aOff() + cs.aRows() * cs.lda() + 4, cs.alpha() == 0);
            double[] b = values(random, cs.bOff() + cs.bRows() * cs.ldb() + 4, cs.alpha() == 0);
            double[] c = values(random, cs.cOff() + cs.m() * cs.ldc() + 4, cs.beta() == 0);
            return new Data(a, b, c);
        }

        private static double[] values(Random random, int length, boolean nan) {
            double[] v = new double[length];
            for (int i = 0; i < length; i++) {
                v[i] = nan ? Double.NaN : random.nextDouble(-1, 1);
            }
            return v;
        }

        float[] af() { return toFloats(a); }
        float[] bf() { return toFloats(b); }
        float[] cf() { return toFloats(c); }

        private static float[] toFloats(double[] d) {
            float[] f = new float[d.length];
            for (int i = 0; i < d.length; i++) {
                f[i] = (float) d[i];
            }
            return f;
        }
    }

    /**
     * Checks {@code got} (C after the call) against the float64 product of the inputs: each element
     * within {@code relTol} of its own scale (sum of |alpha * a * b| plus |beta * c|), every element
     * outside the matrix untouched.
     */
    static void check(Case cs, double[] a, double[] b, double[] cBefore, double[] got, double relTol) {
        assertEquals(cBefore.length, got.length);
        boolean[] inside = new boolean[got.length];
        for (int i = 0; i < cs.m(); i++) {
            for (int j = 0; j < cs.n(); j++) {
                int ci = cs.cOff() + i * cs.ldc() + j;
                inside[ci] = true;
                double sum = 0, scale = 0;
                if (cs.alpha() != 0) {
                    for (int p = 0; p < cs.k(); p++) {
                        double x = a[cs.transA() ? cs.aOff() + p * cs.lda() + i : cs.aOff() + i * cs.lda() + p];
                        double y = b[cs.transB() ? cs.bOff() + j * cs.ldb() + p : cs.bOff() + p * cs.ldb() + j];
                        sum += x * y;
                        scale += Math.abs(x * y);
                    }
                }
                double expected = cs.alpha() * sum + (cs.beta() == 0 ? 0 : cs.beta() * cBefore[ci]);
                scale = Math.abs(cs.alpha()) * scale + (cs.beta() == 0 ? 0 : Math.abs(cs.beta() * cBefore[ci]));
                if (!(Math.abs(got[ci] - expected) <= relTol * scale + Double.MIN_NORMAL)) {
                    fail(cs + ": C[" + i + "][" + j + "] = " + got[ci] + ", expected " + expected
                            + " (tolerance " + relTol * scale + ")");
                }
            }
        }
        for (int x = 0; x < got.length; x++) {
            if (!inside[x] && Double.doubleToRawLongBits(got[x]) != Double.doubleToRawLongBits(cBefore[x])) {
                fail(cs + ": element " + x + " of c is outside C but changed from " + cBefore[x] + " to " + got[x]);
            }
        }
    }

    static double[] toDoubles(float[] f) {
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) {
            d[i] = f[i];
        }
        return d;
    }
}
