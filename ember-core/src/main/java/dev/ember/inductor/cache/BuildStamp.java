package dev.ember.inductor.cache;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.CodeSource;
import java.util.HexFormat;
import java.util.stream.Stream;

/**
 * Which build of Ember is running, as part of every cache key: an entry written by another build
 * is never used. A hand-bumped version alone went stale once (the masked-tail change of session 9
 * was first tested against kernels a previous build had cached), as PyTorch's inductor learned when
 * it started keying its cache on a hash of its own sources. A jar is stamped by its path, size and
 * modification time; a class folder (a development build) by every class file's path, size and
 * modification time. A rebuild with equal content only costs a cache miss, never a stale hit.
 */
public final class BuildStamp {
    private BuildStamp() {}

    private static volatile String stamp;

    /** The stamp of the build {@code anchor} was loaded from, computed once per JVM. */
    public static String of(Class<?> anchor) {
        String s = stamp;
        if (s == null) stamp = s = compute(anchor);
        return s;
    }

    private static String compute(Class<?> anchor) {
        CodeSource source = anchor.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) return "unknown-build";
        try {
            Path where = Path.of(source.getLocation().toURI());
            StringBuilder sb = new StringBuilder();
            if (Files.isRegularFile(where)) {
                append(sb, where, where);
            } else {
                try (Stream<Path> files = Files.walk(where)) {
                    files.filter(p -> p.toString().endsWith(".class")).sorted().forEach(p -> append(sb, where, p));
                }
            }
            byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
            return HexFormat.of().formatHex(Hash128.of(bytes, 0, bytes.length));
        } catch (IOException | URISyntaxException | UncheckedIOException | IllegalArgumentException e) {
            return "unknown-build";   // the cache then keys on the version alone, as before
        }
    }

    private static void append(StringBuilder sb, Path root, Path file) {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            sb.append(root.relativize(file)).append(' ').append(a.size()).append(' ').append(a.lastModifiedTime().toMillis()).append('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
