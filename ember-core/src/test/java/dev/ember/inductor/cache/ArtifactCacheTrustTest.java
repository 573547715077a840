package dev.ember.inductor.cache;

import dev.ember.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Section 6 of issue 12: the cache is never a way in. Entries are authenticated with this user's
 * key; a folder or key file others could write (or read, for the key) turns the cache off with one
 * warning naming it.
 */
class ArtifactCacheTrustTest {
    @TempDir
    Path tmp;

    private final List<ArtifactCache.Problem> problems = Collections.synchronizedList(new ArrayList<>());

    private ArtifactCache cache(Path dir) { return new ArtifactCache(dir, problems::add); }

    private List<String> warnings() {
        return problems.stream().filter(p -> p.level() == Level.WARNING).map(ArtifactCache.Problem::message).toList();
    }

    @Test
    void aForgedEntryWithARecomputedHashIsNotAuthenticatedAndDeleted() throws Exception {
        ArtifactCache c = cache(tmp);
        c.put("k", "honest code".getBytes(StandardCharsets.UTF_8));
        EntryForger.rewrite(c.path("k"), payload -> {
            byte[] evil = payload.clone();
            System.arraycopy("hacked".getBytes(StandardCharsets.UTF_8), 0, evil, evil.length - 6, 6);
            return evil;
        });
        assertNull(c.get("k"), "a forged entry is never returned");
        assertEquals(1, warnings().size(), problems.toString());
        String w = warnings().getFirst();
        assertTrue(w.startsWith("rejected cache entry " + c.path("k") + " (not authenticated: its MAC does not match your key "
                + tmp.resolve("hmac.key")), w);
        assertTrue(w.contains("deleted it, the graph is compiled again"), w);
        assertFalse(Files.exists(c.path("k")), "the forged entry is deleted");
    }

    @Test
    void anEntryWrittenWithAnotherUsersKeyIsRefused() throws Exception {
        Path mine = Files.createDirectory(tmp.resolve("mine")), theirs = Files.createDirectory(tmp.resolve("theirs"));
        cache(theirs).put("k", new byte[] {1, 2, 3});
        ArtifactCache c = cache(mine);
        c.put("other", new byte[] {9});
        Files.copy(theirs.resolve("k.emberc"), c.path("k"));
        assertNull(c.get("k"));
        assertTrue(warnings().stream().anyMatch(w -> w.contains("(not authenticated:")), problems.toString());
        assertArrayEquals(new byte[] {9}, c.get("other"), "entries signed with this folder's key still load");
    }

    @Test
    void theKeyIsMadeOnFirstUseReadableByItsOwnerOnlyInAFolderOnlyTheOwnerCanEnter() throws Exception {
        Path dir = tmp.resolve("new").resolve("cache");
        ArtifactCache c = cache(dir);
        c.put("k", new byte[] {1});
        Path key = dir.resolve("hmac.key");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
        assertEquals(32, Files.size(key));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        assertArrayEquals(new byte[] {1}, cache(dir).get("k"), "a later process reads the same key");
        assertTrue(problems.isEmpty(), problems.toString());
    }

    @Test
    void processesStartingTogetherAgreeOnOneKey() throws Exception {
        Path dir = tmp.resolve("race");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> writers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            int n = i;
            writers.add(pool.submit(() -> {
                start.await();
                cache(dir).put("k" + n, new byte[] {(byte) n});
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : writers) f.get();
        pool.shutdown();
        ArtifactCache reader = cache(dir);
        for (int i = 0; i < 8; i++) assertArrayEquals(new byte[] {(byte) i}, reader.get("k" + i), "entry " + i);
        assertTrue(problems.isEmpty(), problems.toString());
    }

    @Test
    void aFolderOthersCanWriteIsRefusedWithOneWarningNamingIt() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("shared"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        ArtifactCache c = cache(dir);
        c.put("k", new byte[] {1});
        assertNull(c.get("k"));
        c.put("k2", new byte[] {2});
        assertFalse(c.enabled());
        assertEquals(List.of("not using the compiled-code cache: the cache folder " + dir.toRealPath()
                + " can be written by other users (drwxrwxrwx), who could put code there that Ember would run as you; run `chmod go-w "
                + dir.toRealPath() + "`, or point EMBER_CACHE_DIR at a folder only you can write."
                + " Ember compiles as usual, without the disk cache, for the rest of this process."), warnings());
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "nothing written, not even a key");
        }
    }

