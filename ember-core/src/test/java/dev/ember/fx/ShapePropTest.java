package dev.ember.fx;

import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.ember.fx.Fx.f32;
import static dev.ember.fx.Fx.fake;
import static dev.ember.fx.Fx.op;
import static org.junit.jupiter.api.Assertions.*;

class ShapePropTest {

    private static TensorMeta meta(Object val) {
        FakeTensor f = assertInstanceOf(FakeTensor.class, val);
        return f.meta();
    }

    @Test
    void fillsEveryNodeWithItsFakeValue() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node t = g.callFunction(op("aten.transpose.int"), x, 0L, 1L);
        Node parts = g.callFunction(op("aten.split.Tensor"), t, 3L, 0L);
        Node last = g.callFunction(BuiltinFunctions.GETITEM, parts, -1L);
        Node u = g.callMethod("unsqueeze", List.of(last, 0L), Map.of());
        Node i = g.callFunction(op("aten._to_copy.default"), List.of(u), Map.of("dtype", DType.INT32));
        g.output(List.of(i, t));
        GraphModule gm = new GraphModule(g);

        Object out = ShapeProp.propagate(gm, Tensor.zeros(4, 5));   // a real input: replaced by a fake

        assertEquals(new TensorMeta(DType.FLOAT32, new int[] {4, 5}, new int[] {5, 1}, 0), meta(x.val()));
        assertEquals(new TensorMeta(DType.FLOAT32, new int[] {5, 4}, new int[] {1, 5}, 0), meta(t.val()), "a transposed view keeps strides");
        List<?> pieces = assertInstanceOf(List.class, parts.val());
        assertEquals(2, pieces.size());
        assertEquals(new TensorMeta(DType.FLOAT32, new int[] {3, 4}, new int[] {1, 5}, 0), meta(pieces.get(0)));
        assertEquals(new TensorMeta(DType.FLOAT32, new int[] {2, 4}, new int[] {1, 5}, 3), meta(pieces.get(1)));
        assertSame(pieces.get(1), last.val());
        assertArrayEquals(new int[] {1, 2, 4}, meta(u.val()).shape());
        assertEquals(TensorMeta.contiguous(DType.INT32, 1, 2, 4), meta(i.val()));
        List<?> outs = assertInstanceOf(List.class, out);
        assertSame(i.val(), outs.get(0));
        assertEquals(outs, g.outputNode().val());
    }

    @Test
    void factoriesAndRandomOpsComputeNothing() {
        Graph g = new Graph();
        Node z = g.callFunction(op("aten.zeros.default"), List.of(new int[] {1000, 1000}), Map.of("dtype", DType.FLOAT64));
        Node r = g.callFunction(op("aten.randn.default"), new int[] {2, 3});
        g.output(List.of(z, r));
        ShapeProp.propagate(new GraphModule(g));
        assertEquals(TensorMeta.contiguous(DType.FLOAT64, 1000, 1000), meta(z.val()));
        assertEquals(TensorMeta.contiguous(DType.FLOAT32, 2, 3), meta(r.val()));
        assertNull(((Tensor) z.val()).storage());
    }

    @Test
    void attributesModulesAndInPlaceOpsPropagate() {
        Graph g = new Graph();
        Node x = g.placeholder("x", f32(2, 3));
        Node w = g.getAttr("w", null);
        Node copied = g.callFunction(op("aten.copy_.default"), x, w);
        Node m = g.callModule("twice", List.of(copied), Map.of());
        g.output(m);
        Tensor weight = Tensor.ones(2, 3);
        GraphModule gm = new GraphModule(g, Map.of("w", weight),
                Map.of("twice", args -> Tensor.cat(List.of((Tensor) args[0], (Tensor) args[0]), 0)));
        ShapeProp.propagate(gm);     // from the placeholders' own fake values
        assertEquals(TensorMeta.contiguous(DType.FLOAT32, 2, 3), meta(w.val()));
        assertSame(x.val(), copied.val(), "an in-place op returns its self");
        assertEquals(TensorMeta.contiguous(DType.FLOAT32, 4, 3), meta(m.val()));
        assertArrayEquals(new float[] {1, 1, 1, 1, 1, 1}, weight.toFloatArray(), "the attribute itself is untouched");
    }

    @Test
    void shapeErrorsSurfaceWithTheOpsMessage() {
        Graph g = new Graph();
        Node x = g.placeholder("x", fake(DType.FLOAT32, 2, 3));
        g.output(g.callFunction(op("aten.view.default"), x, new int[] {5}));
        var e = assertThrows(IllegalArgumentException.class, () -> ShapeProp.propagate(new GraphModule(g)));
        assertEquals("view: shape '[5]' is invalid for input of size 6", e.getMessage());
    }

    @Test
    void placeholdersWithoutValuesNeedExampleInputs() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        g.output(x);
        var e = assertThrows(IllegalArgumentException.class, () -> ShapeProp.propagate(new GraphModule(g)));
        assertEquals("placeholder 'x' has no meta val; pass example inputs to ShapeProp.propagate", e.getMessage());
    }
}
