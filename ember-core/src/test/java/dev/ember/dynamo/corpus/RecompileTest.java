package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.CompiledFrame;
import dev.ember.autograd.GradMode;
import dev.ember.dynamo.RecompileLimitExceeded;
import dev.ember.tensor.DType;
import dev.ember.tensor.Defaults;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A guarded input changes → one recompile, with the failed guard kept as the reason; the recompile limit. */
class RecompileTest {

    @AfterEach
    void reset() {
        Ember.reset();
        Config.dim = 0;
    }

    private static String onlyReason(Options opts) {
        CompiledFrame frame = CorpusTest.frameOf(opts);
        assertEquals(1, frame.recompileReasons().size());
        return frame.recompileReasons().getFirst().failedGuards().getFirst();
    }

    @Test
    void shapeChange() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::transposeView, opts);
        f.apply(Tensor.randn(3, 4));
        f.apply(Tensor.randn(3, 4));
        assertEquals(1, cc.frameCount());
        Tensor x = Tensor.randn(5, 4);
        assertTrue(Programs.transposeView(x).sameData(f.apply(x)));
        assertEquals(2, cc.frameCount());
        assertEquals("tensor 'x' size mismatch at index 0. expected 3, actual 5", onlyReason(opts));
        f.apply(Tensor.randn(3, 4));
        f.apply(Tensor.randn(5, 4));
        assertEquals(2, cc.frameCount(), "both shapes stay cached");
    }

    @Test
    void dtypeChange() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::tOfT, opts);
        f.apply(Tensor.randn(3, 4));
        Tensor x = Tensor.randn(3, 4).to(DType.FLOAT64);
        assertTrue(Programs.tOfT(x).sameData(f.apply(x)));
        assertEquals(2, cc.frameCount());
        assertEquals("tensor 'x' dtype mismatch. expected float32, actual float64", onlyReason(opts).replace("torch.", ""));
    }

    @Test
    void strideChange() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::tOfT, opts);
        f.apply(Tensor.randn(4, 4));
        f.apply(Tensor.randn(4, 4).t());
        assertEquals(2, cc.frameCount());
        assertEquals("tensor 'x' stride mismatch at index 0. expected 4, actual 1", onlyReason(opts));
    }

    @Test
    void constantArgumentChange() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) Programs::loopN, opts);
        Tensor x = Tensor.randn(3, 4);
        f.apply(x, 3);
        assertTrue(Programs.loopN(x, 2).sameData(f.apply(x, 2)));
        assertEquals(2, cc.frameCount());
        assertEquals(3 + 2, cc.opCount());
        assertEquals("L['n'] == 3 failed: actual 2", onlyReason(opts));
    }

    @Test
    void listLengthChange() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn1<List<Tensor>, Tensor>) Programs::catList, opts);
        f.apply(List.of(Tensor.randn(2, 3), Tensor.randn(2, 3)));
        f.apply(List.of(Tensor.randn(2, 3), Tensor.randn(2, 3), Tensor.randn(2, 3)));
        assertEquals(2, cc.frameCount());
        assertEquals("len(L['xs']) == 2 failed: actual 3", onlyReason(opts));
    }

    @Test
    void receiverTypeChange() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Blocks.Op, Tensor, Tensor>) Blocks::dispatch, opts);
        Tensor x = Tensor.randn(3, 4);
        f.apply(new Blocks.Transpose(), x);
        Tensor out = f.apply(new Blocks.AddDim(), x);
        assertEquals(List.of(1, 1, 3, 4), List.of(out.size(0), out.size(1), out.size(2), out.size(3)));
        assertEquals(2, cc.frameCount());
        assertTrue(onlyReason(opts).startsWith("type(L['op']) is dev.ember.dynamo.corpus.Blocks$Transpose failed: actual dev.ember.dynamo.corpus.Blocks$AddDim"),
                onlyReason(opts));
    }

    @Test
    void enumArgumentChange() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Programs.Mode, Tensor>) Programs::switchOnEnum, opts);
        Tensor x = Tensor.randn(3, 4);
        f.apply(x, Programs.Mode.TRANSPOSE);
        assertTrue(x.flatten().sameData(f.apply(x, Programs.Mode.FLATTEN)));
        assertEquals(2, cc.frameCount());
        assertEquals("L['mode'] is Mode.TRANSPOSE failed: actual Mode.FLATTEN", onlyReason(opts));
    }

    @Test
    void staticFieldChange() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::staticMutableConfig, opts);
        Tensor x = Tensor.randn(3, 4);
        f.apply(x);
        Config.dim = 1;
        assertEquals(List.of(3, 1, 4), List.of(f.apply(x).size(0), f.apply(x).size(1), f.apply(x).size(2)));
        assertEquals(2, cc.frameCount());
        assertEquals("G['Config.dim'] == 0 failed: actual 1", onlyReason(opts));
    }

    @Test
    void capturedObjectFieldChange() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Programs.Cfg, Tensor, Tensor>) Programs::recordConfig, opts);
        Tensor x = Tensor.randn(3, 4);
        f.apply(new Programs.Cfg(0, true), x);
        f.apply(new Programs.Cfg(0, true), x);
        f.apply(new Programs.Cfg(0, false), x);
        assertEquals(2, cc.frameCount());
        assertEquals("L['c'].transpose == true failed: actual false", onlyReason(opts));
    }

    @Test
    void globalStateChange() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::tOfT, opts);
        Tensor x = Tensor.randn(3, 4);
        f.apply(x);
        GradMode.setEnabled(false);
        try {
            f.apply(x);
        } finally {
            GradMode.setEnabled(true);
        }
        assertEquals(2, cc.frameCount());
        assertEquals("global state changed: torch.is_grad_enabled() == true failed: actual false", onlyReason(opts));
        Defaults.setDtype(DType.FLOAT64);
        try {
            f.apply(x);
        } finally {
            Defaults.setDtype(DType.FLOAT32);
        }
        assertEquals(3, cc.frameCount());
    }

    @Test
    void aliasedInputsAreGuarded() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) Programs::catTwo, opts);
        Tensor x = Tensor.randn(3, 4);
        f.apply(x, x);
        Tensor y = Tensor.randn(3, 4);
        assertTrue(Programs.catTwo(x, y).sameData(f.apply(x, y)), "one graph input for an aliased pair must not serve two tensors");
        assertEquals(2, cc.frameCount());
        assertEquals("L['y'] is L['x'] failed: they are different objects now", onlyReason(opts));
    }

    @Test
    void recompileLimitFallsBackToEager() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc).recompileLimit(2);
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::tOfT, opts);
        for (int n = 1; n <= 5; n++) {
            Tensor x = Tensor.randn(n, 2);
            assertTrue(x.sameData(f.apply(x)));
        }
        assertEquals(2, cc.frameCount());
        assertEquals(2, CorpusTest.frameOf(opts).entries().size());
    }

    @Test
    void failOnRecompileLimitHit() {
        Options opts = Options.backend("eager").recompileLimit(1).failOnRecompileLimitHit(true);
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::tOfT, opts);
        f.apply(Tensor.randn(2, 2));
        RecompileLimitExceeded e = assertThrows(RecompileLimitExceeded.class, () -> f.apply(Tensor.randn(3, 2)));
        assertTrue(e.getMessage().contains("recompile limit (1) reached for Programs.tOfT"), e.getMessage());
        assertTrue(e.getMessage().contains("tensor 'x' size mismatch at index 0. expected 2, actual 3"), e.getMessage());
    }

    @Test
    void resetForgetsEverything() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::tOfT, Options.backend(cc));
        Tensor x = Tensor.randn(3, 4);
        f.apply(x);
        Ember.reset();
        f.apply(x);
        assertEquals(2, cc.frameCount());
    }

    @Test
    void compilingTheSameFunctionTwiceSharesTheCache() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        Tensor x = Tensor.randn(3, 4);
        Ember.compile((Fn1<Tensor, Tensor>) Programs::tOfT, opts).apply(x);
        Ember.compile((Fn1<Tensor, Tensor>) Programs::tOfT, opts).apply(x);
        assertEquals(1, cc.frameCount());
    }

    static Tensor applyTo(Fn1<Tensor, Tensor> f, Tensor x) { return f.apply(x); }

    static Fn1<Tensor, Tensor> scaleBy(Tensor y) { return t -> t.mul(y); }

    static Fn1<Tensor, Tensor> shiftBy(Tensor y) { return t -> t.add(y); }

    @Test
    void aLambdaOfAnotherClassRecompiles() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Fn1<Tensor, Tensor>, Tensor, Tensor>) RecompileTest::applyTo, opts);
        Tensor x = Tensor.randn(3), y = Tensor.randn(3);
        f.apply(scaleBy(y), x);
        // the old entry guards the first lambda's captured tensor, a field the second lambda's class does not have
        assertTrue(x.add(y).sameData(f.apply(shiftBy(y), x)));
        assertEquals(2, cc.frameCount());
        assertTrue(onlyReason(opts).startsWith("type(L['f']) is "), onlyReason(opts));
    }

    @Test
    void aLambdaOfAnotherClassAfterASymbolicShape() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Fn1<Tensor, Tensor>, Tensor, Tensor>) RecompileTest::applyTo, Options.backend(cc));
        f.apply(scaleBy(Tensor.randn(3)), Tensor.randn(3));
        f.apply(scaleBy(Tensor.randn(4)), Tensor.randn(4)); // the captured tensor's size becomes a symbol, checked by a shape guard
        Tensor x = Tensor.randn(4), y = Tensor.randn(4);
        assertTrue(x.add(y).sameData(f.apply(shiftBy(y), x)));
        assertEquals(3, cc.frameCount());
    }
}