    @Test
    void aFolderInsideOneOthersCanWriteIsRefused() throws Exception {
        Path open = Files.createDirectory(tmp.resolve("open"));
        Path dir = Files.createDirectory(open.resolve("cache"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxr-x"));
        ArtifactCache c = cache(dir);
        assertFalse(c.enabled());
        assertEquals(1, warnings().size(), problems.toString());
        assertTrue(warnings().getFirst().contains("the folder " + open.toRealPath() + ", which holds the cache folder " + dir.toRealPath()
                + ", can be written by other users (drwxrwxr-x)"), warnings().getFirst());
    }

    /** Sticky: others may add files but never rename or delete this user's, and every entry they add fails the MAC. */
    @Test
    void aStickyFolderOthersCanAddToIsAcceptedAsTheCacheOrAboveIt() throws Exception {
        Path above = Files.createDirectory(tmp.resolve("above")), dir = Files.createDirectory(above.resolve("cache"));
        chmod("1777", above);
        chmod("1777", dir);
        assertEquals("drwxrwxrwt", PosixFile.of(dir).mode());
        ArtifactCache c = cache(dir);
        c.put("k", new byte[] {1});
        assertArrayEquals(new byte[] {1}, c.get("k"));
        assertTrue(problems.isEmpty(), problems.toString());
    }

    private static void chmod(String mode, Path p) throws Exception {
        Process chmod = new ProcessBuilder("chmod", mode, p.toString()).inheritIO().start();
        assertEquals(0, chmod.waitFor(), "chmod " + mode + " " + p);
    }

    @Test
    void aStickyFolderAboveItLikeTmpIsAccepted() throws Exception {
        PosixFile tmpRoot = PosixFile.of(Path.of(System.getProperty("java.io.tmpdir")).toRealPath());
        assumeTrue(tmpRoot.sticky() && tmpRoot.othersCanWrite(), "java.io.tmpdir is " + tmpRoot.mode());
        assertTrue(tmp.toRealPath().startsWith(tmpRoot.path()));
        assertTrue(cache(tmp).enabled(), problems.toString());
    }

    @Test
    void aKeyOthersCanReadIsRefusedAndTheCacheIsOff() throws Exception {
        cache(tmp).put("k", new byte[] {1});
        Path key = tmp.resolve("hmac.key");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        ArtifactCache c = cache(tmp);
        assertNull(c.get("k"), "an entry is not trusted when its key may have leaked");
        assertEquals(List.of("not using the compiled-code cache: the cache key " + key + " can be read or written by other users (-rw-r--r--),"
                + " who could sign entries that Ember would run as you; `chmod 600` is not enough, as it may have been read;"
                + " delete the cache folder (`rm -r " + tmp + "`, Ember makes a new key and rebuilds it) or point EMBER_CACHE_DIR elsewhere."
                + " Ember compiles as usual, without the disk cache, for the rest of this process."), warnings());
    }

    @Test
    void aKeyOfTheWrongSizeIsRefused() throws Exception {
        Files.write(tmp.resolve("hmac.key"), new byte[] {1, 2, 3}, java.nio.file.StandardOpenOption.CREATE_NEW);
        Files.setPosixFilePermissions(tmp.resolve("hmac.key"), PosixFilePermissions.fromString("rw-------"));
        assertFalse(cache(tmp).enabled());
        assertTrue(warnings().getFirst().contains("holds 3 bytes, not a 32-byte key"), warnings().toString());
    }

    @Test
    void aKeyThatIsASymbolicLinkIsRefused() throws Exception {
        Path elsewhere = Files.write(Files.createDirectory(tmp.resolve("x")).resolve("k"), new byte[32]);
        Path dir = Files.createDirectory(tmp.resolve("cache"));
        Files.createSymbolicLink(dir.resolve("hmac.key"), elsewhere);
        assertFalse(cache(dir).enabled());
        assertTrue(warnings().getFirst().contains("the cache key " + dir.resolve("hmac.key") + " is not a regular file"), warnings().toString());
    }

    /** A zip file system stands for one without POSIX permissions (Windows) and without hard links. */
    @Test
    void withoutPosixPermissionsTheChecksAreSkippedAndSaidSoAtDebugLevel() throws Exception {
        try (var zip = java.nio.file.FileSystems.newFileSystem(tmp.resolve("cache.zip"), java.util.Map.of("create", "true"))) {
            Path dir = zip.getPath("/ember/inductor");
            ArtifactCache c = cache(dir);
            c.put("k", new byte[] {1, 2});
            assertArrayEquals(new byte[] {1, 2}, c.get("k"));
            assertEquals(32, Files.size(dir.resolve("hmac.key")));
            assertEquals(List.of(new ArtifactCache.Problem(Level.DEBUG, "the cache folder " + dir
                    + " is on a file system without POSIX permissions; who may write to it and to its key is not checked")), problems);
        }
    }

    /** Giving a file to another user takes root; elsewhere these two are skipped. */
    @Test
    void aFolderOrKeyOwnedByAnotherUserIsRefused() throws Exception {
        UserPrincipal nobody;
        try {
            nobody = tmp.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        } catch (java.io.IOException e) {
            nobody = null;
        }
        assumeTrue(nobody != null && "root".equals(System.getProperty("user.name")), "needs root and a user 'nobody'");
        Path theirs = Files.createDirectory(tmp.resolve("theirs"));
        Files.setOwner(theirs, nobody);
        assertFalse(cache(theirs).enabled());
        assertTrue(warnings().getLast().contains("the cache folder " + theirs.toRealPath() + " belongs to user nobody, not to you (root)"), warnings().toString());

        Path mine = tmp.resolve("mine");
        cache(mine).put("k", new byte[] {1});
        Files.setOwner(mine.resolve("hmac.key"), nobody);
        assertFalse(cache(mine).enabled());
        assertTrue(warnings().getLast().contains("the cache key " + mine.resolve("hmac.key") + " belongs to user nobody, not to you (root)"), warnings().toString());
    }
}
