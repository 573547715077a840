package dev.ember.inductor;

import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.inductor.Graphs.call;
import static dev.ember.inductor.Graphs.checkAgainstEager;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A row of constant length has its masked tail behind {@code if (F.loopBound(n) != n)}, which C2
 * folds: on a length that is a multiple of the vector length the empty tail's masked load and store
 * at the array's end took the Vector API's lane-by-lane slow path (LoopWriter, TAIL_ALWAYS_RUNS).
 * Results equal eager's with and without a tail, pointwise and reduced, up to the last row.
 */
class TailGuardTest {
    /** (x + b) * 2 and its row sums: a pointwise kernel and a reduction over rows of {@code x}'s last dim. */
    private static GraphModule rowsAndSums() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), b = g.placeholder("b", null);
        Node y = call(g, "mul.Scalar", call(g, "add.Tensor", x, b), 2.0);
        g.output(List.of(y, call(g, "sum.dim_IntList", y, List.of(-1), false)));
        return new GraphModule(g);
    }

    @Test
    void aConstantRowRunsItsTailOnlyWhenItHasOne() {
        for (int n : new int[] {64, 67, 5}) {
            InductorGraph c = checkAgainstEager(rowsAndSums(), 1e-5, Tensor.randn(37, n), Tensor.randn(n));
            String src = c.sourceCode();
            assertTrue(src.contains("if (F.loopBound(" + n + ") != " + n + ")"), "the tail is guarded:\n" + src);
            assertTrue(!src.contains("run on every call, empty or not"), "no constant row's tail runs unguarded:\n" + src);
        }
    }
}
