package dev.ember.fx;

import dev.ember.tensor.DType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.ember.fx.Fx.f32;
import static dev.ember.fx.Fx.op;
import static org.junit.jupiter.api.Assertions.*;

class GraphBuildTest {

    @Test
    void nodesAreNamedAfterTheirOpWithFxSuffixes() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(3, 4));
        Node t0 = g.callFunction(op("aten.transpose.int"), x, 0L, 1L);
        Node t1 = g.callFunction(op("aten.transpose.int"), t0, 0L, 1L);
        Node t2 = g.callFunction(op("aten.transpose.int"), t1, 0L, 1L);
        Node v = g.callMethod("view", List.of(t2, 12L), Map.of());
        Node out = g.output(List.of(v));
        assertEquals(List.of("x", "transpose", "transpose_1", "transpose_2", "view", "output"),
                g.nodes().stream().map(Node::name).toList());
        assertSame(out, g.outputNode());
        assertEquals(NodeKind.CALL_FUNCTION, t1.kind());
        assertEquals("call_method", v.kind().opcode());
    }

    @Test
    void candidateNamesAreMadeIntoUniqueIdentifiers() {
        Graph g = new Graph();
        Node dyn = g.placeholder("L_x_", f32(2));              // Dynamo's input names: FX lower-cases them
        Node camel = g.placeholder("myInput", f32(2));
        Node keyword = g.placeholder("int", f32(2));            // a Java keyword never appears bare
        Node digit = g.placeholder("3d", f32(2));
        Node attr = g.getAttr("linear.weight", f32(2));
        Node mod = g.callModule("layer1.conv", List.of(dyn), Map.of());
        Node clash = g.placeholder("clone", f32(2));
        Node cl = g.callFunction(op("aten.clone.default"), clash);
        Node numbered = g.placeholder("clone_1", f32(2));       // taken by the op call already
        assertEquals("l_x_", dyn.name());
        assertEquals("L_x_", dyn.target());
        assertEquals("my_input", camel.name());
        assertEquals("int_1", keyword.name());
        assertEquals("_3d", digit.name());
        assertEquals("linear_weight", attr.name());
        assertEquals("layer1_conv", mod.name());
        assertEquals("clone", clash.name());
        assertEquals("clone_1", cl.name());
        assertEquals("clone_2", numbered.name());
    }

    @Test
    void renameKeepsNamesUnique() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2));
        Node c = g.callFunction(op("aten.clone.default"), x);
        assertEquals("x_1", g.rename(c, "x"));
        assertEquals("result", g.rename(c, "result"));
        assertEquals("result", c.name());
    }

    @Test
    void usersFollowArgumentsInInsertionOrder() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        Node y = g.placeholder("y", f32(2, 3));
        Node cat = g.callFunction(op("aten.cat.default"), List.of(x, y, x), 0L);
        Node t = g.callFunction(op("aten.t.default"), y);
        Node c = g.callFunction(op("aten.clone.default"), x);
        assertEquals(List.of(cat, c), List.copyOf(x.users()));
        assertEquals(List.of(cat, t), List.copyOf(y.users()));
        assertEquals(List.of(x, y), cat.allInputNodes());

        cat.setArgs(List.of(List.of(y, y), 0L));
        assertEquals(List.of(c), List.copyOf(x.users()));
        assertEquals(List.of(t, cat), List.copyOf(y.users()), "cat uses y again, after t");

        c.updateKwarg("memory_format", null);
        assertTrue(c.kwargs().containsKey("memory_format"));
        c.updateArg(0, y);
        assertTrue(x.users().isEmpty());
        assertEquals(List.of(t, cat, c), List.copyOf(y.users()));
    }

    @Test
    void argumentsAreCopiedSoCallersCannotChangeThem() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        int[] size = {6};
        List<Object> args = new ArrayList<>(List.of(x, size));
        Node v = g.callFunction(op("aten.view.default"), args, Map.of());
        size[0] = 7;
        args.add(99L);
        assertArrayEquals(new int[] {6}, (int[]) v.arg(1));
        assertEquals(2, v.args().size());
        assertThrows(UnsupportedOperationException.class, () -> v.args().add(1L));
    }

    @Test
    void insertionPointsPlaceNewNodesAndAreRestoredOnClose() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        Node c = g.callFunction(op("aten.clone.default"), x);
        Node out = g.output(c);
        Node a, b, d, e;
        try (var at = g.insertingBefore(c)) {
            a = g.callFunction(op("aten.t.default"), x);
            b = g.callFunction(op("aten.t.default"), a);
        }
        try (var at = g.insertingAfter(x)) {
            d = g.callFunction(op("aten.unsqueeze.default"), x, 0L);
            e = g.callFunction(op("aten.unsqueeze.default"), d, 0L);   // after d: creation order is kept
        }
        Node last = g.callFunction(op("aten.clone.default"), c);          // restored: appended at the end
        assertEquals(List.of(x, d, e, a, b, c, out, last), g.nodes());
        assertSame(d, x.next());
        assertSame(a, b.prev());
        assertNull(x.prev());
        assertNull(last.next());
    }

    @Test
    void nestedInsertionPointsRestoreTheOuterOne() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2));
        Node out = g.output(x);
        Node inner, outer;
        try (var o = g.insertingBefore(out)) {
            try (var i = g.insertingAfter(x)) {
                inner = g.callFunction(op("aten.clone.default"), x);
            }
            outer = g.callFunction(op("aten.clone.default"), inner);
        }
        assertEquals(List.of(x, inner, outer, out), g.nodes());
    }

    @Test
    void copyIsDeepAndIndependent() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        Node t = g.callFunction(op("aten.t.default"), x);
        t.setSourceLocation(new SourceLocation("App", "fn", "App.java", 3, 1, "x.t()"));
        Node z = g.callFunction(op("aten.zeros.default"), List.of(new int[] {2}), Map.of("dtype", DType.FLOAT64));
        g.output(List.of(t, z));
        Graph copy = g.copy();
        assertEquals(g.toString(), copy.toString());
        copy.lint();
        List<Node> cn = copy.nodes();
        for (int i = 0; i < cn.size(); i++) {
            assertNotSame(g.nodes().get(i), cn.get(i));
            assertSame(copy, cn.get(i).graph());
        }
        assertSame(cn.get(0), cn.get(1).arg(0));
        assertEquals(t.sourceLocation(), cn.get(1).sourceLocation());
        assertEquals(DType.FLOAT64, cn.get(2).kwargs().get("dtype"));

        Node cx = cn.get(0);
        try (var at = copy.insertingAfter(cx)) {
            Node extra = copy.callFunction(op("aten.clone.default"), cx);
            cn.get(1).replaceInputWith(cx, extra);
        }
        assertEquals(4, g.size());
        assertEquals(5, copy.size());
        assertEquals(List.of(t), List.copyOf(x.users()));
    }

    @Test
    void targetsMustFitTheNodeKind() {
        Graph g = new Graph();
        var e = assertThrows(IllegalArgumentException.class, () -> g.callMethod("relu", List.of(), Map.of()));
        assertEquals("call_method 'relu' needs its receiver as args[0]", e.getMessage());
    }

    @Test
    void findNodesByKindAndTarget() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        Node a = g.callFunction(op("aten.t.default"), x);
        g.callFunction(op("aten.clone.default"), a);
        Node b = g.callFunction(op("aten.t.default"), a);
        g.output(b);
        assertEquals(List.of(a, b), g.findNodes(NodeKind.CALL_FUNCTION, op("aten.t.default")));
        assertEquals(List.of(x), g.placeholders());
        assertEquals(3, g.findNodes(NodeKind.CALL_FUNCTION, null).size());
    }
}
