package dev.ember.inductor;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import static dev.ember.inductor.Graphs.call;
import static dev.ember.inductor.Graphs.checkAgainstEager;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A comparison used as a mask runs on vector lanes: {@code where(x > 0, g, 0)} (ReLU's backward,
 * whose bool condition reached the loop writer cast to float and back) and a comparison multiplied
 * in as 1 or 0. Both were scalar loops; both equal eager, NaN inputs included.
 */
class MaskVectorizationTest {
    private static Tensor withNaN(Tensor t) {
        float[] v = t.toFloatArray();
        v[3] = Float.NaN;
        v[v.length - 2] = Float.NaN;
        return Tensor.of(v).reshape(t.shape());
    }

    @Test
    void reluBackwardsWhereRunsOnLanes() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), t = g.placeholder("t", null);
        g.output(call(g, "mul.Scalar", call(g, "where.ScalarOther", call(g, "gt.Scalar", x, 0), t, 0.0), 3.0));
        String src = checkAgainstEager(new GraphModule(g), 1e-6, withNaN(Tensor.randn(8, 784)), withNaN(Tensor.randn(8, 784))).sourceCode();
        assertTrue(src.contains("compare(VectorOperators.GT") && src.contains(".blend("), "the mask is a vector compare and blend:\n" + src);
    }

    @Test
    void aComparisonMultipliedInAsOneOrZeroRunsOnLanes() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), t = g.placeholder("t", null);
        g.output(call(g, "sum.dim_IntList", call(g, "mul.Tensor", call(g, "le.Scalar", x, 0.5), t), java.util.List.of(-1), false));
        String src = checkAgainstEager(new GraphModule(g), 1e-5, withNaN(Tensor.randn(8, 784)), Tensor.randn(8, 784)).sourceCode();
        assertTrue(src.contains("compare(VectorOperators.LE") && src.contains(".blend("), "the comparison is a vector compare and blend:\n" + src);
    }

    /**
     * A condition making two VectorMath calls splits the loop like any other body (fuzzer seeds
     * 560628, 561809, …: silu's and abs's backward; the split found no innermost call inside a
     * condition, and the backward's compilation threw NullPointerException).
     */
    @Test
    void aConditionWithTwoVectorMathCallsSplitsTheLoop() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        Node cond = call(g, "gt.Scalar", call(g, "sin.default", call(g, "exp.default", x)), 0);
        g.output(call(g, "where.ScalarOther", cond, x, 0.0));
        String src = checkAgainstEager(new GraphModule(g), 1e-6, withNaN(Tensor.randn(4, 1000))).sourceCode();
        assertTrue(src.contains("one loop per VectorMath call"), "split:\n" + src);
    }
}
