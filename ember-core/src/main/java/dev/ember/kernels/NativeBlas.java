package dev.ember.kernels;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Which native BLAS {@link Blas} calls: Intel oneMKL ({@link Mkl}) on Intel CPUs, OpenBLAS
 * ({@link OpenBlas}) elsewhere or when oneMKL cannot load; chosen once, on the first GEMM (or
 * {@link Blas#loadInBackground}), and loading only the chosen library.
 *
 * <p>Why oneMKL first on Intel: on the project's Xeon (2 cores, AVX-512) it computes the products
 * of the MLP and its training step at 165–230 GFLOP/s where OpenBLAS 0.3.30 reaches 60–150
 * (64x2048x2048 2.9 against 9.0 ms, 2048x2048x64 2.4–2.5 against 4.3–4.8 ms; docs/benchmarks.md),
 * and it is what libtorch and torch use there. On other CPUs oneMKL is not known to be faster, so
 * OpenBLAS stays.
 *
 * <p>{@code EMBER_BLAS=mkl|openblas} (or {@code -Dember.blas=…}) overrides the choice; an unknown
 * value is reported on stderr, naming the accepted ones, and the default is taken. A chosen oneMKL
 * that fails to load falls back to OpenBLAS, and {@link Loaded#DESCRIPTION} says why.
 */
final class NativeBlas {
    private NativeBlas() {}

    /** The environment variable (and, lower-case with a dot, system property) choosing the BLAS. */
    static final String ENV = "EMBER_BLAS";

    /**
     * The choice alone, made without loading anything (what the kernel tuning's defaults depend on).
     * Nested, as {@link Loaded} is, so that neither class's initialization runs inside the other's:
     * {@code NativeBlas} itself has no static state.
     */
    static final class Choice {
        static final boolean MKL = choose(System.getProperty("ember.blas", System.getenv(ENV)), cpuVendor(Path.of("/proc/cpuinfo")), mklOnClasspath());

        /** {@link #prefersMkl}, with a bad setting reported once on stderr and the default taken: a BLAS choice changes speed, so it never stops a program. */
        static boolean choose(String setting, String vendor, boolean mklOnClasspath) {
            try {
                return prefersMkl(setting, vendor, mklOnClasspath);
            } catch (IllegalArgumentException e) {
                boolean mkl = prefersMkl(null, vendor, mklOnClasspath);
                System.err.println("ember: " + e.getMessage() + "; the default for this machine (" + (mkl ? "mkl" : "openblas") + ") is used.");
                return mkl;
            }
        }
    }

    /** The chosen library, loaded: its handles and what it says of itself (with why oneMKL did not load, when it was chosen and failed). */
    static final class Loaded {
        static final MethodHandle SGEMM;
        static final MethodHandle DGEMM;
        static final String DESCRIPTION;
        /** OpenBLAS's {@code openblas_set_num_threads} when OpenBLAS runs the products and Ember set its thread count; else null. */
        static final MethodHandle SET_OPENBLAS_THREADS;

        static {
            if (Choice.MKL && Mkl.LOADED) {
                SGEMM = Mkl.SGEMM;
                DGEMM = Mkl.DGEMM;
                SET_OPENBLAS_THREADS = null;
                DESCRIPTION = Mkl.DESCRIPTION;
            } else {
                SGEMM = OpenBlas.SGEMM;
                DGEMM = OpenBlas.DGEMM;
                SET_OPENBLAS_THREADS = OpenBlas.SET_THREADS;
                DESCRIPTION = OpenBlas.DESCRIPTION + (Choice.MKL ? " [" + Mkl.DESCRIPTION + "]" : "");
            }
        }
    }

    /**
     * Whether oneMKL is the one to load: {@code choice} ({@code mkl}, {@code openblas}, or null/empty
     * for the default: oneMKL on a GenuineIntel CPU when its jar is there).
     */
    static boolean prefersMkl(String choice, String vendor, boolean mklOnClasspath) {
        if (choice == null || choice.isBlank()) return mklOnClasspath && "GenuineIntel".equals(vendor);
        return switch (choice.strip().toLowerCase(Locale.ROOT)) {
            case "mkl" -> true;
            case "openblas" -> false;
            default -> throw new IllegalArgumentException(ENV + "=" + choice + ": expected mkl or openblas");
        };
    }

    /** Whether the mkl jar is on the classpath, without loading anything (a static method of {@link Mkl} would run its initializer, which loads oneMKL). */
    static boolean mklOnClasspath() { return NativeBlas.class.getResource(Mkl.JAR_DIR + "libmkl_rt.so.2") != null; }

    /** The {@code vendor_id} of a cpuinfo file ("GenuineIntel", "AuthenticAMD"), or "" when unreadable. */
    static String cpuVendor(Path cpuinfo) {
        try (Stream<String> lines = Files.lines(cpuinfo)) {
            return lines.filter(l -> l.startsWith("vendor_id")).map(l -> l.substring(l.indexOf(':') + 1).strip()).findFirst().orElse("");
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
