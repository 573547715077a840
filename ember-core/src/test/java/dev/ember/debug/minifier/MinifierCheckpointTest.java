package dev.ember.debug.minifier;

import dev.ember.debug.Accuracy;
import dev.ember.fx.Backends;
import dev.ember.fx.CompileMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Checkpoints: every smaller failing graph is a launcher of its own, and a minify started again resumes from the newest. */
class MinifierCheckpointTest {
    @TempDir
    Path tmp;

    private Path launcher(SeededBug bug) {
        RandomGraphs.Program p = RandomGraphs.build(11, 30);
        Backends.register("seeded_" + bug.name().toLowerCase(), new SeededBugBackend(bug));
        Path dir = tmp.resolve("launcher");
        Outcome seen = FailureCheck.check(p.gm(), p.inputs(), Backends.get("seeded_" + bug.name().toLowerCase()), CompileMode.DEFAULT, Accuracy.DEFAULT_TOLERANCE);
        new Launcher(p.gm(), p.inputs(), "seeded_" + bug.name().toLowerCase(), CompileMode.DEFAULT, ReproStage.DYNAMO, seen, Accuracy.DEFAULT_TOLERANCE,
                "Test.fn [0/0]", "").write(dir);
        return dir;
    }

    @Test
    void anInterruptedRunResumesFromTheNewestCheckpoint() throws IOException {
        Path dir = launcher(SeededBug.SOFTMAX_WRONG_DIM);
        Minifier.minify(dir, new PrintStream(new ByteArrayOutputStream()));
        List<Path> checkpoints;
        try (Stream<Path> s = Files.list(dir.resolve("checkpoints"))) {
            checkpoints = s.sorted().toList();
        }
        assertTrue(checkpoints.size() >= 2, "checkpoints " + checkpoints);
        for (Path cp : checkpoints) {
            Launcher l = Launcher.read(cp);
            assertTrue(l.failure().failed(), cp + " is a failing launcher");
        }
        // As if the run had stopped after its first checkpoint:
        for (Path cp : checkpoints.subList(1, checkpoints.size())) deleteTree(cp);
        deleteTree(dir.resolve("minified"));
        int opsAtFirst = Reduction.ops(Launcher.read(checkpoints.getFirst()).graph().graph()).size();

        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Minifier.Result r = Minifier.minify(dir, new PrintStream(log, true, StandardCharsets.UTF_8));
        String text = log.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("resuming from " + checkpoints.getFirst()), text);
        assertTrue(text.contains("minifying Test.fn [0/0]: " + opsAtFirst + " ops"), text);
        assertEquals(1, r.ops(), r.minified().graph().code());
        assertTrue(text.contains("checkpoint 002"), "numbering goes on after the checkpoint resumed from: " + text);
    }

    @Test
    void aGraphThatDoesNotFailIsNotMinified() {
        Path dir = launcher(SeededBug.NEG_IDENTITY);
        Backends.register("seeded_neg_identity", Backends.EAGER);
        var e = assertThrows(IllegalArgumentException.class, () -> Minifier.minify(dir, new PrintStream(new ByteArrayOutputStream())));
        assertTrue(e.getMessage().contains("does not fail (passed: accuracy ok") && e.getMessage().contains("nothing to minify. It failed when written: accuracy failed"),
                e.getMessage());
    }

    private static void deleteTree(Path p) throws IOException {
        try (Stream<Path> s = Files.walk(p)) {
            for (Path x : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(x);
        }
    }
}
