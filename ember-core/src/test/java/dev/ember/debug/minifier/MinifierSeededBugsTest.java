package dev.ember.debug.minifier;

import dev.ember.debug.Accuracy;
import dev.ember.fx.Backends;
import dev.ember.fx.Node;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The minifier's promise: every known bug planted in a backend, inside a graph of 30+ ops, is
 * reduced to a graph of at most 3 ops that contains the faulty op and still fails the same way.
 */
class MinifierSeededBugsTest {
    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(SeededBug.class)
    void reducesEveryBugToAtMostThreeOpsHoldingTheFaultyOp(SeededBug bug) {
        for (long seed : new long[] {1, 2}) {
            RandomGraphs.Program p = RandomGraphs.build(seed * 31 + bug.ordinal(), 30);
            String backend = "seeded_" + bug.name().toLowerCase();
            Backends.register(backend, new SeededBugBackend(bug));
            Outcome seen = FailureCheck.check(p.gm(), p.inputs(), Backends.get(backend), "default", Accuracy.DEFAULT_TOLERANCE);
            assertTrue(seen.failed(), bug + " (seed " + seed + ") does not show in the whole graph: " + seen.describe());
            Path dir = tmp.resolve(bug.name() + "_" + seed);
            new Launcher(p.gm(), p.inputs(), backend, "default", ReproStage.DYNAMO, seen, Accuracy.DEFAULT_TOLERANCE, "Test.fn [0/0]", "").write(dir);

            ByteArrayOutputStream log = new ByteArrayOutputStream();
            Minifier.Result r = Minifier.minify(dir, new PrintStream(log, true));

            assertTrue(r.originalOps() >= 30, "graph of " + r.originalOps() + " ops");
            List<Node> ops = Reduction.ops(r.minified().graph().graph());
            assertTrue(ops.size() <= 3, bug + ": minified to " + ops.size() + " ops:\n" + r.minified().graph().code() + log);
            assertTrue(ops.stream().anyMatch(n -> n.target() == bug.op()), bug + ": the faulty op is gone:\n" + r.minified().graph().code());
            Launcher reloaded = Launcher.read(r.folder());
            Outcome again = FailureCheck.check(reloaded.graph(), reloaded.inputs(), Backends.get(backend), "default", reloaded.tolerance());
            assertTrue(seen.sameFailureAs(again), bug + ": the reloaded minified graph shows " + again.describe() + ", not " + seen.describe());
            assertEquals(seen.kind(), reloaded.failure().kind());
        }
    }
}
