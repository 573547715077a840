package dev.ember.debug.minifier;

import dev.ember.debug.Accuracy;
import dev.ember.fx.Backends;
import dev.ember.fx.CompileMode;
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

    /** How many graphs each bug is minified in. */
    private static final int GRAPHS = 4;

    /**
     * Each bug in {@value #GRAPHS} random graphs where it shows in the outputs (in some graphs a
     * later op masks it, say a wrong softmax dim under a row sum: there is nothing to minify there).
     */
    @ParameterizedTest
    @EnumSource(SeededBug.class)
    void reducesEveryBugToAtMostThreeOpsHoldingTheFaultyOp(SeededBug bug) {
        String backend = "seeded_" + bug.name().toLowerCase();
        Backends.register(backend, new SeededBugBackend(bug));
        int minified = 0;
        for (long seed = 1; seed <= 40 && minified < GRAPHS; seed++) {
            RandomGraphs.Program p = RandomGraphs.build(seed * 31 + bug.ordinal(), 30);
            Outcome seen = FailureCheck.check(p.gm(), p.inputs(), Backends.get(backend), CompileMode.DEFAULT, Accuracy.DEFAULT_TOLERANCE);
            if (!seen.failed()) continue;
            minified++;
            Path dir = tmp.resolve(bug.name() + "_" + seed);
            new Launcher(p.gm(), p.inputs(), backend, CompileMode.DEFAULT, ReproStage.DYNAMO, seen, Accuracy.DEFAULT_TOLERANCE, "Test.fn [0/0]", "").write(dir);

            ByteArrayOutputStream log = new ByteArrayOutputStream();
            Minifier.Result r = Minifier.minify(dir, new PrintStream(log, true));

            assertTrue(r.originalOps() >= 30, "graph of " + r.originalOps() + " ops");
            List<Node> ops = Reduction.ops(r.minified().graph().graph());
            assertTrue(ops.size() <= 3, bug + ": minified to " + ops.size() + " ops:\n" + r.minified().graph().code() + log);
            assertTrue(ops.stream().anyMatch(n -> n.target() == bug.op()), bug + ": the faulty op is gone:\n" + r.minified().graph().code());
            Launcher reloaded = Launcher.read(r.folder());
            Outcome again = FailureCheck.check(reloaded.graph(), reloaded.inputs(), Backends.get(backend), CompileMode.DEFAULT, reloaded.tolerance());
            assertTrue(seen.sameFailureAs(again), bug + ": the reloaded minified graph shows " + again.describe() + ", not " + seen.describe());
            assertEquals(seen.kind(), reloaded.failure().kind());
        }
        assertEquals(GRAPHS, minified, bug + " shows in too few of the random graphs");
    }
}
