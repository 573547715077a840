package dev.ember.kernels;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Properties;

/** What loading a BLAS ({@link OpenBlas}, {@link Mkl}) through the FFM API takes: extraction, dlopen with the linker's own error, symbols, the environment. */
final class NativeLibraries {
    private NativeLibraries() {}

    /** Extracts a classpath resource into {@code dir} ({@link NativeLibraryExtractor}), with the folder in the error. */
    static Path extract(String resource, Path dir) throws IOException {
        try {
            return NativeLibraryExtractor.extract(resource, dir);
        } catch (IOException e) {
            throw new IOException("cannot extract " + resource.substring(resource.lastIndexOf('/') + 1) + " to " + dir + ": " + e, e);
        }
    }

    /** dlopens a library for the life of the JVM; the error carries the dynamic linker's own message. */
    static SymbolLookup open(Path library) {
        try {
            return SymbolLookup.libraryLookup(library, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new UnsatisfiedLinkError("cannot load " + library + ": " + dlerror(library));
        }
    }

    static MemorySegment symbol(SymbolLookup library, String libraryName, String name) {
        return library.find(name).orElseThrow(() -> new UnsatisfiedLinkError(libraryName + " has no symbol " + name));
    }

    /**
     * The row-major cblas_sgemm or cblas_dgemm of {@code library} as a critical downcall: heap
     * arrays go to native code without copies (the GC keeps them in place for the call).
     */
    static MethodHandle cblasGemm(SymbolLookup library, String libraryName, boolean isDouble) {
        ValueLayout scalar = isDouble ? JAVA_DOUBLE : JAVA_FLOAT;
        return Linker.nativeLinker().downcallHandle(symbol(library, libraryName, isDouble ? "cblas_dgemm" : "cblas_sgemm"), FunctionDescriptor.ofVoid(
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
                scalar, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT, scalar, ADDRESS, JAVA_INT),
                Linker.Option.critical(true));
    }

    /**
     * Sets {@code name} in this process's C environment (where a native library reads its settings
     * when it loads) unless the user chose a value.
     */
    static void setenvUnlessSet(String name, String value) {
        if (System.getenv(name) != null) return;
        Linker linker = Linker.nativeLinker();
        var setenv = linker.defaultLookup().find("setenv");
        if (setenv.isEmpty()) return;
        try (Arena arena = Arena.ofConfined()) {
            int unused = (int) linker.downcallHandle(setenv.get(), FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT))
                    .invokeExact(arena.allocateFrom(name), arena.allocateFrom(value), 0);
        } catch (Throwable t) {
            throw new IllegalStateException("setenv(" + name + ") failed", t);
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

    /** The version of the org.bytedeco jar {@code artifact} on the classpath (e.g. "0.3.30-1.5.12"), or "unknown". */
    static String jarVersion(String artifact) throws IOException {
        try (InputStream in = NativeLibraries.class.getResourceAsStream("/META-INF/maven/org.bytedeco/" + artifact + "/pom.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        }
    }
}
