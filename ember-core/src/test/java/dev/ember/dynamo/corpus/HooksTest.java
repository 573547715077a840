package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.nn.HookHandle;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hooks and callbacks (#16 item 9): a forward that calls a list of plain lambdas compiles into one
 * graph (their code is found in the class that made them), a list the hooks only append to costs no
 * guard and no recompile, and modules' forward pre-/post-hooks run in compiled code as in eager.
 */
class HooksTest {

    @AfterEach
    void reset() { Ember.reset(); }

    /** A module that runs its own list of callbacks after a layer: the pattern of hand-rolled hook lists. */
    static final class Callbacks extends Module {
        Linear lin = new Linear(4, 4);
        final List<Function<Tensor, Tensor>> callbacks = new ArrayList<>();

        @Override
        public Tensor forward(Tensor x) {
            Tensor y = lin.forward(x);
            for (Function<Tensor, Tensor> c : callbacks) y = c.apply(y);
            return y;
        }
    }

    private static Tensor x() { return Tensor.randn(2, 4); }

    @Test
    void aListOfPlainLambdasCompilesIntoOneGraphAndALoggingListCostsNoRecompile() {
        Callbacks m = new Callbacks();
        List<Tensor> seenEager = new ArrayList<>(), seenCompiled = new ArrayList<>();
        List<Tensor>[] seen = new List[] {seenEager};
        m.callbacks.add(t -> t.relu());
        m.callbacks.add(t -> {
            seen[0].add(t);
            return t.mul(2);
        });
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile((Fn1<Tensor, Tensor>) m::forward, Options.backend(cc));
        for (int call = 0; call < 5; call++) {
            Tensor x = x();
            seen[0] = seenEager;
            Tensor want = m.forward(x);
            seen[0] = seenCompiled;
            Tensor got = f.apply(x);
            assertTrue(want.sameData(got), "call " + call);
        }
        assertEquals(1, cc.frameCount(), "one graph for five calls: no break at the lambdas, no recompile as the log grows");
        assertEquals(3, cc.opCount(), "linear, relu, mul");
        assertEquals(seenEager.size(), seenCompiled.size());
        for (int i = 0; i < seenEager.size(); i++) assertTrue(seenEager.get(i).sameData(seenCompiled.get(i)), "logged tensor " + i);
        List<String> guards = Ember.explain((Fn1<Tensor, Tensor>) m::forward).with(x()).guards();
        assertFalse(guards.stream().anyMatch(g -> g.contains("len(L['self'].callbacks[1].seen[0])")), "the log list is only appended to: " + guards);
        assertTrue(guards.stream().anyMatch(g -> g.contains("L['self'].callbacks[1].seen")), "a captured value is named as the variable it captured: " + guards);
        assertFalse(guards.stream().anyMatch(g -> g.contains("arg$")), "no JDK field names: " + guards);
        assertTrue(guards.stream().anyMatch(g -> g.contains("LENGTH_CHECK: len(L['self'].callbacks) == 2")), "the callbacks are iterated: " + guards);
    }

    /** Appends to an input list, then reads its size: the read guards the length, the appends are replayed in order. */
    static Tensor appendsThenCounts(List<Tensor> log, Tensor x) {
        log.add(x.sin());
        log.add(x.cos());
        return x.mul(log.size());
    }

    static Tensor onlyAppends(List<Tensor> log, Tensor x) {
        Tensor y = x.exp();
        log.add(y);
        log.addAll(List.of(x, y.neg()));
        return y.sum();
    }

    @Test
    void appendsToAnInputListAreReplayedAndOnlyAReadGuardsItsLength() {
        var appendOnly = (dev.ember.Fn2<List<Tensor>, Tensor, Tensor>) HooksTest::onlyAppends;
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile(appendOnly, Options.backend(cc));
        List<Tensor> eagerLog = new ArrayList<>(List.of(Tensor.zeros(1))), compiledLog = new ArrayList<>(List.of(Tensor.zeros(1)));
        for (int call = 0; call < 3; call++) {
            Tensor x = x();
            assertTrue(appendOnly.apply(eagerLog, x).sameData(f.apply(compiledLog, x)));
        }
        assertEquals(1, cc.frameCount(), "the growing list is never read: no guard on it");
        assertEquals(eagerLog.size(), compiledLog.size());
        for (int i = 0; i < eagerLog.size(); i++) assertTrue(eagerLog.get(i).sameData(compiledLog.get(i)), "entry " + i);

        var counts = (dev.ember.Fn2<List<Tensor>, Tensor, Tensor>) HooksTest::appendsThenCounts;
        CompileCounter cc2 = new CompileCounter();
        var g = Ember.compile(counts, Options.backend(cc2));
        List<Tensor> a = new ArrayList<>(), b = new ArrayList<>();
        for (int call = 0; call < 3; call++) {
            Tensor x = x();
            assertTrue(counts.apply(a, x).sameData(g.apply(b, x)), "call " + call + ": the size read sees the earlier entries");
        }
        assertEquals(3, cc2.frameCount(), "each call reads a new length: each is its own guarded graph");
        assertEquals(a.size(), b.size());
    }

    /** Adds its input's sum to the output: a module hook that changes the result. */
    static final class Block extends Module {
        Linear lin = new Linear(4, 4);

        @Override
        public Tensor forward(Tensor x) { return lin.forward(x).tanh(); }
    }

    @Test
    void moduleForwardHooksRunInCompiledCodeAsInEager() {
        Block m = new Block();
        List<String> order = new ArrayList<>();
        HookHandle pre = m.registerForwardPreHook((module, input) -> input.mul(0.5));
        m.registerForwardHook((module, input, output) -> output.add(input.sum()));
        m.registerForwardHook((module, input, output) -> null);   // keeps the output
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile(m, Options.backend(cc));
        for (int call = 0; call < 3; call++) {
            Tensor x = x();
            assertTrue(m.call(x).sameData(f.apply(x)), "call " + call);
        }
        assertEquals(1, cc.frameCount());
        assertEquals(5, cc.opCount(), "mul (pre-hook), linear, tanh, sum and add (hook)");
        assertFalse(m.forward(Tensor.ones(2, 4)).sameData(m.call(Tensor.ones(2, 4))), "forward alone runs no hooks");

        pre.remove();
        pre.remove();   // a second remove does nothing
        Tensor x = x();
        assertTrue(m.call(x).sameData(f.apply(x)), "after removing the pre-hook");
        assertEquals(2, cc.frameCount(), "the hook list changed: one recompile");
    }

    @Test
    void aSequentialRunsItsChildrensHooksCompiled() {
        Linear first = new Linear(4, 4);
        Sequential net = new Sequential(first, new ReLU(), new Linear(4, 2));
        List<Tensor> activations = new ArrayList<>();
        try (HookHandle h = first.registerForwardHook((module, input, output) -> {
            activations.add(output);
            return output.neg();
        })) {
            CompileCounter cc = new CompileCounter();
            Fn1<Tensor, Tensor> f = Ember.compile(net, Options.backend(cc));
            Tensor x = x();
            Tensor want = net.forward(x), got = f.apply(x);
            assertTrue(want.sameData(got));
            assertEquals(2, activations.size(), "the hook ran in eager and compiled code");
            assertTrue(activations.get(0).sameData(activations.get(1)));
            assertEquals(1, cc.frameCount());
        }
        assertFalse(first.hasForwardHooks(), "closing the handle removed the hook");
    }

    @Test
    void plainLambdasOfOneShapeInOneClassAreToldApart() {
        Tensor t = x();
        Supplier<Tensor> a = () -> t.relu(), b = () -> t.sigmoid();   // two Suppliers capturing a Tensor: one shape, told apart by their constant pools
        Fn1<Supplier<Tensor>, Tensor> f = s -> s.get().mul(2);
        ExplainOutput e = Ember.explain(f).with(a);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertEquals(1, e.graphCount(), e.toString());
        assertTrue(a.get().mul(2).sameData(Ember.compile(f).apply(a)));
        assertTrue(b.get().mul(2).sameData(Ember.compile(f).apply(b)));
    }

    @Test
    void aNullHookIsRefusedWhereItIsRegistered() {
        NullPointerException e = assertThrows(NullPointerException.class, () -> new Block().registerForwardHook(null));
        assertTrue(e.getMessage().contains("registerForwardHook"), e.getMessage());
    }
}
