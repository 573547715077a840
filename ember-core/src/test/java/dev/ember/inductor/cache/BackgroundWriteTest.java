package dev.ember.inductor.cache;

import dev.ember.testing.ChildJvm;
import dev.ember.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ArtifactCache#putLater}: the entry is written on the cache-writer thread, and whoever
 * looks for it afterwards (a read in this process, {@code awaitWrites}, the JVM's exit) finds it
 * whole, exactly as {@code put} would have left it.
 */
class BackgroundWriteTest {
    @TempDir
    Path dir;

    private final List<ArtifactCache.Problem> problems = Collections.synchronizedList(new ArrayList<>());

    @Test
    void theCallerDoesNotWaitAndALaterReadOfTheEntryDoes() throws Exception {
        ArtifactCache c = new ArtifactCache(dir, problems::add);
        CountDownLatch release = new CountDownLatch(1);
        byte[] payload = "the class bytes".getBytes(StandardCharsets.UTF_8);
        c.putLater("k", () -> {
            await(release);
            return payload;
        });
        try {
            assertFalse(Files.exists(c.path("k")), "putLater returned before encoding the entry");
            CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> new ArtifactCache(dir, problems::add).get("k"));
            Thread.sleep(100);
            assertFalse(read.isDone(), "a read of the entry waits for its pending write instead of missing it");
            assertNull(c.get("other"), "a read of another entry does not wait");
            release.countDown();
            assertArrayEquals(payload, read.get(30, TimeUnit.SECONDS));
        } finally {
            release.countDown();
        }
        assertTrue(problems.isEmpty(), problems.toString());
    }

    @Test
    void awaitWritesReturnsOnceEveryPendingEntryIsOnDisk() {
        ArtifactCache c = new ArtifactCache(dir, problems::add);
        for (int i = 0; i < 5; i++) {
            int n = i;
            c.putLater("k" + i, () -> {
                sleep(20);
                return new byte[] {(byte) n};
            });
        }
        ArtifactCache.awaitWrites();
        for (int i = 0; i < 5; i++) assertTrue(Files.exists(c.path("k" + i)), "k" + i);
        assertArrayEquals(new byte[] {3}, c.get("k3"));
    }

    @Test
    void anEntryThatCannotBeEncodedIsReportedAndNothingIsWritten() {
        ArtifactCache c = new ArtifactCache(dir, problems::add);
        c.putLater("k", () -> {
            throw new IllegalStateException("no source for this class");
        });
        ArtifactCache.awaitWrites();
        assertFalse(Files.exists(c.path("k")));
        assertEquals(List.of(new ArtifactCache.Problem(Level.INFO, "cannot write cache entry " + c.path("k")
                + ": java.lang.IllegalStateException: no source for this class")), problems);
    }

    @Test
    void aJvmThatEndsRightAfterACompileStillLeavesTheEntry() throws Exception {
        ChildJvm.Run r = ChildJvm.main(ExitsAtOnce.class).withoutModuleFlags().args(dir.toString()).run();
        assertEquals(0, r.exit(), r.said());
        assertArrayEquals("written at exit".getBytes(StandardCharsets.UTF_8), new ArtifactCache(dir, problems::add).get("k"), r.said());
    }

    /** Hands a slow entry to the writer and returns from {@code main} at once. */
    static final class ExitsAtOnce {
        public static void main(String[] args) {
            new ArtifactCache(Path.of(args[0]), pr -> System.out.println(pr.message())).putLater("k", () -> {
                sleep(500);
                return "written at exit".getBytes(StandardCharsets.UTF_8);
            });
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
