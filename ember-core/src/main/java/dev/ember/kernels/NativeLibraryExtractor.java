package dev.ember.kernels;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.jar.JarEntry;
import java.util.zip.CRC32;

/**
 * Copies a native library from the classpath into a cache folder, because the dynamic linker can
 * only load files. A copy already there is reused when its size and CRC-32 match the resource's.
 * A new copy is written to a temporary file and renamed into place atomically, so that concurrent
 * JVMs extracting the same library never load a half-written file. Once a copy is checked and at
 * least {@link #SETTLED_MILLIS} old (so the first start after an extraction still reads it), a stamp
 * beside it ({@code <name>.crc32}: the size and CRC-32 it was checked against, and the copy's
 * modification time then) lets later starts trust it without reading it again (oneMKL's libraries
 * are 440 MB); a copy rewritten since (its time changed) or of another size is checked again, and
 * replaced if it differs.
 */
final class NativeLibraryExtractor {
    private NativeLibraryExtractor() {}

    private record Fingerprint(long size, long crc) {
        /** What a stamp says of a checked copy: the jar's size and CRC-32, and the copy's modification time (a rewrite changes it). */
        String stamp(Path copy) throws IOException {
            return size + " " + Long.toHexString(crc) + " " + Files.getLastModifiedTime(copy).toMillis();
        }
    }

    /** Extracts the classpath resource (an absolute name such as {@code /org/x/libfoo.so.1}) into {@code dir}. */
    static Path extract(String resource, Path dir) throws IOException {
        URL url = NativeLibraryExtractor.class.getResource(resource);
        if (url == null) {
            throw new FileNotFoundException(resource + " is not on the classpath");
        }
        Path target = dir.resolve(resource.substring(resource.lastIndexOf('/') + 1));
        Fingerprint expected = fingerprint(url);
        Path stamp = target.resolveSibling(target.getFileName() + ".crc32");
        if (Files.isRegularFile(target) && Files.size(target) == expected.size()) {
            // a stamp this class wrote after the copy it checked: no need to read hundreds of MB again at every start
            if (Files.isRegularFile(stamp) && Files.readString(stamp).strip().equals(expected.stamp(target))) return target;
            try (InputStream in = Files.newInputStream(target)) {
                if (copyWithCrc(in, OutputStream.nullOutputStream()) == expected.crc()) {
                    stampIfSettled(stamp, target, expected);
                    return target;
                }
            }
        }
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, target.getFileName() + ".", ".tmp");
        try {
            long crc;
            try (InputStream in = open(url); OutputStream out = Files.newOutputStream(tmp)) {
                crc = copyWithCrc(in, out);
            }
            if (crc != expected.crc()) {
                throw new IOException("extracting " + url + " to " + tmp + " gave a different CRC-32 than the jar declares");
            }
            // rename(2) replaces an existing target atomically; a JVM that already mapped the old file keeps it.
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
        stampIfSettled(stamp, target, expected);
        return target;
    }

    /**
     * How old a checked copy's modification time must be before a stamp may vouch for it. The
     * kernel keeps file times at its coarse clock's tick (milliseconds), so a rewrite within the same
     * tick as the copy keeps its time: a stamp written for a copy that new could trust a rewrite
     * made a moment later. Older than this, any later write moves the time.
     */
    static final long SETTLED_MILLIS = 2_000;

    /** Writes the stamp when the copy is settled; best effort: a folder it cannot write to (a read-only cache) only means the next start reads the copy again. */
    private static void stampIfSettled(Path stamp, Path copy, Fingerprint expected) {
        try {
            if (System.currentTimeMillis() - Files.getLastModifiedTime(copy).toMillis() >= SETTLED_MILLIS) {
                writeStamp(stamp, expected.stamp(copy));
            }
        } catch (IOException e) {
            // the copy itself was checked; without a stamp it is checked again next time
        }
    }

    /** Records, after the library's copy was checked, what was checked, atomically (a reader sees the whole stamp or none). */
    private static void writeStamp(Path stamp, String text) throws IOException {
        Path tmp = Files.createTempFile(stamp.getParent(), stamp.getFileName() + ".", ".tmp");
        try {
            Files.writeString(tmp, text);
            Files.move(tmp, stamp, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Size and CRC-32 of a resource: read from the jar's directory when possible, else computed. */
    private static Fingerprint fingerprint(URL url) throws IOException {
        URLConnection conn = url.openConnection();
        conn.setUseCaches(false);
        if (conn instanceof JarURLConnection jar) {
            JarEntry entry = jar.getJarEntry();
            jar.getJarFile().close();
            if (entry.getSize() >= 0 && entry.getCrc() >= 0) {
                return new Fingerprint(entry.getSize(), entry.getCrc());
            }
        }
        try (InputStream in = open(url)) {
            CountingOutput counter = new CountingOutput();
            long crc = copyWithCrc(in, counter);
            return new Fingerprint(counter.count, crc);
        }
    }

    /** Opens the resource without the JDK's jar cache, so closing the stream also closes the jar. */
    private static InputStream open(URL url) throws IOException {
        URLConnection conn = url.openConnection();
        conn.setUseCaches(false);
        return conn.getInputStream();
    }

    private static long copyWithCrc(InputStream in, OutputStream out) throws IOException {
        CRC32 crc = new CRC32();
        byte[] buffer = new byte[1 << 16];
        for (int n; (n = in.read(buffer)) > 0; ) {
            crc.update(buffer, 0, n);
            out.write(buffer, 0, n);
        }
        return crc.getValue();
    }

    private static final class CountingOutput extends OutputStream {
        long count;

        @Override public void write(int b) { count++; }

        @Override public void write(byte[] b, int off, int len) { count += len; }
    }
}
