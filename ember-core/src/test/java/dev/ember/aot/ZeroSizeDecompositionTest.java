package dev.ember.aot;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.ShapeProp;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * Found by the differential fuzzer (seed 1074): linear and matmul decompose a 3-D input to 2-D with
 * reshape(-1, k), which is ambiguous when a dim is zero, so aot_eager and inductor threw where eager
 * returned an empty tensor. Every decomposition that flattens leading dims must count them.
 */
class ZeroSizeDecompositionTest {
    @ParameterizedTest(name = "{0} of x{1}")
    @CsvSource({
            "aten.linear.default, '1,0,0', '32,0'",
            "aten.linear.default, '0,5,3', '4,3'",
            "aten.linear.default, '2,3,0', '4,0'",
            "aten.matmul.default, '0,5,3', '3,4'",
            "aten.matmul.default, '2,3,0', '0,4'",
            "aten.matmul.default, '1,0,3', '3,4'"})
    void flatteningDecompositionsKeepZeroSizeDims(String op, String xShape, String wShape) {
        Decompositions.install();
        Tensor x = Tensor.randn(shape(xShape)), w = Tensor.randn(shape(wShape));
        Graph g = new Graph();
        Node xn = g.placeholder("x", null), wn = g.placeholder("w", null);
        g.output(g.callFunction(OpRegistry.get(op), xn, wn));
        GraphModule gm = new GraphModule(g);
        Tensor want = (Tensor) gm.run(x, w);

        GraphModule copy = new GraphModule(g.copy());
        ShapeProp.propagate(copy, x, w);
        DecomposePass.run(copy);
        assertArrayEquals(want.shape(), ((Tensor) copy.run(x, w)).shape());
    }

    private static int[] shape(String s) { return Arrays.stream(s.split(",")).mapToInt(Integer::parseInt).toArray(); }
}
