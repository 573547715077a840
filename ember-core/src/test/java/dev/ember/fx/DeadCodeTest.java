package dev.ember.fx;

import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.ember.fx.Fx.f32;
import static dev.ember.fx.Fx.op;
import static org.junit.jupiter.api.Assertions.*;

class DeadCodeTest {

    @Test
    void removesUnusedChainsAndKeepsWhatTheOutputNeeds() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        Node unusedInput = g.placeholder("y", f32(2, 3));
        Node deadT = g.callFunction(op("aten.t.default"), x);
        Node deadClone = g.callFunction(op("aten.clone.default"), deadT);      // dead, and makes deadT dead once removed
        Node deadAttr = g.getAttr("w", null);
        Node live = g.callFunction(op("aten.unsqueeze.default"), x, 0L);
        Node out = g.output(live);
        assertTrue(g.eliminateDeadCode());
        assertEquals(List.of(x, unusedInput, live, out), g.nodes());
        assertTrue(deadT.isErased() && deadClone.isErased() && deadAttr.isErased());
        assertEquals(List.of(live), List.copyOf(x.users()));
        assertFalse(g.eliminateDeadCode(), "nothing left to remove");
    }

    @Test
    void keepsImpureNodes() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        Node src = g.callFunction(op("aten.ones.default"), new int[] {2, 3});
        Node inPlace = g.callFunction(op("aten.copy_.default"), x, src);           // INPLACE: writes x
        Node random = g.callFunction(op("aten.randn.default"), new int[] {4});     // NONDETERMINISTIC: advances the generator
        Node method = g.callMethod("copy_", List.of(x, src), Map.of());           // an in-place Tensor method
        Node module = g.callModule("logger", List.of(x), Map.of());               // a module may change its own state
        Node pureMethod = g.callMethod("t", List.of(x), Map.of());
        Node out = g.output(x);
        assertTrue(g.eliminateDeadCode());
        assertEquals(List.of(x, src, inPlace, random, method, module, out), g.nodes());
        assertTrue(pureMethod.isErased());
        assertTrue(inPlace.isImpure() && random.isImpure() && method.isImpure() && module.isImpure());
        assertFalse(src.isImpure());
    }

    @Test
    void resultIsUnchangedByDce() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        g.callFunction(op("aten.clone.default"), x);
        Node t = g.callFunction(op("aten.t.default"), x);
        g.output(t);
        Tensor in = Tensor.arange(6).reshape(2, 3);
        Tensor before = (Tensor) new GraphModule(g).run(in);
        g.eliminateDeadCode();
        assertEquals(3, g.size());
        assertTrue(before.sameData((Tensor) new GraphModule(g).run(in)));
    }

    @Test
    void refusesAMalformedGraph() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2));
        g.callFunction(op("aten.clone.default"), x);
        var e = assertThrows(IllegalStateException.class, g::eliminateDeadCode);
        assertTrue(e.getMessage().startsWith("Graph lint failed: graph has no output node"), e.getMessage());
    }
}
