package dev.ember.kernels;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.JarURLConnection;
import java.net.URI;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.zip.CRC32;

/**
 * Copies a native library from the classpath into a cache folder, because the dynamic linker can
 * only load files. A copy already there is reused when its size and CRC-32 match the resource's.
 * A new copy is written to a temporary file and renamed into place atomically, so that concurrent
 * JVMs extracting the same library never load a half-written file.
 *
 * <p>Checking the CRC-32 means reading the whole copy (37 MB for libopenblas) and opening the jar
 * again on every start, which took 25–370 ms of each process's first GEMM on a loaded 2-core
 * machine. So a copy that passed the check gets a stamp beside it ({@code <name>.verified}): the
 * jar's path, size and modification time, and the copy's size and modification time. While all of
 * them still match, the copy is reused without being read, as make and git trust a file whose size
 * and time have not changed. A stamp written within {@link #RACY_MILLIS} of the copy's
 * modification time is not trusted (the copy could have changed again within the file system's
 * time resolution; git calls such entries racily clean), so the next start checks the CRC and
 * writes a stamp that is.
 */
final class NativeLibraryExtractor {
    private NativeLibraryExtractor() {}

    private record Fingerprint(long size, long crc) {}

    /** Extracts the classpath resource (an absolute name such as {@code /org/x/libfoo.so.1}) into {@code dir}. */
    static Path extract(String resource, Path dir) throws IOException {
        URL url = NativeLibraryExtractor.class.getResource(resource);
        if (url == null) {
            throw new FileNotFoundException(resource + " is not on the classpath");
        }
        Path target = dir.resolve(resource.substring(resource.lastIndexOf('/') + 1));
        Path stamp = dir.resolve(target.getFileName() + ".verified");
        String source = source(url);
        if (source != null && stampHolds(stamp, source, target)) {
            return target;
        }
        Fingerprint expected = fingerprint(url);
        if (Files.isRegularFile(target) && Files.size(target) == expected.size()) {
            try (InputStream in = Files.newInputStream(target)) {
                if (copyWithCrc(in, OutputStream.nullOutputStream()) == expected.crc()) {
                    writeStamp(stamp, source, target);
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
        writeStamp(stamp, source, target);
        return target;
    }

    /** How close to a copy's modification time its stamp may be written and still be trusted. */
    static final long RACY_MILLIS = 2_000;

    /**
     * The jar the resource comes from, as its path, size and modification time; or for a resource
     * in a folder, the file's. Null when the resource is elsewhere (then no stamp is used).
     */
    private static String source(URL url) {
        try {
            String spec = url.toString();
            if (spec.startsWith("jar:")) spec = spec.substring(4, spec.indexOf("!/"));
            if (!spec.startsWith("file:")) return null;
            Path file = Path.of(URI.create(spec));
            return file.toAbsolutePath() + " " + Files.size(file) + " " + Files.getLastModifiedTime(file).toMillis() + " " + url;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The copy's size and modification time, as a stamp records them. */
    private static String copyState(Path target) throws IOException {
        return Files.size(target) + " " + Files.getLastModifiedTime(target).toMillis();
    }

    private static boolean stampHolds(Path stamp, String source, Path target) {
        try {
            List<String> lines = Files.readAllLines(stamp, StandardCharsets.UTF_8);
            if (lines.size() != 3 || !lines.get(0).equals(source) || !lines.get(1).equals(copyState(target))) return false;
            long written = Long.parseLong(lines.get(2));
            return Files.getLastModifiedTime(target).toMillis() + RACY_MILLIS < written;
        } catch (IOException | RuntimeException e) {
            return false;   // no stamp, an unreadable one, or no copy: check the CRC
        }
    }

    /** Records that {@code target} passed the CRC check; best effort, since a missing stamp only costs a check. */
    private static void writeStamp(Path stamp, String source, Path target) {
        if (source == null) return;
        try {
            Path tmp = Files.createTempFile(stamp.getParent(), stamp.getFileName() + ".", ".tmp");
            try {
                Files.writeString(tmp, source + "\n" + copyState(target) + "\n" + System.currentTimeMillis() + "\n", StandardCharsets.UTF_8);
                Files.move(tmp, stamp, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            // the next start checks the CRC again
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
