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
import java.util.List;

/**
 * Intel oneMKL's cblas_sgemm and cblas_dgemm for {@link Blas} (when {@link NativeBlas} chooses
 * it), loaded on first use: the GEMM libtorch and torch use on x86 CPUs. It comes from the
 * {@code org.bytedeco:mkl:linux-x86_64-redist} jar, without JavaCPP: the runtime library, its
 * core, its OpenMP threading layer and the per-instruction-set kernel libraries are extracted to
 * {@code ~/.cache/ember/mkl-<version>/} (about 440 MB, once) and {@code libmkl_rt} is loaded through
 * the FFM API; it finds the others beside itself.
 *
 * <p>Settings made before it loads, each unless the user chose a value:
 * <ul>
 *   <li>{@code MKL_THREADING_LAYER=INTEL} (the OpenMP runtime shipped beside it; in a process that
 *       already loaded GNU's libgomp, as libtorch does, oneMKL takes its GNU layer on that one);</li>
 *   <li>{@code KMP_BLOCKTIME=0}: an idle OpenMP worker sleeps at once instead of spinning 200 ms,
 *       for the reason {@link OpenBlas#THREAD_TIMEOUT_LOG2} gives (the Java kernels between two
 *       GEMMs need the cores);</li>
 *   <li>the thread count: the JVM's ({@link Machine#threads}).</li>
 * </ul>
 * Results do not depend on where the arrays lie (a test moves the operands across 16 alignments
 * and compares bit for bit), so a heap array the GC moved gives the same product.
 */
final class Mkl {
    private Mkl() {}

    /** Where the jar keeps the libraries (a compile-time constant: reading it does not run this class's initializer, which loads oneMKL). */
    static final String JAR_DIR = "/org/bytedeco/mkl/linux-x86_64/";

    /**
     * Every library oneMKL may open beside itself: the runtime, the LP64 interface, the core, both
     * threading layers (the OpenMP one shipped here; GNU's if a user asks for it) and the kernel and
     * vector-math libraries for each instruction set. oneMKL ends the process (its "FATAL ERROR")
     * when one it wants is missing, so all are extracted before it loads.
     */
    private static final List<String> LIBRARIES = List.of("libiomp5.so", "libmkl_core.so.2", "libmkl_intel_lp64.so.2",
            "libmkl_intel_thread.so.2", "libmkl_gnu_thread.so.2", "libmkl_def.so.2", "libmkl_mc3.so.2", "libmkl_avx2.so.2",
            "libmkl_avx512.so.2", "libmkl_vml_def.so.2", "libmkl_vml_cmpt.so.2", "libmkl_vml_mc3.so.2", "libmkl_vml_avx2.so.2",
            "libmkl_vml_avx512.so.2", "libmkl_rt.so.2");

    static final MethodHandle SGEMM;
    static final MethodHandle DGEMM;
    /** What loaded ("oneMKL 2025.2 (native, 2 threads, …)"), or why nothing did. */
    static final String DESCRIPTION;
    /** Whether the handles are there. */
    static final boolean LOADED;

    static {
        MethodHandle s = null, d = null;
        String description;
        try {
            SymbolLookup mkl = load();
            s = NativeLibraries.cblasGemm(mkl, "libmkl_rt.so.2", false);
            d = NativeLibraries.cblasGemm(mkl, "libmkl_rt.so.2", true);
            description = describe(mkl);
        } catch (IOException | RuntimeException | LinkageError e) {
            description = "oneMKL unavailable: " + e;
        }
        SGEMM = s;
        DGEMM = d;
        LOADED = s != null;
        DESCRIPTION = description;
    }

    private static SymbolLookup load() throws IOException {
        if (!NativeBlas.mklOnClasspath()) {
            throw new FileNotFoundException("org.bytedeco:mkl:linux-x86_64-redist is not on the classpath (no " + JAR_DIR + "libmkl_rt.so.2)");
        }
        Path dir = Path.of(System.getProperty("user.home"), ".cache", "ember", "mkl-" + NativeLibraries.jarVersion("mkl"));
        for (String library : LIBRARIES) NativeLibraries.extract(JAR_DIR + library, dir);
        NativeLibraries.setenvUnlessSet("MKL_THREADING_LAYER", "INTEL");
        NativeLibraries.setenvUnlessSet("KMP_BLOCKTIME", "0");
        SymbolLookup mkl = NativeLibraries.open(dir.resolve("libmkl_rt.so.2"));
        if (System.getenv("MKL_NUM_THREADS") == null && System.getenv("OMP_NUM_THREADS") == null) {
            try {
                Linker.nativeLinker().downcallHandle(NativeLibraries.symbol(mkl, "libmkl_rt.so.2", "MKL_Set_Num_Threads"), FunctionDescriptor.ofVoid(JAVA_INT))
                        .invokeExact(Machine.current().threads());
            } catch (Throwable t) {
                throw new IllegalStateException("MKL_Set_Num_Threads failed", t);
            }
        }
        return mkl;
    }

    /** "oneMKL 2025.2 (native, 2 threads, idle workers sleep at once)". */
    private static String describe(SymbolLookup mkl) {
        Linker linker = Linker.nativeLinker();
        String version = "oneMKL";
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(256);
            linker.downcallHandle(NativeLibraries.symbol(mkl, "libmkl_rt.so.2", "MKL_Get_Version_String"), FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT))
                    .invokeExact(buffer, 256);
            String full = buffer.getString(0).strip();
            var number = java.util.regex.Pattern.compile("Version (\\S+)").matcher(full);
            version = number.find() ? "oneMKL " + number.group(1).replaceFirst("-Product$", "") : full;
        } catch (Throwable t) {
            throw new IllegalStateException("MKL_Get_Version_String failed", t);
        }
        int threads;
        try {
            threads = (int) linker.downcallHandle(NativeLibraries.symbol(mkl, "libmkl_rt.so.2", "MKL_Get_Max_Threads"), FunctionDescriptor.of(JAVA_INT)).invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("MKL_Get_Max_Threads failed", t);
        }
        String blocktime = System.getenv("KMP_BLOCKTIME");
        String idle = blocktime == null || blocktime.equals("0") ? "idle workers sleep at once" : "idle workers spin " + blocktime + " ms (KMP_BLOCKTIME)";
        return version + " (native, " + threads + (threads == 1 ? " thread, " : " threads, ") + idle + ")";
    }
}
