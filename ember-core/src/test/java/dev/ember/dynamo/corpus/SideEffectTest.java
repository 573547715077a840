package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Mutations of the caller's objects are replayed after the graph runs, exactly as eager would leave them. */
class SideEffectTest {

    @AfterEach
    void reset() { Ember.reset(); }

    @Test
    void fieldStoreOfATensor() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Programs.Holder, Tensor, Tensor>) Programs::remember, Options.backend(cc).fullgraph(true));
        Programs.Holder eager = new Programs.Holder(), compiled = new Programs.Holder();
        Tensor x = Tensor.randn(3, 4);
        assertTrue(Programs.remember(eager, x).sameData(f.apply(compiled, x)));
        assertTrue(eager.last.sameData(compiled.last), "the field holds the graph's output");
        Tensor y = Tensor.randn(3, 4);
        f.apply(compiled, y);
        assertTrue(y.t().sameData(compiled.last));
        assertEquals(1, cc.frameCount());
        assertEquals(2, cc.opCount());
    }

    @Test
    void intFieldUpdateIsGuardedAndReplayed() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Programs.Holder, Tensor, Tensor>) Programs::countCalls, Options.backend(cc).fullgraph(true));
        Programs.Holder h = new Programs.Holder();
        Tensor x = Tensor.randn(3, 4);
        assertEquals(1, f.apply(h, x).dim());
        assertEquals(1, h.calls);
        assertEquals(2, f.apply(h, x).dim());
        assertEquals(2, h.calls);
        f.apply(h, x);
        assertEquals(3, h.calls);
        assertEquals(2, f.apply(h, x).dim());
        assertEquals(4, h.calls);
        // a constant at the first call; from the second the counter is a symbolic int, and the branch guards
        // L['h'].calls + 1 > 1 instead of its value (as Dynamo guards a SymInt): calls 2, 3 and 4 share one graph
        assertEquals(2, cc.frameCount(), "the counter is guarded by the comparison, not per value");
    }

    @Test
    void appendToTheCallersList() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<List<Tensor>, Tensor, Tensor>) Programs::mutatesCallerList, Options.backend(cc).fullgraph(true));
        List<Tensor> xs = new ArrayList<>();
        Tensor x = Tensor.randn(3, 4);
        f.apply(xs, x);
        assertEquals(1, xs.size());
        assertSame(x, xs.getFirst(), "the input tensor itself is appended");
        List<Tensor> ys = new ArrayList<>();
        f.apply(ys, x);
        assertEquals(List.of(x), ys);
        assertEquals(1, cc.frameCount());
    }

    @Test
    void removeLastAndRemoveFirstStayInTheGraph() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<List<Tensor>, Tensor, Tensor>) Programs::popsBothEnds, Options.backend(cc).fullgraph(true));
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(3, 4);
        List<Tensor> eager = new ArrayList<>(List.of(x, y)), compiled = new ArrayList<>(List.of(x, y));
        assertTrue(Programs.popsBothEnds(eager, x).sameData(f.apply(compiled, x)));
        assertEquals(List.of(x), compiled, "the caller's list lost its last element, as eager's did");
        assertEquals(1, cc.frameCount());
        assertEquals(6, cc.opCount());
    }

    @Test
    void storesIntoTheCallersArray() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor[], Tensor, Tensor>) Programs::fillSlots, Options.backend(cc).fullgraph(true));
        Tensor[] out = new Tensor[3];
        Tensor x = Tensor.randn(3, 4);
        f.apply(out, x);
        assertTrue(x.t().sameData(out[0]));
        assertSame(x, out[1]);
        assertEquals(null, out[2]);
        assertEquals(2, cc.opCount());
    }

    @Test
    void staticFieldWrite() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) Programs::writesStatic, Options.fullgraph());
        int before = Programs.calls;
        f.apply(Tensor.randn(3, 4));
        f.apply(Tensor.randn(3, 4));
        assertEquals(before + 2, Programs.calls);
    }
}
