package dev.ember.fx;

import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static dev.ember.fx.Fx.f32;
import static dev.ember.fx.Fx.op;
import static org.junit.jupiter.api.Assertions.*;

class InterpreterTest {

    private static void assertSameTensor(Tensor expected, Object actual) {
        Tensor a = assertInstanceOf(Tensor.class, actual);
        assertFalse(a.isFake());
        assertTrue(expected.sameData(a), () -> "expected " + expected + " but got " + a);
    }

    @Test
    void runsOpsMethodsAndFunctionsLikeEagerCalls() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node y = g.placeholder("y", null);
        Node t = g.callFunction(op("aten.transpose.int"), x, 0L, 1L);
        Node cat = g.callFunction(op("aten.cat.default"), List.of(t, y), 1L);
        Node parts = g.callFunction(op("aten.split.Tensor"), cat, 2L, 1L);
        Node second = g.callFunction(BuiltinFunctions.GETITEM, parts, 1L);
        Node shaped = g.callMethod("reshape", List.of(second, 2L, 4L), Map.of());   // sizes spread out, as x.reshape(2, 4)
        Node perm = g.callMethod("permute", List.of(shaped, new int[] {1, 0}), Map.of());
        Node copy = g.callMethod("clone", List.of(perm), Map.of());
        Node flat = g.callMethod("view", List.of(copy, List.of(-1L)), Map.of());
        g.output(List.of(flat, cat));

        Generator gen = new Generator(7);
        Tensor xv = Tensor.randn(gen, 3, 4), yv = Tensor.randn(gen, 4, 3);
        Object out = new GraphModule(g).run(xv, yv);

