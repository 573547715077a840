package dev.ember.fx;

import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.ember.fx.Fx.f32;
import static dev.ember.fx.Fx.op;
import static org.junit.jupiter.api.Assertions.*;

class SurgeryTest {

    @Test
    void replaceAllUsesWithMovesEveryUse() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        Node c = g.callFunction(op("aten.clone.default"), x);
        Node cat = g.callFunction(op("aten.cat.default"), List.of(c, c), 0L);
        Node t = g.callFunction(op("aten.t.default"), c);
        Node out = g.output(List.of(cat, t, c));
        Node replacement;
        try (var at = g.insertingAfter(c)) {
            replacement = g.callFunction(op("aten.unsqueeze.default"), x, 0L);
        }
        List<Node> changed = g.replaceAllUsesWith(c, replacement);
        assertEquals(List.of(cat, t, out), changed);
        assertTrue(c.users().isEmpty());
        assertEquals(List.of(replacement, replacement), cat.arg(0));
        assertEquals(List.of(cat, t, out), List.copyOf(replacement.users()));
        g.eraseNode(c);
        g.lint();
        assertEquals(List.of(x, replacement, cat, t, out), g.nodes());
    }

    @Test
    void replacingAnOpPreservesTheResult() {
        // x.t().clone() rewritten to x.transpose(0, 1).clone(): same values.
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        Node t = g.callFunction(op("aten.t.default"), x);
        Node c = g.callFunction(op("aten.clone.default"), t);
        g.output(c);
        Tensor in = Tensor.arange(6).reshape(2, 3);
        Tensor before = (Tensor) new GraphModule(g).run(in);
        try (var at = g.insertingBefore(t)) {
            Node tr = g.callFunction(op("aten.transpose.int"), x, 0L, 1L);
            t.replaceAllUsesWith(tr);
        }
        g.eraseNode(t);
        g.lint();
        assertEquals("""
                graph():
                    %x : f32[2, 3] [num_users=1] = placeholder[target=x]
                    %transpose : [num_users=1] = call_function[target=aten.transpose.int](args = (%x, 0, 1), kwargs = {})
                    %clone : [num_users=1] = call_function[target=aten.clone.default](args = (%transpose,), kwargs = {})
                    return clone""", g.toString());
        assertTrue(before.sameData((Tensor) new GraphModule(g).run(in)));
    }

    @Test
    void eraseRefusesANodeThatIsStillUsed() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        Node c = g.callFunction(op("aten.clone.default"), x);
        Node t = g.callFunction(op("aten.t.default"), c);
        Node u = g.callFunction(op("aten.unsqueeze.default"), c, 0L);
        g.output(List.of(t, u));
        var e = assertThrows(IllegalStateException.class, () -> g.eraseNode(c));
        assertEquals("cannot erase node 'clone': it still has 2 user(s) [t, unsqueeze]; replace its uses first (Graph.replaceAllUsesWith)", e.getMessage());
        assertEquals(5, g.size());
        assertFalse(c.isErased());
    }

    @Test
    void erasingForgetsTheNodeAsAUserAndCannotRepeat() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        Node dead = g.callFunction(op("aten.cat.default"), List.of(x, x), 0L);
        g.output(x);
        g.eraseNode(dead);
        assertTrue(x.users().stream().noneMatch(n -> n == dead));
        assertEquals(2, g.size());
        var again = assertThrows(IllegalStateException.class, () -> g.eraseNode(dead));
        assertEquals("node 'cat' was already erased", again.getMessage());
        var insert = assertThrows(IllegalStateException.class, () -> {
            try (var at = g.insertingBefore(dead)) {
                g.callFunction(op("aten.clone.default"), x);
            }
        });
        assertEquals("the insertion point, node 'cat', was erased", insert.getMessage());
    }

    @Test
    void nodesOfAnotherGraphAreRejected() {
        Graph g = new Graph(), h = new Graph();
        Node x = g.placeholder("x", f32(1));
        Node y = h.placeholder("y", f32(1));
        assertEquals("cannot erase node 'y': it belongs to another graph", assertThrows(IllegalArgumentException.class, () -> g.eraseNode(y)).getMessage());
        assertEquals("cannot replace with node 'y': it belongs to another graph",
                assertThrows(IllegalArgumentException.class, () -> g.replaceAllUsesWith(x, y)).getMessage());
        assertEquals("cannot move node 'y' of another graph before 'x'", assertThrows(IllegalArgumentException.class, () -> x.prepend(y)).getMessage());
    }

    @Test
    void nodesCanBeMoved() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        Node a = g.callFunction(op("aten.clone.default"), x);
        Node b = g.callFunction(op("aten.t.default"), x);
        Node out = g.output(List.of(a, b));
        a.prepend(b);
        assertEquals(List.of(x, b, a, out), g.nodes());
        b.append(x);                                    // breaks topological order on purpose
        assertEquals(List.of(b, x, a, out), g.nodes());
        assertThrows(IllegalStateException.class, g::lint);
        x.append(b);
        g.lint();
        assertEquals(List.of(x, b, a, out), g.nodes());
    }

    @Test
    void nodeCopyMapsArgumentsIntoAnotherGraph() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        Node c = g.callFunction(op("aten.cat.default"), List.of(List.of(x, x)), Map.of("dim", 1L));
        Graph h = new Graph();
        Node y = h.placeholder("y", f32(2, 3));
        Node copy = h.nodeCopy(c, n -> y);
        assertEquals(List.of(y, y), copy.arg(0));
        assertEquals(Map.of("dim", 1L), copy.kwargs());
        assertEquals("cat", copy.name());
        assertEquals(List.of(copy), List.copyOf(y.users()));
        assertEquals(List.of(c), List.copyOf(x.users()), "the original is untouched");
    }
}
