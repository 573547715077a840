package dev.ember.dynamo.stances;

import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.Stance;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.RecompileError;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Stdout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The examples of docs/stances.md, as written there (MyApp is this class). */
class StancesDocsExampleTest {
    @AfterEach
    void reset() {
        Ember.setStance(Stance.DEFAULT);
        Ember.reset();
    }

    static Tensor fn(Tensor x) { return x.relu().mul(2.0); }

    static Tensor step(Tensor x) {
        x = x.add(1.0);
        try (var s = Ember.errorOnGraphBreak(false)) {
            Ember.graphBreak();                        // allowed: the graph splits here
        }
        return x.add(2.0);
    }

    private static void stances() {
        var counter = new CompileCounter();
        var f = Ember.compile(StancesDocsExampleTest::fn, Options.backend(counter));
        try (var s = Ember.stance(Stance.FORCE_EAGER)) {
            f.apply(Tensor.randn(3));                      // eager: nothing is traced
        }
        System.out.println("frames: " + counter.frameCount());
        f.apply(Tensor.randn(3));                          // compiles for size 3
        try (var s = Ember.stance("fail_on_recompile")) {
            f.apply(Tensor.randn(3));                      // the cache entry serves
            f.apply(Tensor.randn(5));                      // would recompile
        } catch (RecompileError e) {
            System.out.println(e.getMessage());
        }
    }

    private static void errorOnGraphBreak() {
        var counter = new CompileCounter();
        var f = Ember.compile(StancesDocsExampleTest::step, Options.backend(counter).errorOnGraphBreak(true));
        f.apply(Tensor.ones(3));
        System.out.println("frames: " + counter.frameCount());   // frames: 2
    }

    private static String printed(Runnable example) {
        return Stdout.of(example).replaceAll("\\.java:\\d+", ".java:12").replaceAll("- \\d+/", "- 0/");
    }

    @Test
    void stancesPrintWhatTheDocsShow() {
        assertEquals("""
                frames: 0
                StancesDocsExampleTest.fn in StancesDocsExampleTest.java:12 would recompile, and the stance is fail_on_recompile
                    triggered by the following guard failure(s):
                    - 0/0: tensor 'x' size mismatch at index 0. expected 3, actual 5
                  Call it with inputs one of its 1 cache entry accepts, or set another stance (Ember.setStance(Stance.DEFAULT)) to let it recompile.
                """, printed(StancesDocsExampleTest::stances));
    }

    @Test
    void errorOnGraphBreakPrintsWhatTheDocsShow() {
        assertEquals("frames: 2\n", printed(StancesDocsExampleTest::errorOnGraphBreak));
    }
}
