package dev.ember.kernels;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
            assertEquals(List.of(dir.resolve("openblas_config.h"), dir.resolve("openblas_config.h.verified")), files.sorted().toList());
        }
    }

    /** The copy extracted and then checked once more after its stamp would no longer be racy: the stamp written then is trusted. */
    private Path extractWithTrustedStamp() throws IOException {
        Path copy = NativeLibraryExtractor.extract(RESOURCE, dir);
        Files.setLastModifiedTime(copy, FileTime.fromMillis(System.currentTimeMillis() - 10 * NativeLibraryExtractor.RACY_MILLIS));
        NativeLibraryExtractor.extract(RESOURCE, dir);   // size and time changed: checked by CRC, stamped
        return copy;
    }

    /** Corrupts one byte of the copy in place, keeping its size and modification time. */
    private static void corruptKeepingSizeAndTime(Path copy) throws IOException {
        FileTime time = Files.getLastModifiedTime(copy);
        byte[] corrupt = Files.readAllBytes(copy);
        corrupt[corrupt.length / 2] ^= 1;
        Files.write(copy, corrupt);
        Files.setLastModifiedTime(copy, time);
    }

    @Test
    void aStampedCopyIsReusedWithoutBeingRead() throws IOException {
        Path copy = extractWithTrustedStamp();
        corruptKeepingSizeAndTime(copy);
        NativeLibraryExtractor.extract(RESOURCE, dir);
        // the stamp trusts size and time, as make and git do: the copy was not read, so not repaired
        assertEquals(false, java.util.Arrays.equals(resourceBytes(), Files.readAllBytes(copy)));
    }

    @Test
    void aCopyWhoseTimeChangedAfterItsStampIsCheckedAgain() throws IOException {
        Path copy = extractWithTrustedStamp();
        corruptKeepingSizeAndTime(copy);
        Files.setLastModifiedTime(copy, FileTime.fromMillis(Files.getLastModifiedTime(copy).toMillis() + 1_000));
        NativeLibraryExtractor.extract(RESOURCE, dir);
        assertArrayEquals(resourceBytes(), Files.readAllBytes(copy));
    }

    @Test
    void aStampWrittenRightAfterTheCopyChangedIsNotTrusted() throws IOException {
        Path copy = NativeLibraryExtractor.extract(RESOURCE, dir);   // stamped within RACY_MILLIS of the copy's time
        corruptKeepingSizeAndTime(copy);
        NativeLibraryExtractor.extract(RESOURCE, dir);
        assertArrayEquals(resourceBytes(), Files.readAllBytes(copy));
    }

    @Test
    void aStampOfAnotherJarIsNotTrusted() throws IOException {
        Path copy = extractWithTrustedStamp();
        Path stamp = dir.resolve("openblas_config.h.verified");
        List<String> lines = Files.readAllLines(stamp);
        Files.write(stamp, List.of(lines.get(0).replaceFirst(" \\d+ ", " 1 "), lines.get(1), lines.get(2)));
        corruptKeepingSizeAndTime(copy);
        NativeLibraryExtractor.extract(RESOURCE, dir);
        assertArrayEquals(resourceBytes(), Files.readAllBytes(copy));
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
