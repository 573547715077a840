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
 * Found by the differential fuzzer: linear and matmul decomposed a 3-D input to 2-D with
 * reshape(-1, k), ambiguous when a dim is zero (seed 1074); softmax and log_softmax shifted by an
 * amax that refuses an empty reduction dim (seed 6185). aot_eager and inductor threw where eager
 * returned an empty tensor. Decompositions must compute what the op computes on zero-size tensors too.
 */
class ZeroSizeDecompositionTest {
    @ParameterizedTest(name = "{0} of x[{1}]")
    @CsvSource({
            "aten.linear.default, '1,0,0', '32,0'",
            "aten.linear.default, '0,5,3', '4,3'",
            "aten.linear.default, '2,3,0', '4,0'",
            "aten.matmul.default, '0,5,3', '3,4'",
            "aten.matmul.default, '2,3,0', '0,4'",
            "aten.matmul.default, '1,0,3', '3,4'",
            "aten._softmax.default, '0',",
            "aten._log_softmax.default, '7,0,8',",
            "aten._softmax.default, '3,0',"})
    void decompositionsKeepZeroSizeResults(String op, String xShape, String wShape) {
        boolean softmax = wShape == null;
        Tensor x = Tensor.randn(shape(xShape)), w = softmax ? null : Tensor.randn(shape(wShape));
        Graph g = new Graph();
        Node xn = g.placeholder("x", null);
        if (softmax) {
            g.output(g.callFunction(OpRegistry.get(op), xn, (long) x.dim() - 1, false));
        } else {
            g.output(g.callFunction(OpRegistry.get(op), xn, g.placeholder("w", null)));
        }
        Object[] inputs = softmax ? new Object[] {x} : new Object[] {x, w};
        GraphModule gm = new GraphModule(g);
        Tensor want = (Tensor) gm.run(inputs);

        GraphModule copy = new GraphModule(g.copy());
        ShapeProp.propagate(copy, inputs);
        DecomposePass.run(copy);
        assertArrayEquals(want.shape(), ((Tensor) copy.run(inputs)).shape());
    }

    private static int[] shape(String s) { return Arrays.stream(s.split(",")).mapToInt(Integer::parseInt).toArray(); }
}
