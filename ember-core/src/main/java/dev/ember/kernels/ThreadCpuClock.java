package dev.ember.kernels;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The CPU time of the calling thread in nanoseconds: what {@link ColdStart} times a warm-up slice
 * by, so that a slice whose thread waited for a core on a busy host is not taken for one that ran
 * slowly (with the wall clock, a convolution stayed on its cold tier for about 12 s of a loaded
 * host's training loop, 14–16 ms a call against 1.35 hot: docs/benchmarks.md, session 38). POSIX's
 * {@code clock_gettime(CLOCK_THREAD_CPUTIME_ID)} through the FFM API (one native call, no
 * {@code java.management}, whose first use costs 65–90 ms here); where there is no such clock, the
 * wall clock ({@link #isCpuTime} false).
 */
final class ThreadCpuClock {
    private ThreadCpuClock() {}

    /** {@code clock_gettime}, or null where the C library has none or the OS's clock id is unknown. */
    private static final MethodHandle CLOCK_GETTIME;
    /** CLOCK_THREAD_CPUTIME_ID: 3 on Linux, 16 on macOS. */
    private static final int CLOCK_ID;

    static {
        String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
        int id = os.contains("linux") ? 3 : os.contains("mac") ? 16 : -1;
        MethodHandle handle = null;
        if (id >= 0) {
            try {
                Linker linker = Linker.nativeLinker();
                handle = linker.defaultLookup().find("clock_gettime")
                        .map(f -> linker.downcallHandle(f, FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS), Linker.Option.critical(true)))
                        .orElse(null);
            } catch (RuntimeException | LinkageError unavailable) {
                handle = null;   // no native access: the wall clock serves
            }
        }
        CLOCK_GETTIME = handle;
        CLOCK_ID = id;
    }

    /** Whether {@link #nanos} is the thread's CPU time (else the wall clock). */
    static boolean isCpuTime() { return CLOCK_GETTIME != null; }

    /** The calling thread's CPU time in ns (an arbitrary origin), or {@link System#nanoTime} where there is no such clock. */
    static long nanos() {
        if (CLOCK_GETTIME == null) return System.nanoTime();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment timespec = arena.allocate(2 * JAVA_LONG.byteSize(), JAVA_LONG.byteAlignment());
            int status = (int) CLOCK_GETTIME.invokeExact(CLOCK_ID, timespec);
            if (status != 0) return System.nanoTime();
            return timespec.get(JAVA_LONG, 0) * 1_000_000_000L + timespec.get(JAVA_LONG, JAVA_LONG.byteSize());
        } catch (Throwable t) {
            throw new IllegalStateException("clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed", t);
        }
    }
}
