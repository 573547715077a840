package dev.ember.kernels;

import dev.ember.tuning.Machine;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * OpenBLAS's cblas_sgemm and cblas_dgemm for {@link Blas} (when {@link NativeBlas} chooses it), loaded on first use. OpenBLAS comes from
 * the {@code org.bytedeco:openblas:linux-x86_64} jar, without JavaCPP: the library and its GCC
 * runtime (libgfortran, libquadmath, libgcc_s) are extracted to
 * {@code ~/.cache/ember/openblas-<version>/} and loaded through the FFM API. Heap arrays go to
 * native code without copies through critical downcalls. If loading fails the handles are null
 * and {@link #DESCRIPTION} says why.
 */
final class OpenBlas {
    private OpenBlas() {}

    private static final String JAR_DIR = "/org/bytedeco/openblas/linux-x86_64/";

    /** Static finals, so that the JIT treats the handles as constants; null when OpenBLAS did not load. */
    static final MethodHandle SGEMM;
    static final MethodHandle DGEMM;
    /**
     * {@code openblas_set_num_threads(int)}, when Ember chose the thread count (null when the user
     * set {@code OPENBLAS_NUM_THREADS}: theirs is kept); {@link BlasThreads} lowers it while Ember's kernels warm.
     */
    static final MethodHandle SET_THREADS;
    /** {@code openblas_get_num_threads()}: the count the library runs products with now (null when it did not load). */
    static final MethodHandle GET_THREADS;
    static final String DESCRIPTION;

    static {
        Loaded loaded = null;
        String description;
        try {
            loaded = load();
            description = loaded.description();
        } catch (IOException | RuntimeException | LinkageError e) {
            description = "pure Java (OpenBLAS unavailable: " + e + ")";
        }
        SGEMM = loaded == null ? null : loaded.sgemm();
        DGEMM = loaded == null ? null : loaded.dgemm();
        SET_THREADS = loaded == null ? null : loaded.setThreads();
        GET_THREADS = loaded == null ? null : loaded.getThreads();
        DESCRIPTION = description;
    }

    private record Loaded(MethodHandle sgemm, MethodHandle dgemm, MethodHandle setThreads, MethodHandle getThreads, String description) {}

    private static Loaded load() throws IOException {
        String os = System.getProperty("os.name");
        String arch = System.getProperty("os.arch");
        if (!os.startsWith("Linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new UnsupportedOperationException("no bundled OpenBLAS for " + os + " " + arch
                    + "; Ember ships it for linux-x86_64 only");
        }
        if (OpenBlas.class.getResource(JAR_DIR + "libopenblas.so.0") == null) {
            throw new FileNotFoundException("org.bytedeco:openblas:linux-x86_64 is not on the classpath (no "
                    + JAR_DIR + "libopenblas.so.0)");
        }
        Path dir = Path.of(System.getProperty("user.home"), ".cache", "ember", "openblas-" + NativeLibraries.jarVersion("openblas"));
        // Dependencies first, so that the dynamic linker finds them by soname when libopenblas asks.
        // libgcc_s is part of every glibc system and must not be duplicated; the Fortran runtime is
        // taken from the jar because it must match the compiler that built OpenBLAS.
        try {
            SymbolLookup.libraryLookup("libgcc_s.so.1", Arena.global());
        } catch (IllegalArgumentException notInstalled) {
            NativeLibraries.open(extract("libgcc_s.so.1", dir));
        }
        NativeLibraries.open(extract("libquadmath.so.0", dir));
        NativeLibraries.open(extract("libgfortran.so.5", dir));
        NativeLibraries.setenvUnlessSet("OPENBLAS_THREAD_TIMEOUT", String.valueOf(THREAD_TIMEOUT_LOG2));
        SymbolLookup openblas = NativeLibraries.open(extract("libopenblas.so.0", dir));

        Linker linker = Linker.nativeLinker();
        MethodHandle sgemm = NativeLibraries.cblasGemm(openblas, "libopenblas.so.0", false);
        MethodHandle dgemm = NativeLibraries.cblasGemm(openblas, "libopenblas.so.0", true);
        MethodHandle setThreads = setThreadCount(linker, openblas);
        MethodHandle getThreads = openblas.find("openblas_get_num_threads").map(f -> linker.downcallHandle(f, FunctionDescriptor.of(JAVA_INT))).orElse(null);
        return new Loaded(sgemm, dgemm, setThreads, getThreads, describe(linker, openblas));
    }

    /**
     * How long, as a power of two of CPU cycles, an idle OpenBLAS worker spins before it sleeps.
     * OpenBLAS's default, 2^28 (~0.1 s), keeps its workers spinning through the Java kernels that
     * run between two GEMMs, where they take the cores from Ember's own threads: a transformer
     * encoder layer ran 12.2 ms with the default and 10.7 ms with this (2^14 cycles, a few µs),
     * with no GEMM slower. OpenBLAS reads it from the environment when it loads.
     */
    static final int THREAD_TIMEOUT_LOG2 = 14;

    /**
     * OpenBLAS sizes its thread pool from the CPUs it sees, which in a container can be more than
     * the JVM may use; so use the JVM's count, unless the user chose one with OPENBLAS_NUM_THREADS.
     */
    private static MethodHandle setThreadCount(Linker linker, SymbolLookup openblas) {
        var set = openblas.find("openblas_set_num_threads");
        if (set.isEmpty() || System.getenv("OPENBLAS_NUM_THREADS") != null) {
            return null;
        }
        MethodHandle handle = linker.downcallHandle(set.get(), FunctionDescriptor.ofVoid(JAVA_INT));
        try {
            handle.invokeExact(Machine.current().threads());
        } catch (Throwable t) {
            throw new IllegalStateException("openblas_set_num_threads failed", t);
        }
        return handle;
    }

    /**
     * "OpenBLAS 0.3.30 (native, Cooperlake kernels, 2 threads, idle workers sleep after 2^14 cycles)", from what the library
     * says of itself ("Haswell kernels as OPENBLAS_CORETYPE=Haswell in the environment asks" when the environment chose them).
     */
    private static String describe(Linker linker, SymbolLookup openblas) throws IOException {
        String version = openblas.find("openblas_get_config")
                .map(f -> cString(linker, f).split(" "))
                .filter(words -> words.length >= 2)
                .map(words -> words[0] + " " + words[1])
                .orElse("OpenBLAS " + NativeLibraries.jarVersion("openblas"));
        String kernels = openblas.find("openblas_get_corename")
                .map(f -> ", " + cString(linker, f) + " kernels")
                .orElse("");
        String threads = "";
        var get = openblas.find("openblas_get_num_threads");
        if (get.isPresent()) {
            try {
                int count = (int) linker.downcallHandle(get.get(), FunctionDescriptor.of(JAVA_INT)).invokeExact();
                threads = ", " + count + (count == 1 ? " thread" : " threads");
            } catch (Throwable t) {
                throw new IllegalStateException("openblas_get_num_threads failed", t);
            }
        }
        String user = System.getenv("OPENBLAS_THREAD_TIMEOUT");
        String idle = ", idle workers sleep after 2^" + (user != null ? user + " cycles (OPENBLAS_THREAD_TIMEOUT)" : THREAD_TIMEOUT_LOG2 + " cycles");
        return version + " (native" + kernels + chosenBy(System.getenv("OPENBLAS_CORETYPE")) + threads + idle + ")";
    }

    /**
     * Who chose the kernels: OpenBLAS from the CPU, or the environment's {@code OPENBLAS_CORETYPE},
     * which OpenBLAS obeys even where the CPU has wider vectors (a host that sets Haswell's AVX2
     * kernels on an AVX-512 CPU ran the encoder layer's GEMMs at two thirds of the speed of the
     * kernels OpenBLAS picks itself: docs/tuning.md).
     */
    static String chosenBy(String coreType) {
        return coreType == null || coreType.isBlank() ? "" : " as OPENBLAS_CORETYPE=" + coreType.strip() + " in the environment asks";
    }

    private static String cString(Linker linker, MemorySegment function) {
        try {
            MemorySegment s = (MemorySegment) linker.downcallHandle(function, FunctionDescriptor.of(ADDRESS)).invokeExact();
            return s.reinterpret(Long.MAX_VALUE).getString(0).strip();
        } catch (Throwable t) {
            throw new IllegalStateException("calling an OpenBLAS info function failed", t);
        }
    }

    private static Path extract(String library, Path dir) throws IOException {
        return NativeLibraries.extract(JAR_DIR + library, dir);
    }
}
