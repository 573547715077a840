package dev.ember.inductor;

import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.inductor.cache.ArtifactCache;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static dev.ember.inductor.Graphs.call;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The on-disk cache: hits skip code generation; damaged entries are rejected and rebuilt, never loaded. */
class ArtifactCacheTest {
    @TempDir
    Path dir;

    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());

    private ArtifactCache cache() { return new ArtifactCache(dir, p -> problems.add(p.message())); }

    private static GraphModule graph() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        g.output(call(g, "sigmoid.default", call(g, "mul.Scalar", x, 3.0)));
        return new GraphModule(g);
    }

    private InductorGraph compile() {
        return Inductor.compile(graph(), List.of(Tensor.randn(4, 5)), CompileMode.DEFAULT, cache());
    }

    private Path onlyEntry() throws Exception {
        ArtifactCache.awaitWrites();
        try (var files = Files.list(dir)) {
            List<Path> entries = files.filter(p -> p.toString().endsWith(".emberc")).toList();
            assertEquals(1, entries.size(), "one entry: " + entries);
            return entries.get(0);
        }
    }

    @Test
    void secondCompileLoadsFromDiskAndComputesTheSame() {
        InductorGraph first = compile();
        assertFalse(first.fromCache());
        InductorGraph second = compile();
        assertTrue(second.fromCache(), "loaded from the cache");
        assertEquals(first.sourceCode(), second.sourceCode());
        Tensor x = Tensor.randn(4, 5);
        assertArrayEquals(((Tensor) first.run(x)).toFloatArray(), ((Tensor) second.run(x)).toFloatArray());
        assertTrue(problems.isEmpty(), problems.toString());
    }

    @Test
    void aFlippedByteIsDetectedAndTheEntryRebuilt() throws Exception {
        compile();
        Path entry = onlyEntry();
        byte[] bytes = Files.readAllBytes(entry);
        bytes[bytes.length / 2] ^= 0x5a;
        Files.write(entry, bytes);
        InductorGraph g = compile();
        assertFalse(g.fromCache(), "a corrupt entry is never loaded");
        assertTrue(problems.stream().anyMatch(p -> p.contains("content hash mismatch")), problems.toString());
        assertTrue(compile().fromCache(), "the rebuilt entry is good");
    }

    @Test
    void aTruncatedEntryIsDetected() throws Exception {
        compile();
        Path entry = onlyEntry();
        byte[] bytes = Files.readAllBytes(entry);
        Files.write(entry, java.util.Arrays.copyOf(bytes, bytes.length - 100));
        assertFalse(compile().fromCache());
        assertTrue(problems.stream().anyMatch(p -> p.contains("truncated")), problems.toString());
    }

    @Test
    void anEntryMovedUnderAnotherKeyIsRejected() throws Exception {
        ArtifactCache c = cache();
        c.put("aaaa", new byte[] {1, 2, 3});
        Files.move(c.path("aaaa"), c.path("bbbb"));
        assertNull(c.get("bbbb"));
        assertTrue(problems.stream().anyMatch(p -> p.contains("entry is for key aaaa")), problems.toString());
    }

    @Test
    void aTamperedPayloadWithAStaleHashIsRejected() throws Exception {
        ArtifactCache c = cache();
        c.put("k", "honest".getBytes());
        byte[] bytes = Files.readAllBytes(c.path("k"));
        byte[] evil = "hacked".getBytes();
        System.arraycopy(evil, 0, bytes, bytes.length - evil.length, evil.length);
        Files.write(c.path("k"), bytes);
        assertNull(c.get("k"));
    }

    @Test
    void concurrentWritersNeverExposeAHalfWrittenEntry() throws Exception {
        ArtifactCache c = cache();
        byte[] big = new byte[4 << 20];
        new java.util.Random(1).nextBytes(big);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> tasks = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            tasks.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < 20; i++) c.put("shared", big);
                return null;
            }));
        }
        for (int rd = 0; rd < 2; rd++) {
            tasks.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < 200; i++) {
                    byte[] got = c.get("shared");
                    if (got != null) assertArrayEquals(big, got);
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : tasks) f.get();
        pool.shutdown();
        assertTrue(problems.isEmpty(), "no reader saw a partial entry: " + problems);
        assertArrayEquals(big, c.get("shared"));
        try (var files = Files.list(dir)) {
            assertEquals(List.of("hmac.key", "shared.emberc"), files.map(p -> p.getFileName().toString()).sorted().toList(), "no temporary files left");
        }
    }
}
