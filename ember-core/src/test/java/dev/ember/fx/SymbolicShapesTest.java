package dev.ember.fx;

import dev.ember.ops.LinalgOps;
import dev.ember.ops.PointwiseOps;
import dev.ember.ops.ReductionOps;
import dev.ember.ops.ShapeOps;
import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.SymInt;
import dev.ember.tensor.SymShape;
import dev.ember.tensor.TensorMeta;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class SymbolicShapesTest {

    private static final SymInt S0 = SymInt.symbol(0), S1 = SymInt.symbol(1);

    /** A placeholder {@code f32[sizes]} (contiguous) whose fake value is at the hints. */
    private static Node input(Graph g, String name, long[] hints, SymInt... sizes) {
        SymInt[] strides = new SymInt[sizes.length];
        SymInt stride = SymInt.of(1);
        for (int d = sizes.length - 1; d >= 0; d--) {
            strides[d] = stride;
            stride = stride.times(sizes[d]);
        }
        SymShape shape = new SymShape(sizes, strides, SymInt.of(0));
        Node p = g.placeholder(name, new FakeTensor(shape.eval(DType.FLOAT32, hints)));
        p.setSymVal(shape);
        return p;
    }

    @Test
    void interpolatesEveryNodesSizesAndStrides() {
        long[] hints = {6, 10};
        SizeSymbols symbols = new SizeSymbols(List.of(new SizeSymbols.Symbol(0, "x.size(0)", 0, 0, 6, 2, Long.MAX_VALUE),
                new SizeSymbols.Symbol(1, "y.size(0)", 1, 0, 10, 2, Long.MAX_VALUE)));
        Graph g = new Graph();
        Node x = input(g, "x", hints, S0, SymInt.of(8));
        Node y = input(g, "y", hints, S1, SymInt.of(8));
        Node xy = g.callFunction(ShapeOps.CAT, List.of(x, y), 0);
        Node flat = g.callFunction(ShapeOps.VIEW, xy, List.of(S0.plus(S1).times(8)));
        Node outer = g.callFunction(LinalgOps.MM, g.callFunction(ShapeOps.T, x), x);
        Node rows = g.callFunction(ReductionOps.SUM_DIM, g.callFunction(PointwiseOps.RELU, xy), new int[] {1}, false);
        g.output(List.of(flat, outer, rows));
        GraphModule gm = new GraphModule(g);
        gm.setSizeSymbols(symbols);
        ShapeProp.propagate(gm);

        new SymbolicShapes(symbols).annotate(gm);

        assertEquals("[8*s0 + 8*s1]", List.of(((SymShape) flat.symVal()).sizes()).toString());
        assertEquals("[s0 + s1, 8]", List.of(((SymShape) xy.symVal()).sizes()).toString());
        assertEquals("[8, 1]", List.of(((SymShape) xy.symVal()).strides()).toString());
        assertEquals("[8, 8]", List.of(((SymShape) outer.symVal()).sizes()).toString());
        assertEquals("[s0 + s1]", List.of(((SymShape) rows.symVal()).sizes()).toString());
        assertNull(SymbolicShapes.check(gm, new long[] {3, 41}), "the metadata holds at sizes never sampled");
        GraphModule at = SymbolicShapes.instantiate(gm, new long[] {3, 41});
        assertEquals(List.of(8 * 44), List.of(((FakeTensor) at.graph().nodes().get(3).val()).shape()[0]));
    }

    @Test
    void aSizeThatIsNoPolynomialMakesTheGraphNotGeneric() {
        long[] hints = {6};
        SizeSymbols symbols = new SizeSymbols(List.of(new SizeSymbols.Symbol(0, "x.size(0)", 0, 0, 6, 2, Long.MAX_VALUE)));
        Graph g = new Graph();
        Node x = input(g, "x", hints, S0, SymInt.of(4));
        // every second row: ceil(s0 / 2) rows, a floor division
        Node half = g.callFunction(ShapeOps.SLICE, x, 0, 0, Long.MAX_VALUE, 2);
        g.output(List.of(half));
        GraphModule gm = new GraphModule(g);
        ShapeProp.propagate(gm);
        gm.setSizeSymbols(symbols);
        var e = assertThrows(SymbolicShapes.NotGeneric.class, () -> new SymbolicShapes(symbols).annotate(gm));
        assertTrue(e.getMessage().contains("size 0 of slice"), e.getMessage());
    }

    @Test
    void generalizesIntArgumentsOfGraphsLoweredPerWorld() {
        SizeSymbols symbols = new SizeSymbols(List.of(new SizeSymbols.Symbol(0, "x.size(0)", 0, 0, 5, 2, Long.MAX_VALUE)));
        SymbolicShapes shapes = new SymbolicShapes(symbols);
        List<GraphModule> perWorld = shapes.worlds().stream().map(w -> {
            Graph g = new Graph();
            Node x = g.placeholder("x", new FakeTensor(TensorMeta.contiguous(DType.FLOAT32, (int) w[0], 3)));
            g.output(List.of(g.callFunction(ShapeOps.VIEW, x, new int[] {(int) w[0] * 3})));
            GraphModule gm = new GraphModule(g);
            ShapeProp.propagate(gm);
            return gm;
        }).toList();
        GraphModule gm = shapes.generalize(perWorld);
        Node view = gm.graph().nodes().get(1);
        assertEquals("[3*s0]", view.arg(1).toString());
        assertEquals("[3*s0]", List.of(((SymShape) view.symVal()).sizes()).toString());
        assertSame(symbols, gm.sizeSymbols());
    }
}
