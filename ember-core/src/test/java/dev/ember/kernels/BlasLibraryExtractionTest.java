package dev.ember.kernels;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How {@link Blas} puts the native libraries from the jar on disk: {@link NativeLibraryExtractor}. */
class BlasLibraryExtractionTest {
    /** A small file from the same jar as libopenblas. */
    private static final String RESOURCE = "/org/bytedeco/openblas/linux-x86_64/include/openblas_config.h";

    @TempDir
    Path dir;

    @Test
    void extractsAnExactCopy() throws IOException {
        Path copy = NativeLibraryExtractor.extract(RESOURCE, dir.resolve("cache"));
        assertEquals(dir.resolve("cache/openblas_config.h"), copy);
        assertArrayEquals(resourceBytes(), Files.readAllBytes(copy));
    }

    @Test
    void reusesAnIntactCopy() throws IOException {
        Path copy = NativeLibraryExtractor.extract(RESOURCE, dir);
        FileTime marked = FileTime.fromMillis(1_000_000_000_000L);
        Files.setLastModifiedTime(copy, marked);
        NativeLibraryExtractor.extract(RESOURCE, dir);
        assertEquals(marked, Files.getLastModifiedTime(copy));
    }

    @Test
    void replacesACorruptCopyOfTheSameSize() throws IOException {
        Path copy = NativeLibraryExtractor.extract(RESOURCE, dir);
        byte[] corrupt = resourceBytes();
        corrupt[corrupt.length / 2] ^= 1;
        Files.write(copy, corrupt);
        NativeLibraryExtractor.extract(RESOURCE, dir);
        assertArrayEquals(resourceBytes(), Files.readAllBytes(copy));
    }

    /**
     * A copy checked once is trusted by its stamp while its size and modification time are the
     * ones checked: changed bytes with both kept (which no ordinary write does) are not read again.
     * That is the stamp's whole point (oneMKL's 440 MB are not re-read at every start), and its limit.
     */
    @Test
    void aCheckedCopyIsTrustedByItsStampWithoutBeingReadAgain() throws IOException {
        Path copy = NativeLibraryExtractor.extract(RESOURCE, dir);
        assertFalse(Files.exists(dir.resolve("openblas_config.h.crc32")), "a copy within its modification time's tick gets no stamp");
        FileTime checked = FileTime.fromMillis(System.currentTimeMillis() - NativeLibraryExtractor.SETTLED_MILLIS - 1_000);
        Files.setLastModifiedTime(copy, checked);
        NativeLibraryExtractor.extract(RESOURCE, dir);   // read, found intact, settled: stamped
        assertTrue(Files.readString(dir.resolve("openblas_config.h.crc32")).matches("\\d+ [0-9a-f]+ \\d+"));
        byte[] changed = resourceBytes();
        changed[0] ^= 1;
        Files.write(copy, changed);
        Files.setLastModifiedTime(copy, checked);
        NativeLibraryExtractor.extract(RESOURCE, dir);
        assertArrayEquals(changed, Files.readAllBytes(copy));
        // the same change with the time moved on, as any write does: read, found different, replaced
        Files.setLastModifiedTime(copy, FileTime.fromMillis(checked.toMillis() + 5_000));
        NativeLibraryExtractor.extract(RESOURCE, dir);
        assertArrayEquals(resourceBytes(), Files.readAllBytes(copy));
    }

    @Test
    void replacesATruncatedCopy() throws IOException {
        Files.write(dir.resolve("openblas_config.h"), new byte[10]);
        NativeLibraryExtractor.extract(RESOURCE, dir);
        assertArrayEquals(resourceBytes(), Files.readAllBytes(dir.resolve("openblas_config.h")));
    }

    @Test
    void concurrentExtractionsAllSeeACompleteFileAndLeaveNoTemporaries() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<byte[]>> reads = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                Callable<byte[]> extractAndRead = () -> Files.readAllBytes(NativeLibraryExtractor.extract(RESOURCE, dir));
                reads.add(pool.submit(extractAndRead));
            }
            for (Future<byte[]> read : reads) {
                assertArrayEquals(resourceBytes(), read.get());
            }
        } finally {
            pool.shutdown();
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(dir.resolve("openblas_config.h")), files.toList(), "a copy just written gets no stamp yet");
        }
    }

    @Test
    void missingResourceIsReported() {
        var e = assertThrows(FileNotFoundException.class,
                () -> NativeLibraryExtractor.extract("/no/such/libnothing.so", dir));
        assertEquals("/no/such/libnothing.so is not on the classpath", e.getMessage());
    }

    private static byte[] resourceBytes() throws IOException {
        try (InputStream in = BlasLibraryExtractionTest.class.getResourceAsStream(RESOURCE)) {
            return in.readAllBytes();
        }
    }
}
