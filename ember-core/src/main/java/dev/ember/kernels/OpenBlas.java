package dev.ember.kernels;

import dev.ember.tuning.Machine;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Properties;

/**
 * OpenBLAS's cblas_sgemm and cblas_dgemm for {@link Blas}, loaded on first use. OpenBLAS comes from
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
        DESCRIPTION = description;
    }

    private record Loaded(MethodHandle sgemm, MethodHandle dgemm, String description) {}

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
        Path dir = Path.of(System.getProperty("user.home"), ".cache", "ember", "openblas-" + jarVersion());
        // Dependencies first, so that the dynamic linker finds them by soname when libopenblas asks.
        // libgcc_s is part of every glibc system and must not be duplicated; the Fortran runtime is
        // taken from the jar because it must match the compiler that built OpenBLAS.
        try {
            SymbolLookup.libraryLookup("libgcc_s.so.1", Arena.global());
        } catch (IllegalArgumentException notInstalled) {
            open(extract("libgcc_s.so.1", dir));
        }
        open(extract("libquadmath.so.0", dir));
        open(extract("libgfortran.so.5", dir));
        limitIdleSpinning();
        SymbolLookup openblas = open(extract("libopenblas.so.0", dir));

        Linker linker = Linker.nativeLinker();
        MethodHandle sgemm = linker.downcallHandle(symbol(openblas, "cblas_sgemm"), FunctionDescriptor.ofVoid(
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
                JAVA_FLOAT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, JAVA_FLOAT, ADDRESS, JAVA_INT),
                Linker.Option.critical(true));
        MethodHandle dgemm = linker.downcallHandle(symbol(openblas, "cblas_dgemm"), FunctionDescriptor.ofVoid(
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
                JAVA_DOUBLE, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, JAVA_DOUBLE, ADDRESS, JAVA_INT),
                Linker.Option.critical(true));
        setThreadCount(linker, openblas);
        return new Loaded(sgemm, dgemm, describe(linker, openblas));
    }

    /**
     * How long, as a power of two of CPU cycles, an idle OpenBLAS worker spins before it sleeps.
     * OpenBLAS's default, 2^28 (~0.1 s), keeps its workers spinning through the Java kernels that
     * run between two GEMMs, where they take the cores from Ember's own threads: a transformer
     * encoder layer ran 12.2 ms with the default and 10.7 ms with this (2^14 cycles, a few µs),
     * with no GEMM slower. OpenBLAS reads it from the environment when it loads.
     */
    static final int THREAD_TIMEOUT_LOG2 = 14;

    /** Sets OPENBLAS_THREAD_TIMEOUT in this process's environment unless the user chose a value. */
    private static void limitIdleSpinning() {
        if (System.getenv("OPENBLAS_THREAD_TIMEOUT") != null) return;
        Linker linker = Linker.nativeLinker();
        var setenv = linker.defaultLookup().find("setenv");
        if (setenv.isEmpty()) return;
        try (Arena arena = Arena.ofConfined()) {
            int unused = (int) linker.downcallHandle(setenv.get(), FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT))
                    .invokeExact(arena.allocateFrom("OPENBLAS_THREAD_TIMEOUT"), arena.allocateFrom(String.valueOf(THREAD_TIMEOUT_LOG2)), 0);
        } catch (Throwable t) {
            throw new IllegalStateException("setenv(OPENBLAS_THREAD_TIMEOUT) failed", t);
        }
    }

    /**
     * OpenBLAS sizes its thread pool from the CPUs it sees, which in a container can be more than
     * the JVM may use; so use the JVM's count, unless the user chose one with OPENBLAS_NUM_THREADS.
     */
    private static void setThreadCount(Linker linker, SymbolLookup openblas) {
        var set = openblas.find("openblas_set_num_threads");
        if (set.isEmpty() || System.getenv("OPENBLAS_NUM_THREADS") != null) {
            return;
        }
        try {
            linker.downcallHandle(set.get(), FunctionDescriptor.ofVoid(JAVA_INT))
                    .invokeExact(Machine.current().threads());
        } catch (Throwable t) {
            throw new IllegalStateException("openblas_set_num_threads failed", t);
        }
    }

    /** "OpenBLAS 0.3.30 (native, Cooperlake kernels, 2 threads, idle workers sleep after 2^14 cycles)", from what the library says of itself. */
    private static String describe(Linker linker, SymbolLookup openblas) throws IOException {
        String version = openblas.find("openblas_get_config")
                .map(f -> cString(linker, f).split(" "))
                .filter(words -> words.length >= 2)
                .map(words -> words[0] + " " + words[1])
                .orElse("OpenBLAS " + jarVersion());
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
        return version + " (native" + kernels + threads + idle + ")";
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
        try {
            return NativeLibraryExtractor.extract(JAR_DIR + library, dir);
        } catch (IOException e) {
            throw new IOException("cannot extract " + library + " to " + dir + ": " + e, e);
        }
    }

    private static MemorySegment symbol(SymbolLookup library, String name) {
        return library.find(name).orElseThrow(() ->
                new UnsatisfiedLinkError("libopenblas.so.0 has no symbol " + name));
    }

    /** dlopens a library for the life of the JVM; the error carries the dynamic linker's own message. */
    private static SymbolLookup open(Path library) {
        try {
            return SymbolLookup.libraryLookup(library, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new UnsatisfiedLinkError("cannot load " + library + ": " + dlerror(library));
        }
    }

    /** Repeats the dlopen to fetch dlerror(): the JDK's lookup reports only "Cannot open library". */
    private static String dlerror(Path library) {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        try (Arena arena = Arena.ofConfined()) {
            var dlopen = libc.find("dlopen");
            var dlerror = libc.find("dlerror");
            if (dlopen.isEmpty() || dlerror.isEmpty()) {
                return "(no dlerror available)";
            }
            final int rtldNow = 2;
            MemorySegment handle = (MemorySegment) linker.downcallHandle(dlopen.get(),
                    FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT)).invokeExact(
                    arena.allocateFrom(library.toString()), rtldNow);
            if (!handle.equals(MemorySegment.NULL)) {
                return "(dlopen succeeded on retry)";
            }
            MemorySegment message = (MemorySegment) linker.downcallHandle(dlerror.get(),
                    FunctionDescriptor.of(ADDRESS)).invokeExact();
            return message.equals(MemorySegment.NULL) ? "(no dlerror message)"
                    : message.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            return "(dlerror failed: " + t + ")";
        }
    }

    /** The version of the openblas jar on the classpath, e.g. "0.3.30-1.5.12". */
    private static String jarVersion() throws IOException {
        try (InputStream in = OpenBlas.class.getResourceAsStream("/META-INF/maven/org.bytedeco/openblas/pom.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        }
    }
}
