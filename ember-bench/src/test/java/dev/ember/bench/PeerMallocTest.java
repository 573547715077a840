package dev.ember.bench;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ember-bench/peer/peer_malloc.py, which every torch peer script calls before importing torch: glibc reads its
 * malloc variables at process start, so a process started without them must re-execute itself with them. Runs
 * the module with the system's python3 (no torch needed); the probe reads /proc/self/environ, the environment
 * the process was started with, which is what glibc saw.
 */
class PeerMallocTest {
    private static final String SETTINGS = "MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=4294967296 MALLOC_TOP_PAD_=268435456";

    @TempDir
    Path tmp;

    private record Run(int status, String out) {}

    private Run probe(Map<String, String> env) throws IOException, InterruptedException {
        Path python = Path.of("/usr/bin/python3");
        Assumptions.assumeTrue(Files.isExecutable(python), "no /usr/bin/python3 to run the peer module with");
        Path script = Files.writeString(tmp.resolve("probe.py"), """
                import sys
                sys.path.insert(0, sys.argv[1])
                print("before", flush=True)
                import peer_malloc
                peer_malloc.keep_freed_memory()
                start_env = dict(kv.split("=", 1) for kv in open("/proc/self/environ").read().split("\\0") if "=" in kv)
                print("started with", " ".join(k + "=" + start_env.get(k, "?") for k in peer_malloc.SETTINGS))
                print("args", sys.argv[2:])
                """);
        ProcessBuilder pb = new ProcessBuilder(List.of(python.toString(), "-u", script.toString(),
                Path.of("peer").toAbsolutePath().toString(), "--quick", "x y")).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("MALLOC_") || k.startsWith("EMBER_PEER"));
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return new Run(p.exitValue(), out);
    }

    @Test
    void withoutTheVariablesTheScriptReexecutesItselfWithThem() throws Exception {
        Run run = probe(Map.of());
        assertEquals(0, run.status(), run.out());
        assertEquals("""
                before
                before
                glibc malloc keeps freed memory: %s (set by the script, which re-executed itself with them)
                started with %s
                args ['--quick', 'x y']
                """.formatted(SETTINGS, SETTINGS), run.out(), "runs again from the top, with the same arguments");
    }

    @Test
    void withTheVariablesAlreadySetItRunsOnce() throws Exception {
        Run run = probe(Map.of("MALLOC_MMAP_THRESHOLD_", "4294967296", "MALLOC_TRIM_THRESHOLD_", "4294967296", "MALLOC_TOP_PAD_", "268435456"));
        assertEquals(0, run.status(), run.out());
        assertEquals("""
                before
                glibc malloc keeps freed memory: %s (already in the environment)
                started with %s
                args ['--quick', 'x y']
                """.formatted(SETTINGS, SETTINGS), run.out());
    }

    @Test
    void aDifferentValueIsReplaced() throws Exception {
        Run run = probe(Map.of("MALLOC_MMAP_THRESHOLD_", "4294967296", "MALLOC_TRIM_THRESHOLD_", "131072", "MALLOC_TOP_PAD_", "268435456"));
        assertEquals(0, run.status(), run.out());
        assertTrue(run.out().contains("started with " + SETTINGS + "\n"), run.out());
        assertTrue(run.out().contains("(set by the script, which re-executed itself with them)"), run.out());
    }
}
