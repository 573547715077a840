package dev.ember.dynamo.stances;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.Unsupported;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Options.errorOnGraphBreak and the Ember.errorOnGraphBreak region, in both directions (PyTorch's test_error_on_graph_break). */
class ErrorOnGraphBreakTest {
    @AfterEach
    void reset() { Ember.reset(); }

    /** f1: a break inside an off region of a function whose breaks are errors. */
    static Tensor offRegion(Tensor x) {
        x = x.add(1.0);
        try (var s = Ember.errorOnGraphBreak(false)) {
            Ember.graphBreak();
        }
        return x.add(2.0);
    }

    /** f2: a break inside an on region of a function whose breaks are allowed. */
    static Tensor onRegion(Tensor x) {
        x = x.add(1.0);
        try (var s = Ember.errorOnGraphBreak(true)) {
            Ember.graphBreak();
        }
        return x.add(2.0);
    }

    /** f3: two breaks in the off region: the resume method after the first is still inside it. */
    static Tensor twoBreaksInTheOffRegion(Tensor x) {
        x = x.add(1.0);
        try (var s = Ember.errorOnGraphBreak(false)) {
            Ember.graphBreak();
            x = x.add(2.0);
            Ember.graphBreak();
        }
        return x.add(4.0);
    }

    /** The off region closes in the resume method; a break after it is an error again. */
    static Tensor breakAfterTheOffRegion(Tensor x) {
        x = x.add(1.0);
        try (var s = Ember.errorOnGraphBreak(false)) {
            Ember.graphBreak();
        }
        x = x.add(2.0);
        Ember.graphBreak();
        return x;
    }

    static Tensor plainBreak(Tensor x) {
        x = x.add(1.0);
        Ember.graphBreak();
        return x.add(2.0);
    }

    static Tensor regionWithoutBreak(Tensor x) {
        try (var s = Ember.errorOnGraphBreak(true)) {
            x = x.mul(2.0);
        }
        return x.add(1.0);
    }

    private static final Tensor X = Tensor.ones(3);

    @Test
    void aBreakInAnOffRegionOfAnErrorOnGraphBreakFunctionSplitsTheGraph() {
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(ErrorOnGraphBreakTest::offRegion, Options.backend(cc).errorOnGraphBreak(true));
        assertTrue(f.apply(X).sameData(X.add(3.0)));
        assertEquals(2, cc.frameCount());
    }

    @Test
    void aBreakInAnOnRegionThrowsTheUnsupportedFullgraphThrows() {
        Fn1<Tensor, Tensor> f = Ember.compile(ErrorOnGraphBreakTest::onRegion, Options.backend(new CompileCounter()));
        Unsupported u = assertThrows(Unsupported.class, () -> f.apply(X));
        assertEquals("GB0016", u.gbId());
        assertTrue(u.getMessage().contains("ErrorOnGraphBreakTest.java:"), u.getMessage());
    }

    @Test
    void theRegionLastsIntoTheResumeMethods() {
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(ErrorOnGraphBreakTest::twoBreaksInTheOffRegion, Options.backend(cc).errorOnGraphBreak(true));
        assertTrue(f.apply(X).sameData(X.add(7.0)));
        assertEquals(3, cc.frameCount());
    }

    @Test
    void aBreakAfterTheOffRegionClosedIsAnErrorAgain() {
        Fn1<Tensor, Tensor> f = Ember.compile(ErrorOnGraphBreakTest::breakAfterTheOffRegion, Options.backend(new CompileCounter()).errorOnGraphBreak(true));
        Unsupported u = assertThrows(Unsupported.class, () -> f.apply(X));
        assertEquals("GB0016", u.gbId());
    }

    @Test
    void theOptionAloneMakesEveryBreakAnError() {
        Fn1<Tensor, Tensor> f = Ember.compile(ErrorOnGraphBreakTest::plainBreak, Options.backend(new CompileCounter()).errorOnGraphBreak(true));
        assertThrows(Unsupported.class, () -> f.apply(X));
        CompileCounter cc = new CompileCounter();
        assertTrue(Ember.compile(ErrorOnGraphBreakTest::plainBreak, Options.backend(cc).errorOnGraphBreak(false)).apply(X).sameData(X.add(3.0)));
        assertEquals(2, cc.frameCount());
    }

    @Test
    void fullgraphWinsOverAnOffRegionAndAnOffOption() {
        Fn1<Tensor, Tensor> f = Ember.compile(ErrorOnGraphBreakTest::offRegion, Options.backend(new CompileCounter()).fullgraph(true).errorOnGraphBreak(false));
        assertThrows(Unsupported.class, () -> f.apply(X));
    }

    @Test
    void aScopeAroundTheCallCoversFunctionsWhoseOptionsSayNothing() {
        Fn1<Tensor, Tensor> f = Ember.compile(ErrorOnGraphBreakTest::plainBreak, Options.backend(new CompileCounter()));
        try (var s = Ember.errorOnGraphBreak(true)) {
            assertThrows(Unsupported.class, () -> f.apply(X));
        }
        assertTrue(f.apply(X).sameData(X.add(3.0)), "after the scope closed, the break splits the graph");
        Fn1<Tensor, Tensor> allowed = Ember.compile(ErrorOnGraphBreakTest::plainBreak, Options.backend(new CompileCounter()).errorOnGraphBreak(false));
        try (var s = Ember.errorOnGraphBreak(true)) {
            assertTrue(allowed.apply(X).sameData(X.add(3.0)), "the function's own option wins over the scope around it");
        }
    }

    @Test
    void aRegionIsTracedWithoutABreak() {
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(ErrorOnGraphBreakTest::regionWithoutBreak, Options.backend(cc));
        assertTrue(f.apply(X).sameData(X.mul(2.0).add(1.0)));
        assertEquals(1, cc.frameCount());
        assertEquals(2, cc.opCount());
    }
}
