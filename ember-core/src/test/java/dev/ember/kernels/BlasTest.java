package dev.ember.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ember.kernels.GemmCases.Case;
import dev.ember.kernels.GemmCases.Data;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class BlasTest {
    static List<Case> cases() {
        return GemmCases.all();
    }

    @Test
    @EnabledOnOs(value = OS.LINUX, architectures = "amd64")
    void openBlasLoadsOnLinuxX86() {
        // OpenBLAS itself, whichever BLAS NativeBlas chose for Blas (the fallback must always load)
        assertTrue(OpenBlas.SGEMM != null, OpenBlas.DESCRIPTION);
        String description = OpenBlas.DESCRIPTION;
        assertTrue(description.matches("OpenBLAS 0\\.3\\.\\d+ \\(native, \\w+ kernels( as OPENBLAS_CORETYPE=\\S+ in the environment asks)?, \\d+ threads?, idle workers sleep after 2\\^\\d+ cycles.*\\)"), description);
        int cores = Runtime.getRuntime().availableProcessors();
        assertTrue(description.contains(", " + cores + (cores == 1 ? " thread," : " threads,")), description);
    }

    /** Ember shortens OpenBLAS's idle spinning in the process environment before the library reads it, unless the user chose a value. */
    @Test
    @EnabledOnOs(value = OS.LINUX, architectures = "amd64")
    void theIdleSpinningLimitIsInTheEnvironmentOpenBlasRead() throws Throwable {
        assertTrue(OpenBlas.SGEMM != null, OpenBlas.DESCRIPTION);
        java.lang.foreign.Linker linker = java.lang.foreign.Linker.nativeLinker();
        var getenv = linker.downcallHandle(linker.defaultLookup().find("getenv").orElseThrow(),
                java.lang.foreign.FunctionDescriptor.of(java.lang.foreign.ValueLayout.ADDRESS, java.lang.foreign.ValueLayout.ADDRESS));
        try (var arena = java.lang.foreign.Arena.ofConfined()) {
            var value = (java.lang.foreign.MemorySegment) getenv.invokeExact(arena.allocateFrom("OPENBLAS_THREAD_TIMEOUT"));
            String user = System.getenv("OPENBLAS_THREAD_TIMEOUT");
            String expected = user != null ? user : String.valueOf(OpenBlas.THREAD_TIMEOUT_LOG2);
            assertTrue(!value.equals(java.lang.foreign.MemorySegment.NULL), "OPENBLAS_THREAD_TIMEOUT not set");
            org.junit.jupiter.api.Assertions.assertEquals(expected, value.reinterpret(64).getString(0));
        }
    }

    /** The Fortran runtime must come from the jar: a fresh machine has none installed. */
    @Test
    @EnabledOnOs(value = OS.LINUX, architectures = "amd64")
    void openBlasAndItsFortranRuntimeAreMappedFromTheCache() throws IOException {
        assertTrue(OpenBlas.SGEMM != null, OpenBlas.DESCRIPTION);
        String cache = Path.of(System.getProperty("user.home"), ".cache", "ember").toString();
        List<String> mapped = Files.readAllLines(Path.of("/proc/self/maps"));
        for (String lib : List.of("libopenblas.so.0", "libgfortran.so.5", "libquadmath.so.0")) {
            assertTrue(mapped.stream().anyMatch(line -> line.contains(cache) && line.endsWith("/" + lib)),
                    lib + " is not mapped from " + cache);
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void sgemmMatchesFloat64Reference(Case cs) {
        Data d = Data.of(cs);
        float[] a = d.af(), b = d.bf(), c = d.cf();
        double[] before = GemmCases.toDoubles(c);
        Blas.sgemm(cs.transA(), cs.transB(), cs.m(), cs.n(), cs.k(), (float) cs.alpha(), a, cs.aOff(), cs.lda(),
                b, cs.bOff(), cs.ldb(), (float) cs.beta(), c, cs.cOff(), cs.ldc());
        GemmCases.check(cs, GemmCases.toDoubles(a), GemmCases.toDoubles(b), before, GemmCases.toDoubles(c), 1e-4);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void dgemmMatchesFloat64Reference(Case cs) {
        Data d = Data.of(cs);
        double[] c = d.c().clone();
        Blas.dgemm(cs.transA(), cs.transB(), cs.m(), cs.n(), cs.k(), cs.alpha(), d.a(), cs.aOff(), cs.lda(),
                d.b(), cs.bOff(), cs.ldb(), cs.beta(), c, cs.cOff(), cs.ldc());
        GemmCases.check(cs, d.a(), d.b(), d.c(), c, 1e-10);
    }

    @Test
    void sgemmRejectsBadArgumentsBeforeNativeCode() {
        float[] a = new float[12], b = new float[20], c = new float[15];
        // A 3x4 (lda 4), B 4x5 (ldb 5), C 3x5 (ldc 5): a valid call, then one bad value at a time.
        Blas.sgemm(false, false, 3, 5, 4, 1, a, 0, 4, b, 0, 5, 0, c, 0, 5);
        assertBad("sgemm: m = -1 must be >= 0", () -> Blas.sgemm(false, false, -1, 5, 4, 1, a, 0, 4, b, 0, 5, 0, c, 0, 5));
        assertBad("sgemm: k = -4 must be >= 0", () -> Blas.sgemm(false, false, 3, 5, -4, 1, a, 0, 4, b, 0, 5, 0, c, 0, 5));
        assertBad("sgemm: lda = 3 is less than the 4 columns of A (stored m x k = 3 x 4, transA = false)",
                () -> Blas.sgemm(false, false, 3, 5, 4, 1, a, 0, 3, b, 0, 5, 0, c, 0, 5));
        assertBad("sgemm: ldb = 4 is less than the 5 columns of B",
                () -> Blas.sgemm(false, false, 3, 5, 4, 1, a, 0, 4, b, 0, 4, 0, c, 0, 5));
        assertBad("sgemm: lda = 4 is less than the 12 columns of A (stored k x m = 4 x 12, transA = true)",
                () -> Blas.sgemm(true, false, 12, 5, 4, 1, a, 0, 4, b, 0, 5, 0, new float[60], 0, 5));
        assertBad("sgemm: A (stored m x k = 3 x 4, transA = false) with lda = 4 from offset 1 needs 13 elements,"
                + " but a.length = 12", () -> Blas.sgemm(false, false, 3, 5, 4, 1, a, 1, 4, b, 0, 5, 0, c, 0, 5));
        assertBad("sgemm: C (stored m x n = 3 x 5) with ldc = 6 from offset 0 needs 17 elements, but c.length = 15",
                () -> Blas.sgemm(false, false, 3, 5, 4, 1, a, 0, 4, b, 0, 5, 0, c, 0, 6));
        assertBad("sgemm: b offset -1 is outside b.length = 20",
                () -> Blas.sgemm(false, false, 3, 5, 4, 1, a, 0, 4, b, -1, 5, 0, c, 0, 5));
        assertBad("sgemm: C (elements 0..14) overlaps B (elements 0..19) in the same array",
                () -> Blas.sgemm(false, false, 3, 5, 4, 1, a, 0, 4, b, 0, 5, 0, b, 0, 5));
        var npe = assertThrows(NullPointerException.class,
                () -> Blas.sgemm(false, false, 3, 5, 4, 1, null, 0, 4, b, 0, 5, 0, c, 0, 5));
        assertEquals("sgemm: a is null", npe.getMessage());
    }

    @Test
    void dgemmRejectsBadArgumentsBeforeNativeCode() {
        double[] a = new double[12], b = new double[20], c = new double[15];
        assertBad("dgemm: n = -5 must be >= 0",
                () -> Blas.dgemm(false, false, 3, -5, 4, 1, a, 0, 4, b, 0, 5, 0, c, 0, 5));
        assertBad("dgemm: B (stored n x k = 5 x 4, transB = true) with ldb = 4 from offset 8 needs 28 elements,"
                + " but b.length = 20", () -> Blas.dgemm(false, true, 3, 5, 4, 1, a, 0, 4, b, 8, 4, 0, c, 0, 5));
    }

    @Test
    void emptyProductScalesCByBeta() {
        float[] c = {1, 2, 3, 4};
        Blas.sgemm(false, false, 2, 2, 0, 1, new float[0], 0, 0, new float[0], 0, 2, 3, c, 0, 2);
        org.junit.jupiter.api.Assertions.assertArrayEquals(new float[] {3, 6, 9, 12}, c);
    }

    private static void assertBad(String messageStart, Executable call) {
        var e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().startsWith(messageStart), () -> "message: " + e.getMessage());
    }
}
