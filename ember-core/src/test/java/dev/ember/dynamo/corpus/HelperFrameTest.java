package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.FrameRegistry;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A helper that breaks the graph while the caller's trace inlines it gets a compiled frame of its
 * own (#16 item 3), as Dynamo compiles such a function's frame: the ops before and after the break
 * inside the helper are in graphs, not run eagerly with the whole helper.
 */
class HelperFrameTest {

    @AfterEach
    void reset() { Ember.reset(); }

    private static Tensor helper(Tensor a) {
        Tensor b = a.sin();
        Ember.graphBreak();
        return b.cos();
    }

    static Tensor caller(Tensor x) {
        Tensor y = x.exp();
        Tensor z = helper(y);
        return z.tanh();
    }

    /** An instance helper, called virtually on an object the caller got. */
    static class Scaler {
        final double factor;

        Scaler(double factor) { this.factor = factor; }

        Tensor apply(Tensor t) {
            Tensor u = t.mul(factor);
            Ember.graphBreak();
            return u.relu();
        }
    }

    static final class Doubler extends Scaler {
        Doubler() { super(2); }

        @Override
        Tensor apply(Tensor t) {
            Tensor u = t.add(1.0).mul(factor);
            Ember.graphBreak();
            return u.neg();
        }
    }

    static Tensor callsScaler(Scaler s, Tensor x) { return s.apply(x.abs()).sum(0, false); }

    private static void checkFailing(Tensor t) {
        Tensor n = t.neg();
        Ember.graphBreak();
        if (n.dim() > 1) throw new IllegalArgumentException("rank " + n.dim());
    }

    static Tensor throwsFromHelper(Tensor x) {
        checkFailing(x.exp());
        return x;
    }

    /** A lambda that breaks, called through its interface (test_functions.py::test_non_inlined_closure's shape). */
    static Tensor callsBreakingLambda(Tensor x) {
        Fn1<Tensor, Tensor> step = t -> {
            Tensor u = t.sin().mul(x);          // captures x
            Ember.graphBreak();
            return u.cos();
        };
        Tensor y = step.apply(x.exp());
        return step.apply(y).tanh();
    }

    /** The same through java.util.function.Function: not serializable, so its code is found by its interface; it runs as the plain call it is. */
    static Tensor callsPlainLambda(Tensor x) {
        java.util.function.Function<Tensor, Tensor> step = t -> {
            Tensor u = t.sin();
            Ember.graphBreak();
            return u.cos();
        };
        return step.apply(x.exp()).tanh();
    }

    /** A JDK object behind the interface: Function.identity() is called as it is. */
    static Tensor callsIdentity(Tensor x) {
        java.util.function.Function<Tensor, Tensor> id = java.util.function.Function.identity();
        Tensor y = id.apply(x.exp());
        Ember.graphBreak();
        return y.neg();
    }

    @Test
    void aLambdaThatBreaksGetsACompiledFrameOfItsOwn() {
        CompileCounter cc = new CompileCounter();
        Options options = Options.backend(cc);
        Fn1<Tensor, Tensor> f = Ember.compile(HelperFrameTest::callsBreakingLambda, options);
        for (int call = 0; call < 3; call++) {
            Tensor x = Tensor.randn(3, 4);
            assertTrue(callsBreakingLambda(x).sameData(f.apply(x)), "call " + call);
        }
        // exp | the lambda's sin, mul | its cos | tanh: the second call of the lambda reuses its frame's entries
        assertEquals(5, cc.opCount(), "nothing of the lambda runs eagerly; " + cc);
        assertEquals(4, cc.frameCount(), cc.toString());
        assertTrue(FrameRegistry.frames().stream().anyMatch(fr -> fr.name().contains("lambda$callsBreakingLambda")),
                "the lambda's implementation has its own frame: " + FrameRegistry.frames().stream().map(fr -> fr.name()).toList());
        for (Fn1<Tensor, Tensor> plain : List.<Fn1<Tensor, Tensor>>of(HelperFrameTest::callsPlainLambda, HelperFrameTest::callsIdentity)) {
            Ember.reset();
            Fn1<Tensor, Tensor> g = Ember.compile(plain);
            Tensor x = Tensor.randn(2, 2);
            assertTrue(plain.apply(x).sameData(g.apply(x)));
            assertTrue(plain.apply(x).sameData(g.apply(x)), "second call, from the cache");
        }
    }

    @Test
    void theHelpersOpsAroundItsBreakAreInGraphsOfItsOwnFrame() {
        CompileCounter cc = new CompileCounter();
        Options options = Options.backend(cc);
        Fn1<Tensor, Tensor> f = Ember.compile(HelperFrameTest::caller, options);
        for (int call = 0; call < 3; call++) {
            Tensor x = Tensor.randn(3, 4);
            assertTrue(caller(x).sameData(f.apply(x)), "call " + call);
        }
        assertEquals(4, cc.frameCount(), "exp | the helper's sin | the helper's cos | tanh, compiled once");
        assertEquals(4, cc.opCount(), "every op is in a graph: nothing of the helper runs eagerly");
        assertTrue(FrameRegistry.frames().stream().anyMatch(fr -> fr.name().contains("helper")), "the helper has its own frame");
        assertTrue(FrameRegistry.frames().stream().allMatch(fr -> fr.options() == options), "the helper's frame takes the caller's options");
    }

    @Test
    void aVirtualHelperGetsTheFrameOfTheReceiversOverride() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((dev.ember.Fn2<Scaler, Tensor, Tensor>) HelperFrameTest::callsScaler, Options.backend(cc));
        for (Scaler s : List.of(new Scaler(3), new Doubler(), new Scaler(3))) {
            Tensor x = Tensor.randn(2, 3);
            assertTrue(callsScaler(s, x).sameData(f.apply(s, x)), s.getClass().getSimpleName());
        }
        assertTrue(cc.opCount() >= 6, "the overrides' ops are compiled: " + cc.opCount());
    }

    @Test
    void anExceptionFromTheHelpersFrameIsEagers() {
        Fn1<Tensor, Tensor> f = Ember.compile(HelperFrameTest::throwsFromHelper);
        IllegalArgumentException eager = assertThrows(IllegalArgumentException.class, () -> throwsFromHelper(Tensor.randn(2, 2)));
        IllegalArgumentException compiled = assertThrows(IllegalArgumentException.class, () -> f.apply(Tensor.randn(2, 2)));
        assertEquals(eager.getMessage(), compiled.getMessage());
        Tensor x = Tensor.randn(4);
        assertTrue(throwsFromHelper(x).sameData(f.apply(x)));
    }
}
