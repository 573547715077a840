package dev.ember.dynamo.stances;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ember.disabled(): a block of code that is never traced, around calls and inside a compiled function. */
class DisabledBlockTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor fn(Tensor x) { return x.relu().mul(2.0); }

    static final CompileCounter INNER = new CompileCounter();
    static final Fn1<Tensor, Tensor> INNER_FN = Ember.compile(DisabledBlockTest::fn, Options.backend(INNER));

    /** Captures before the block and after it; the block runs eagerly, the compiled function it calls too. */
    static Tensor withBlock(Tensor x) {
        Tensor y = x.sin();
        try (var s = Ember.disabled()) {
            y = INNER_FN.apply(y).add(1.0);
        }
        return y.cos();
    }

    @Test
    void compiledFunctionsCalledInTheBlockRunEagerly() {
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(DisabledBlockTest::fn, Options.backend(cc));
        Tensor x = Tensor.randn(3);
        try (var s = Ember.disabled()) {
            assertTrue(f.apply(x).sameData(fn(x)));
            try (var inner = Ember.disabled()) {
                f.apply(x);
            }
            f.apply(x);
        }
        assertEquals(0, cc.frameCount());
        f.apply(x);
        assertEquals(1, cc.frameCount(), "compiled once the block closed");
    }

    @Test
    void insideACompiledFunctionTheBlockRunsEagerlyAndTheCodeAfterItIsCapturedAgain() {
        INNER.clear();
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(DisabledBlockTest::withBlock, Options.backend(cc));
        Tensor x = Tensor.randn(4);
        assertTrue(f.apply(x).sameData(withBlock(x)));
        assertEquals(2, cc.frameCount(), "the graph before the block and the one after it");
        assertEquals(2, cc.opCount(), "sin, then cos: nothing of the block");
        INNER.clear();
        f.apply(x);
        assertEquals(0, INNER.frameCount(), "the compiled function called in the block ran eagerly");
        ExplainOutput e = Ember.explain((Fn1<Tensor, Tensor>) DisabledBlockTest::withBlock).with(x);
        assertTrue(e.toString().contains("GB0020") && e.toString().contains("Ember.disabled() opens a block that is never traced"), e.toString());
    }

    static Tensor loopInBlock(Tensor x, int n) {
        Tensor y = x.sin();
        try (var s = Ember.disabled()) {
            for (int i = 0; i < n; i++) y = y.add(1.0);
        }
        return y.cos();
    }

    static Tensor throwsInBlock(Tensor x) {
        Tensor y = x.sin();
        try (var s = Ember.disabled()) {
            if (y.sum().item() > -1e9) throw new IllegalStateException("thrown in the block");
        }
        return y;
    }

    static Tensor returnsInBlock(Tensor x) {
        Tensor y = x.sin();
        try (var s = Ember.disabled()) {
            return y.add(1.0);
        }
    }

    @Test
    void loopsReturnsAndExceptionsInTheBlockBehaveAsEager() {
        CompileCounter cc = new CompileCounter();
        Tensor x = Tensor.randn(3);
        var loop = Ember.compile(DisabledBlockTest::loopInBlock, Options.backend(cc));
        assertTrue(loop.apply(x, 3).sameData(loopInBlock(x, 3)));
        assertTrue(loop.apply(x, 5).sameData(loopInBlock(x, 5)), "the block's loop runs eagerly: its trip count is no guard");
        assertEquals(2, cc.frameCount());
        var throwing = Ember.compile(DisabledBlockTest::throwsInBlock, Options.backend(cc));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> throwing.apply(x));
        assertEquals("thrown in the block", e.getMessage());
        CompileCounter after = new CompileCounter();
        Ember.compile(DisabledBlockTest::fn, Options.backend(after)).apply(x);
        assertEquals(1, after.frameCount(), "the block closed on its way out");
        var returning = Ember.compile(DisabledBlockTest::returnsInBlock, Options.backend(cc));
        assertTrue(returning.apply(x).sameData(returnsInBlock(x)));
    }

    @Test
    void theBlockBelongsToTheThreadThatOpenedIt() throws Exception {
        var s = Ember.disabled();
        Throwable[] thrown = new Throwable[1];
        Thread t = new Thread(() -> {
            try {
                s.close();
            } catch (Throwable e) {
                thrown[0] = e;
            }
        });
        t.start();
        t.join();
        s.close();
        assertTrue(thrown[0] instanceof IllegalStateException && thrown[0].getMessage().contains("open and close it on the same thread"), String.valueOf(thrown[0]));
        CompileCounter cc = new CompileCounter();
        Ember.compile(DisabledBlockTest::fn, Options.backend(cc)).apply(Tensor.randn(2));
        assertEquals(1, cc.frameCount(), "closed on its own thread, the block is over");
    }
}
