package dev.ember.kernels;

import dev.ember.testing.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which native BLAS {@link Blas} runs ({@link NativeBlas}), and oneMKL ({@link Mkl}) as Ember loads it. */
class NativeBlasTest {
    @Test
    void oneMklOnIntelCpusOpenBlasElsewhereAndTheUsersChoiceAboveBoth() {
        assertTrue(NativeBlas.prefersMkl(null, "GenuineIntel", true));
        assertTrue(NativeBlas.prefersMkl(" ", "GenuineIntel", true));
        assertFalse(NativeBlas.prefersMkl(null, "AuthenticAMD", true));
        assertFalse(NativeBlas.prefersMkl(null, "", true));
        assertFalse(NativeBlas.prefersMkl(null, "GenuineIntel", false), "no mkl jar: OpenBLAS");
        assertFalse(NativeBlas.prefersMkl("openblas", "GenuineIntel", true));
        assertTrue(NativeBlas.prefersMkl("MKL", "AuthenticAMD", true));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NativeBlas.prefersMkl("atlas", "GenuineIntel", true));
        assertEquals("EMBER_BLAS=atlas: expected mkl or openblas", e.getMessage());
        // as the JVM reads the setting: reported once, and the machine's default taken
        String err = dev.ember.testing.Stdout.errOf(() -> assertTrue(NativeBlas.Choice.choose("atlas", "GenuineIntel", true)));
        assertEquals("ember: EMBER_BLAS=atlas: expected mkl or openblas; the default for this machine (mkl) is used.\n", err);
        assertFalse(NativeBlas.Choice.choose("atlas", "AuthenticAMD", true));
    }

    @Test
    void theVendorIsReadFromCpuinfoAndUnknownWhenItCannotBe(@TempDir Path dir) throws IOException {
        Path cpuinfo = dir.resolve("cpuinfo");
        Files.writeString(cpuinfo, "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n");
        assertEquals("AuthenticAMD", NativeBlas.cpuVendor(cpuinfo));
        assertEquals("", NativeBlas.cpuVendor(dir.resolve("missing")));
    }

    /**
     * oneMKL as Ember loads it: from the cache folder, with its idle OpenMP workers told to sleep at
     * once and the JVM's thread count; and, on an Intel CPU with no {@code EMBER_BLAS} (the suite sets
     * {@code openblas}, so this part runs from a plain JVM), the BLAS {@link Blas} runs.
     */
    @Test
    @EnabledOnOs(value = OS.LINUX, architectures = "amd64")
    void oneMklLoadsFromTheCacheWithItsSettings() throws Throwable {
        assertTrue(Mkl.LOADED, Mkl.DESCRIPTION);
        int threads = dev.ember.tuning.Machine.current().threads();
        if (System.getenv("MKL_NUM_THREADS") == null && System.getenv("OMP_NUM_THREADS") == null) {
            assertTrue(Mkl.DESCRIPTION.matches("oneMKL 20\\d\\d\\.\\d+.* \\(native, " + threads + " threads?, .*\\)"), Mkl.DESCRIPTION);
        }
        String cache = Path.of(System.getProperty("user.home"), ".cache", "ember").toString();
        List<String> mapped = Files.readAllLines(Path.of("/proc/self/maps"));
        for (String lib : List.of("libmkl_rt.so.2", "libmkl_core.so.2")) {
            assertTrue(mapped.stream().anyMatch(line -> line.contains(cache) && line.endsWith("/" + lib)), lib + " is not mapped from " + cache);
        }
        // not asserted: which OpenMP runtime oneMKL maps. Alone it takes its Intel layer and libiomp5.so from the cache;
        // in a JVM where libtorch (DJL, this suite's reference) loaded libgomp first, it takes its GNU layer
        // (libmkl_gnu_thread) on that libgomp instead of starting a second OpenMP runtime (checked by a probe, session 19)
        java.lang.foreign.Linker linker = java.lang.foreign.Linker.nativeLinker();
        var getenv = linker.downcallHandle(linker.defaultLookup().find("getenv").orElseThrow(),
                java.lang.foreign.FunctionDescriptor.of(java.lang.foreign.ValueLayout.ADDRESS, java.lang.foreign.ValueLayout.ADDRESS));
        try (var arena = java.lang.foreign.Arena.ofConfined()) {
            var value = (MemorySegment) getenv.invokeExact(arena.allocateFrom("KMP_BLOCKTIME"));
            String user = System.getenv("KMP_BLOCKTIME");
            assertEquals(user != null ? user : "0", value.reinterpret(64).getString(0));
        }
        boolean intel = "GenuineIntel".equals(NativeBlas.cpuVendor(Path.of("/proc/cpuinfo")));
        String choice = System.getProperty("ember.blas", System.getenv(NativeBlas.ENV));
        if (intel && choice == null) {
            assertEquals(Mkl.DESCRIPTION, Blas.backendDescription());
            assertEquals(dev.ember.tuning.KernelTuning.ONE_MKL, Blas.baseline());
        } else if ("openblas".equals(choice)) {
            assertEquals(OpenBlas.DESCRIPTION, Blas.backendDescription());
            assertEquals(dev.ember.tuning.KernelTuning.OPENBLAS, Blas.baseline());
        }
    }

    /**
     * The BLAS the kernel tuning is chosen for is the one that runs, whichever is asked about first.
     * A fresh JVM asking the tuning first (as {@code ember tune} and {@code doctor} do) once ran
     * OpenBLAS under oneMKL's tuning: the choice's class, initialized first, called into the class
     * that loads, which read the choice while it was still being made (false).
     */
    @Test
    @EnabledOnOs(value = OS.LINUX, architectures = "amd64")
    void aFreshJvmRunsTheBlasItsTuningIsFor(@TempDir Path dir) throws Exception {
        for (String choice : List.of("mkl", "openblas")) {
            ChildJvm.Run r = ChildJvm.main(BlasChoiceProbe.class).flags("-Dember.blas=" + choice).env("EMBER_TUNING", "defaults").run();
            List<String> lines = r.out().lines().toList();
            assertEquals(0, r.exit(), r.err());
            String baseline = choice.equals("mkl") ? dev.ember.tuning.KernelTuning.ONE_MKL : dev.ember.tuning.KernelTuning.OPENBLAS;
            assertEquals(baseline, lines.get(0));
            assertTrue(lines.get(1).startsWith(choice.equals("mkl") ? "oneMKL " : "OpenBLAS "), lines.get(1));
        }
    }

    /**
     * Both native BLASes, whichever {@link Blas} uses, against a float64 product, on the shapes and
     * layouts of {@link GemmCases}; and oneMKL's result does not depend on where the operands lie:
     * the same product with the arrays shifted by 0–15 elements (every 64-byte alignment) is the
     * same bit for bit, so a heap array the garbage collector moved gives the same answer.
     */
    @Test
    @EnabledOnOs(value = OS.LINUX, architectures = "amd64")
    void bothBlasesMatchFloat64AndOneMklIgnoresAlignment() throws Throwable {
        assertTrue(OpenBlas.SGEMM != null, OpenBlas.DESCRIPTION);
        List<MethodHandle> sgemms = Mkl.LOADED ? List.of(OpenBlas.SGEMM, Mkl.SGEMM) : List.of(OpenBlas.SGEMM);
        for (MethodHandle sgemm : sgemms) {
            for (GemmCases.Case cs : GemmCases.all()) {
                if (cs.m() == 0 || cs.n() == 0 || cs.k() == 0 || cs.alpha() == 0) continue;   // Blas keeps those from native code
                GemmCases.Data d = GemmCases.Data.of(cs);
                float[] a = d.af(), b = d.bf(), c = d.cf();
                double[] before = GemmCases.toDoubles(c);
                sgemm.invokeExact(101, cs.transA() ? 112 : 111, cs.transB() ? 112 : 111, cs.m(), cs.n(), cs.k(), (float) cs.alpha(),
                        MemorySegment.ofArray(a).asSlice(4L * cs.aOff()), cs.lda(), MemorySegment.ofArray(b).asSlice(4L * cs.bOff()), cs.ldb(),
                        (float) cs.beta(), MemorySegment.ofArray(c).asSlice(4L * cs.cOff()), cs.ldc());
                GemmCases.check(cs, GemmCases.toDoubles(a), GemmCases.toDoubles(b), before, GemmCases.toDoubles(c), 1e-4);
            }
        }
        if (!Mkl.LOADED) return;
        int m = 64, n = 300, k = 520;
        Random r = new Random(3);
        float[] a0 = new float[m * k], b0 = new float[k * n];
        for (int i = 0; i < a0.length; i++) a0[i] = (float) r.nextGaussian();
        for (int i = 0; i < b0.length; i++) b0[i] = (float) r.nextGaussian();
        float[] first = null;
        for (int shift = 0; shift < 16; shift++) {
            float[] a = new float[a0.length + shift], b = new float[b0.length + shift], c = new float[m * n + shift];
            System.arraycopy(a0, 0, a, shift, a0.length);
            System.arraycopy(b0, 0, b, shift, b0.length);
            call(Mkl.SGEMM, false, false, m, n, k, a, shift, k, b, shift, n, c, shift);
            float[] got = Arrays.copyOfRange(c, shift, shift + m * n);
            if (first == null) first = got;
            else assertArrayEquals(first, got, "operands shifted by " + shift + " elements");
        }
    }

    private static void call(MethodHandle sgemm, boolean ta, boolean tb, int m, int n, int k, float[] a, int aOff, int lda,
                             float[] b, int bOff, int ldb, float[] c, int cOff) throws Throwable {
        sgemm.invokeExact(101, ta ? 112 : 111, tb ? 112 : 111, m, n, k, 1f, MemorySegment.ofArray(a).asSlice(4L * aOff), lda,
                MemorySegment.ofArray(b).asSlice(4L * bOff), ldb, 0f, MemorySegment.ofArray(c).asSlice(4L * cOff), n);
    }
}
