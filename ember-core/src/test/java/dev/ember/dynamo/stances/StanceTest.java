package dev.ember.dynamo.stances;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.Stance;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.RecompileError;
import dev.ember.events.CompileEvent.Recompile;
import dev.ember.logging.Logs;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ember.setStance and its scope, each stance as torch.compiler.set_stance behaves (PyTorch's test_set_stance_* cases). */
class StanceTest {
    @AfterEach
    void reset() {
        Ember.setStance(Stance.DEFAULT);
        Ember.reset();
    }

    static Tensor fn(Tensor x) { return x.relu().mul(2.0); }

    static Tensor scaled(Tensor x, int n) { return x.mul(n).add(1.0); }

    static Tensor breaks(Tensor x, int n) {
        Tensor y = x.sin();
        Ember.graphBreak();
        return y.cos().mul(n);
    }

    @Test
    void forceEagerRunsEveryCompiledFunctionEagerlyAndLeavesTheCache() {
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(StanceTest::fn, Options.backend(cc));
        Tensor x = Tensor.randn(3, 4);
        try (var s = Ember.stance(Stance.FORCE_EAGER)) {
            assertTrue(f.apply(x).sameData(fn(x)));
            f.apply(Tensor.randn(5, 4));
            assertEquals(0, cc.frameCount(), "nothing traced under force_eager");
            assertEquals(Stance.FORCE_EAGER, Ember.stance());
        }
        assertEquals(Stance.DEFAULT, Ember.stance(), "the scope puts back the stance it replaced");
        f.apply(x);
        assertEquals(1, cc.frameCount(), "compiled again once the scope closed");
        Ember.setStance("force_eager");
        f.apply(Tensor.randn(7, 4));
        assertEquals(1, cc.frameCount(), "force_eager set for the process: no recompile for a new size");
        Ember.setStance(Stance.DEFAULT);
        f.apply(x);
        assertEquals(1, cc.frameCount(), "the cache entry made before force_eager still serves");
    }

    @Test
    void theStanceIsTheProcesssSeenFromOtherThreads() throws Exception {
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(StanceTest::fn, Options.backend(cc));
        try (var s = Ember.stance("force_eager")) {
            Thread t = new Thread(() -> f.apply(Tensor.randn(2, 2)));
            t.start();
            t.join();
        }
        assertEquals(0, cc.frameCount());
    }

    @Test
    void scopesNestAndEachPutsBackWhatItReplaced() {
        try (var outer = Ember.stance(Stance.EAGER_ON_RECOMPILE)) {
            try (var inner = Ember.stance(Stance.FORCE_EAGER)) {
                assertEquals(Stance.FORCE_EAGER, Ember.stance());
            }
            assertEquals(Stance.EAGER_ON_RECOMPILE, Ember.stance());
        }
        assertEquals(Stance.DEFAULT, Ember.stance());
    }

    @Test
    void anUnknownStanceIsAClearErrorListingTheValidOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Ember.setStance("force-eagerly"));
        assertEquals("unknown stance 'force-eagerly'; valid stances: default, force_eager, eager_on_recompile, fail_on_recompile, eager_then_compile",
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Ember.stance("fast"));
        assertEquals(Stance.DEFAULT, Ember.stance(), "a bad name changes nothing");
        assertEquals(Stance.EAGER_THEN_COMPILE, Stance.parse("EAGER_THEN_COMPILE"));
    }

    @Test
    void eagerOnRecompileUsesAMatchingEntryAndRunsEagerlyInsteadOfRecompiling() {
        CompileCounter cc = new CompileCounter();
        Fn2<Tensor, Integer, Tensor> f = Ember.compile(StanceTest::scaled, Options.backend(cc).dynamic(false));
        Tensor x = Tensor.randn(3);
        f.apply(x, 1);
        List<Recompile> recompiles = new ArrayList<>();
        try (var sub = Ember.events().subscribe(Recompile.class, recompiles::add); var s = Ember.stance(Stance.EAGER_ON_RECOMPILE)) {
            assertTrue(f.apply(x, 1).sameData(scaled(x, 1)));
            assertTrue(f.apply(x, 2).sameData(scaled(x, 2)), "n = 2 fails the guard: eager, same result");
            assertEquals(1, cc.frameCount(), "no recompile");
            assertEquals(List.of(), recompiles);
        }
        f.apply(x, 2);
        assertEquals(2, cc.frameCount(), "the default stance recompiles");
    }

    @Test
    void eagerOnRecompileStillCompilesAFunctionTheFirstTime() {
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(StanceTest::fn, Options.backend(cc));
        try (var s = Ember.stance(Stance.EAGER_ON_RECOMPILE)) {
            f.apply(Tensor.randn(3));
        }
        assertEquals(1, cc.frameCount());
    }

    @Test
    void failOnRecompileNamesTheFunctionAndEveryFailedGuard() {
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(StanceTest::fn, Options.backend(cc).dynamic(false));
        f.apply(Tensor.randn(4));
        f.apply(Tensor.randn(5));
        try (var s = Ember.stance(Stance.FAIL_ON_RECOMPILE)) {
            f.apply(Tensor.randn(4));
            RecompileError e = assertThrows(RecompileError.class, () -> f.apply(Tensor.randn(7)));
            String m = e.getMessage();
            assertTrue(m.startsWith("StanceTest.fn in StanceTest.java:"), m);
            assertTrue(m.contains(" would recompile, and the stance is fail_on_recompile\n    triggered by the following guard failure(s):\n"
                    + "    - "), m);
            assertTrue(m.contains("/0: tensor 'x' size mismatch at index 0. expected 4, actual 7\n"), m);
            assertTrue(m.contains("/1: tensor 'x' size mismatch at index 0. expected 5, actual 7\n"), m);
            assertTrue(m.contains("Ember.setStance(Stance.DEFAULT)"), m);
        }
        assertEquals(2, cc.frameCount());
    }

    @Test
    void eagerThenCompileRunsTheFirstCallEagerlyAndCompilesWhatChangedAsDynamic() {
        CompileCounter cc = new CompileCounter();
        Fn2<Tensor, Integer, Tensor> f = Ember.compile(StanceTest::scaled, Options.backend(cc));
        try (var s = Ember.stance(Stance.EAGER_THEN_COMPILE)) {
            for (int n = 2; n <= 4; n++) {
                Tensor x = Tensor.randn(n);
                assertTrue(f.apply(x, n).sameData(scaled(x, n)));
                assertEquals(n == 2 ? 0 : 1, cc.frameCount(), "call with n = " + n);
            }
        }
    }

    @Test
    void eagerThenCompileWithAGraphBreakCompilesTwoFrames() {
        // PyTorch's test_set_stance_eager_then_compile_with_graph_break: the resume function's first call is eager too
        CompileCounter cc = new CompileCounter();
        Fn2<Tensor, Integer, Tensor> f = Ember.compile(StanceTest::breaks, Options.backend(cc));
        try (var s = Ember.stance(Stance.EAGER_THEN_COMPILE)) {
            for (int n = 2; n <= 4; n++) {
                Tensor x = Tensor.randn(n);
                assertTrue(f.apply(x, n).sameData(breaks(x, n)));
            }
        }
        assertEquals(2, cc.frameCount());
    }

    @Test
    void theLogsSayWhyACallRanEagerly() {
        PrintStream saved = Logs.output();
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        Logs.setOutput(new PrintStream(buf, true, StandardCharsets.UTF_8));
        Ember.setLogs("recompiles,+dynamo");
        try {
            Fn2<Tensor, Integer, Tensor> f = Ember.compile(StanceTest::scaled, Options.backend(new CompileCounter()).dynamic(false));
            Tensor x = Tensor.randn(3);
            try (var s = Ember.stance(Stance.EAGER_THEN_COMPILE)) {
                f.apply(x, 1);
            }
            f.apply(x, 1);
            try (var s = Ember.stance(Stance.EAGER_ON_RECOMPILE)) {
                f.apply(x, 2);
            }
            try (var s = Ember.stance(Stance.FORCE_EAGER)) {
                f.apply(x, 3);
            }
        } finally {
            Ember.setLogs("");
            Logs.setOutput(saved);
        }
        String out = buf.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("StanceTest.scaled in StanceTest.java:") && out.contains(" runs eagerly on its first call (the stance is eager_then_compile)"), out);
        assertTrue(out.contains(" runs eagerly instead of recompiling (the stance is eager_on_recompile)"), out);
        assertTrue(out.contains("[recompiles]     triggered by the following guard failure(s):") && out.contains(": L['n'] == 1 failed: actual 2"), out);
        assertTrue(out.contains("StanceTest.scaled runs eagerly: the stance is force_eager"), out);
    }

    @Test
    void theStanceIsReadAtEachCall() {
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(StanceTest::fn, Options.backend(cc));
        Ember.setStance(Stance.FORCE_EAGER);
        f.apply(Tensor.randn(2));
        assertEquals(0, cc.frameCount());
        Ember.setStance(Stance.DEFAULT);
        f.apply(Tensor.randn(2));
        assertEquals(1, cc.frameCount());
    }

    @Test
    void settingTheStanceInsideACompiledFunctionBreaksTheGraph() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn1<Tensor, Tensor>) StanceTest::setsTheStance, Options.backend(cc));
        Tensor x = Tensor.randn(3);
        assertTrue(f.apply(x).sameData(x.relu().neg()));
        assertEquals(Stance.DEFAULT, Ember.stance());
        var explained = Ember.explain((Fn1<Tensor, Tensor>) StanceTest::setsTheStance).with(x);
        assertTrue(explained.toString().contains("Ember.stance cannot be called inside a compiled function"), explained.toString());
    }

    static Tensor setsTheStance(Tensor x) {
        Tensor y = x.relu();
        try (var s = Ember.stance(Stance.FORCE_EAGER)) {
            return y.neg();
        }
    }
}
