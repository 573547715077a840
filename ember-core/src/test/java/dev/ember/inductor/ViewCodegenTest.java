package dev.ember.inductor;

import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Views folded into indexing, casts and copies: compiled code against the interpreter. */
class ViewCodegenTest {

    @Test
    void permuteSliceExpandAndCastMatchTheInterpreter() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node p = g.callFunction(OpRegistry.get("aten.permute.default"), x, new int[] {2, 0, 1});
        Node s = g.callFunction(OpRegistry.get("aten.slice.Tensor"), p, 1L, 1L, 5L, 2L);
        Node c = g.callFunction(OpRegistry.get("aten.clone.default"), s);
        Node u = g.callFunction(OpRegistry.get("aten.unsqueeze.default"), c, 0L);
        Node e = g.callFunction(OpRegistry.get("aten.expand.default"), u, new int[] {3, 7, 2, 2});
        Node d = g.callFunction(OpRegistry.get("aten._to_copy.default"), e, DType.FLOAT64);
        Node r = g.callFunction(OpRegistry.get("aten.reshape.default"), d, new int[] {-1});
        g.output(List.of(c, r));
        GraphModule gm = new GraphModule(g);
        Tensor in = Tensor.randn(5, 2, 7);
        InductorGraph compiled = Inductor.compile(gm, List.of(in), CompileMode.DEFAULT, null);
        assertTrue(compiled.sourceCode() != null, "compiled to code");
        List<?> got = (List<?>) compiled.run(in);
        List<?> want = (List<?>) gm.run(in);
        for (int i = 0; i < 2; i++) {
            Tensor a = (Tensor) got.get(i), b = (Tensor) want.get(i);
            assertArrayEquals(b.shape(), a.shape());
            assertEquals(b.dtype(), a.dtype());
            assertArrayEquals(b.toDoubleArray(), a.to(DType.FLOAT64).toDoubleArray());
        }
    }
}
