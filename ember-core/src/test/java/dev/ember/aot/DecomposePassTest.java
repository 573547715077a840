package dev.ember.aot;

import dev.ember.fx.BuiltinFunctions;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.fx.ShapeProp;
import dev.ember.fx.SourceLocation;
import dev.ember.ops.OpOverload;
import dev.ember.ops.OpRegistry;
import dev.ember.ops.PointwiseOps;
import dev.ember.ops.ShapeOps;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Decompositions rewrite graphs into core ops, keep source lines, and compute what the ops compute. */
class DecomposePassTest {

    private static OpOverload op(String name) { return OpRegistry.get(name); }

    private static void assertClose(Tensor want, Tensor got, double tol) {
        assertArrayEquals(want.shape(), got.shape());
        double[] a = want.to(dev.ember.tensor.DType.FLOAT64).toDoubleArray(), b = got.to(dev.ember.tensor.DType.FLOAT64).toDoubleArray();
        for (int i = 0; i < a.length; i++) assertEquals(a[i], b[i], tol * (1 + Math.abs(a[i])), "element " + i);
    }

    @Test
    void softmaxLayerNormAndLinearBecomeCoreOpsWithTheirSourceLine() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), w = g.placeholder("w", null), b = g.placeholder("b", null);
        SourceLocation loc = new SourceLocation("Model", "forward", "Model.java", 42, 7, null);
        Node lin = g.callFunction(op("aten.linear.default"), x, w, b).setSourceLocation(loc);
        Node ln = g.callFunction(op("aten.layer_norm.default"), lin, new int[] {6}).setSourceLocation(loc);
        Node sm = g.callFunction(op("aten._softmax.default"), ln, -1L, false).setSourceLocation(loc);
        g.output(sm);
        GraphModule gm = new GraphModule(g);
        Tensor xs = Tensor.randn(4, 5), ws = Tensor.randn(6, 5), bs = Tensor.randn(6);
        Tensor want = (Tensor) gm.run(xs, ws, bs);

        GraphModule copy = new GraphModule(g.copy());
        ShapeProp.propagate(copy, xs, ws, bs);
        int replaced = DecomposePass.run(copy);
        assertTrue(replaced >= 3, "replaced " + replaced);
        for (Node n : copy.graph().nodes()) {
            if (n.kind() != NodeKind.CALL_FUNCTION) continue;
            String name = ((OpOverload) n.target()).name();
            assertNull(((OpOverload) n.target()).decomposition(), "left a composite op: " + name);
            assertEquals(loc, n.sourceLocation(), "source location of " + n);
        }
        assertClose(want, (Tensor) copy.run(xs, ws, bs), 1e-5);
    }

    @Test
    void registeredDecompositionsComputeWhatTheOpComputes() {
        Tensor x = Tensor.randn(3, 4, 5);
        for (var c : List.of(
                List.of("aten._log_softmax.default", new Object[] {x, 1L, false}),
                List.of("aten.var.correction", new Object[] {x, new int[] {0, 2}, 1.0, true}),
                List.of("aten.mean.dim", new Object[] {x, new int[] {-1}, false, null}),
                List.of("aten.silu.default", new Object[] {x}),
                List.of("aten.batch_norm.default", new Object[] {x, Tensor.randn(4), Tensor.randn(4), Tensor.randn(4), Tensor.rand(4).add(1.0), false, 0.1, 1e-5, true}))) {
            OpOverload o = op((String) c.get(0));
            Object[] args = (Object[]) c.get(1);
            Tensor viaDecomposition = (Tensor) o.decompose(args);
            assertClose(o.callTensor(args), viaDecomposition, 1e-5);
        }
    }

    @Test
    void aListReturningOpTakenByGetitemBecomesItsItems() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node parts = g.callFunction(ShapeOps.UNBIND, x, 1L);
        Node sum = g.callFunction(PointwiseOps.ADD_TENSOR, g.callFunction(BuiltinFunctions.GETITEM, parts, 0), g.callFunction(BuiltinFunctions.GETITEM, parts, 2));
        g.output(sum);
        GraphModule gm = new GraphModule(g);
        Tensor xs = Tensor.randn(4, 3);
        Tensor want = (Tensor) gm.run(xs);

        GraphModule copy = new GraphModule(g.copy());
        ShapeProp.propagate(copy, xs);
        assertEquals(1, DecomposePass.run(copy));
        for (Node n : copy.graph().nodes()) {
            assertTrue(n.target() != ShapeOps.UNBIND && n.target() != BuiltinFunctions.GETITEM, "unbind and its getitems are replaced by selects: " + copy.code());
        }
        assertClose(want, (Tensor) copy.run(xs), 0);

        // a list used whole (returned) keeps the op
        Graph whole = new Graph();
        whole.output(whole.callFunction(ShapeOps.UNBIND, whole.placeholder("x", null), 0L));
        GraphModule kept = new GraphModule(whole);
        ShapeProp.propagate(kept, xs);
        assertEquals(0, DecomposePass.run(kept));
    }
}
