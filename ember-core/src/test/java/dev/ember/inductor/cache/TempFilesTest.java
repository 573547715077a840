package dev.ember.inductor.cache;

import dev.ember.testing.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cache's temporary files and key bytes ({@link TempFiles}): new, owner-only files with
 * distinct names, random keys; and a fresh process filling a new cache folder never initialises
 * {@code java.security.SecureRandom} (~50 ms of a fresh JVM's first compile), checked in a child JVM.
 */
class TempFilesTest {
    @Test
    void temporaryFilesAreNewOwnerOnlyAndDistinct(@TempDir Path dir) throws Exception {
        Set<Path> made = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            Path p = TempFiles.create(dir, "k", ".tmp");
            assertTrue(made.add(p), "name used twice: " + p);
            assertEquals(0, Files.size(p));
            assertTrue(p.getFileName().toString().startsWith("k.") && p.getFileName().toString().endsWith(".tmp"), p.toString());
            if (PosixFile.supported(dir)) assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
        }
    }

    @Test
    void keysAreRandom() {
        byte[] a = TempFiles.randomBytes(32), b = TempFiles.randomBytes(32);
        assertEquals(32, a.length);
        assertFalse(Arrays.equals(a, b));
        assertFalse(Arrays.equals(a, new byte[32]));
    }

    /** Makes a key and writes an entry in a new cache folder (argument), as a first compile does. */
    public static final class Child {
        public static void main(String[] args) {
            ArtifactCache cache = new ArtifactCache(Path.of(args[0]), p -> System.out.println("problem " + p));
            cache.put("k", "payload".getBytes(StandardCharsets.UTF_8));
            System.out.println("read back " + new String(cache.get("k"), StandardCharsets.UTF_8));
        }
    }

    @Test
    void aNewCacheFolderIsFilledWithoutSecureRandom(@TempDir Path dir) throws Exception {
        ChildJvm.Run r = ChildJvm.main(Child.class).withoutModuleFlags().flags("-Xlog:class+load").args(dir.resolve("cache").toString()).run();
        String said = r.said();
        assertEquals(0, r.exit(), said);
        assertTrue(said.contains("read back payload"), said);
        List<String> secure = said.lines().filter(l -> l.contains("java.security.SecureRandom ") || l.contains("sun.security.provider.")).toList();
        assertTrue(secure.isEmpty(), "the security providers were loaded: " + secure);
        assertTrue(Files.exists(dir.resolve("cache").resolve(CacheKey.FILE)));
        try (var files = Files.list(dir.resolve("cache"))) {
            assertEquals(0, files.filter(f -> f.toString().endsWith(".tmp")).count(), "no temporary file is left");
        }
    }
}