        Tensor eagerCat = Tensor.cat(List.of(xv.transpose(0, 1), yv), 1);
        Tensor eager = eagerCat.split(2, 1).get(1).reshape(2, 4).permute(1, 0).clone().view(-1);
        List<?> outs = assertInstanceOf(List.class, out);
        assertEquals(2, outs.size());
        assertSameTensor(eager, outs.get(0));
        assertSameTensor(eagerCat, outs.get(1));
    }

    @Test
    void keywordArgumentsBindToSchemaPositions() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node z = g.callFunction(op("aten.zeros.default"), List.of(new int[] {2, 3}), Map.of("dtype", DType.INT64));
        Node s = g.callFunction(op("aten.slice.Tensor"), List.of(x), Map.of("end", 2L, "dim", 1L));
        Node r = g.callFunction(op("aten.randint.low"), List.of(0L, 5L, new int[] {4}), Map.of("generator", new Generator(3)));
        g.output(List.of(z, s, r));
        Tensor xv = Tensor.arange(12).reshape(3, 4);
        List<?> outs = (List<?>) new GraphModule(g).run(xv);
        assertSameTensor(Tensor.zeros(DType.INT64, 2, 3), outs.get(0));
        assertSameTensor(xv.slice(1, 0, 2, 1), outs.get(1));
        assertSameTensor(Tensor.randint(new Generator(3), 0, 5, 4), outs.get(2));
    }

    @Test
    void badKeywordArgumentsAreNamed() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node s = g.callFunction(op("aten.slice.Tensor"), List.of(x, 0L), Map.of("dims", 1L));
        g.output(s);
        var e = assertThrows(IllegalArgumentException.class, () -> new GraphModule(g).run(Tensor.zeros(2)));
        assertTrue(e.getMessage().startsWith("aten.slice.Tensor got an unexpected keyword argument 'dims'"), e.getMessage());

        Graph g2 = new Graph();
        Node x2 = g2.placeholder("x", null);
        g2.output(g2.callFunction(op("aten.slice.Tensor"), List.of(x2, 0L), Map.of("dim", 1L)));
        var e2 = assertThrows(IllegalArgumentException.class, () -> new GraphModule(g2).run(Tensor.zeros(2)));
        assertTrue(e2.getMessage().startsWith("aten.slice.Tensor got multiple values for argument 'dim'"), e2.getMessage());
    }

    @Test
    void attributesAndModulesComeFromTheGraphModule() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node w = g.getAttr("block.weight", null);
        Node cat = g.callFunction(op("aten.cat.default"), List.of(x, w), 0L);
        Node m = g.callModule("block.double", List.of(cat), Map.of());
        g.output(m);
        Tensor weight = Tensor.of(new float[] {5, 6}, 1, 2);
        CallableModule twice = args -> Tensor.cat(List.of((Tensor) args[0], (Tensor) args[0]), 1);
        GraphModule gm = new GraphModule(g, Map.of("block.weight", weight), Map.of("block.double", twice));
        gm.lint();
        Tensor xv = Tensor.of(new float[] {1, 2}, 1, 2);
        assertSameTensor(Tensor.tensor(new float[][] {{1, 2, 1, 2}, {5, 6, 5, 6}}), gm.run(xv));

        GraphModule missing = new GraphModule(g, Map.of(), Map.of("block.double", twice));
        var e = assertThrows(IllegalStateException.class, missing::lint);
        assertTrue(e.getMessage().startsWith("GraphModule lint failed: node 'block_weight' reads attribute 'block.weight', which the module does not have"), e.getMessage());
        var run = assertThrows(IllegalArgumentException.class, () -> missing.run(xv));
        assertEquals("GraphModule has no attribute 'block.weight'; it has []", run.getMessage());
    }

    @Test
    void inPlaceOpsWriteThroughToTheirInputs() {
        Graph g = new Graph();
        Node dst = g.placeholder("dst", null);
        Node src = g.placeholder("src", null);
        g.callFunction(op("aten.copy_.default"), dst, src);
        g.output(dst);
        Tensor d = Tensor.zeros(2, 2), s = Tensor.ones(2, 2);
        int before = d.version();
        Object out = new GraphModule(g).run(d, s);
        assertSame(d, out);
        assertSameTensor(Tensor.ones(2, 2), d);
        assertTrue(d.version() > before);
    }

    @Test
    void inputCountIsChecked() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        g.placeholder("y", null);
        g.output(x);
        var e = assertThrows(IllegalArgumentException.class, () -> new GraphModule(g).run(Tensor.zeros(1)));
        assertEquals("the graph takes 2 input(s) [x, y], but 1 were given", e.getMessage());
    }

    @Test
    void aFailingNodeKeepsItsExceptionAndGainsTheNodeAndSourceLine() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        Node v = g.callFunction(op("aten.view.default"), x, new int[] {4});
        v.setSourceLocation(new SourceLocation("MyApp", "fn", "MyApp.java", 21, 9, "  Tensor v = x.view(4);"));
        g.output(v);
        var e = assertThrows(IllegalArgumentException.class, () -> new GraphModule(g).run(Tensor.zeros(2, 3)));
        assertEquals("view: shape '[4]' is invalid for input of size 6", e.getMessage());
        assertEquals(1, e.getSuppressed().length);
        assertInstanceOf(Interpreter.NodeFailure.class, e.getSuppressed()[0]);
        assertEquals("While executing %view : [num_users=1] = call_function[target=aten.view.default](args = (%x, [4]), kwargs = {})\n"
                + "  from user code at MyApp.java:21 in MyApp.fn: Tensor v = x.view(4);", e.getSuppressed()[0].getMessage());
    }

    @Test
    void tensorMethodOverloadsFollowArgumentTypes() {
        Tensor x = Tensor.arange(6).reshape(2, 3);
        assertSameTensor(x.transpose(0, 1), TensorMethods.invoke("transpose", Arrays.asList(x, 0L, 1L)));
        assertSameTensor(x.split(new int[] {1, 2}, 1).get(1), ((List<?>) TensorMethods.invoke("split", Arrays.asList(x, new int[] {1, 2}, 1L))).get(1));
        assertSameTensor(x.split(1, 0).get(1), ((List<?>) TensorMethods.invoke("split", Arrays.asList(x, 1L, 0L))).get(1));
        var e = assertThrows(IllegalArgumentException.class, () -> TensorMethods.invoke("transpose", Arrays.asList(x, 0.5, 1L)));
        assertTrue(e.getMessage().startsWith("no overload of Tensor.transpose takes (Double 0.5, Long 1)"), e.getMessage());
        var none = assertThrows(IllegalArgumentException.class, () -> TensorMethods.invoke("frobnicate", Arrays.asList(x)));
        assertEquals("Tensor has no public method 'frobnicate'", none.getMessage());
    }
}
