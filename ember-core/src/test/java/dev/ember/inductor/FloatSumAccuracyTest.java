package dev.ember.inductor;

import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.SplittableRandom;

import static dev.ember.inductor.Graphs.call;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A compiled float32 sum is as accurate as eager's: blocks of {@code LoopWriter.SUM_BLOCK} terms on
 * float lanes, their totals carried in double. Summed on float lanes to the end, a million terms in
 * [0.5, 1.5) were 2.0e-7 off (relative, over 3 ulps) against eager's 2.4e-8, and fuzzed programs that multiplied
 * such a sum failed the judge (seeds 311725, 371588).
 */
class FloatSumAccuracyTest {
    private static Tensor uniform(int rows, int cols, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double[] v = new double[rows * cols];
        for (int i = 0; i < v.length; i++) v[i] = 0.5 + r.nextDouble();
        return Tensor.of(v).to(DType.FLOAT32).reshape(rows, cols);
    }

    /** The largest error in float ulps of the exact sum: a sum carried in double is off by its final rounding only (at most one ulp). */
    private static double ulpsOff(Tensor got, Tensor exact) {
        double worst = 0;
        double[] g = got.toDoubleArray(), e = exact.toDoubleArray();
        for (int i = 0; i < g.length; i++) worst = Math.max(worst, Math.abs(g[i] - e[i]) / Math.ulp((float) e[i]));
        return worst;
    }

    @Test
    void aLongRowSumIsAsAccurateAsEager() {
        Tensor x = uniform(4, 1 << 18, 1);
        Graph g = new Graph();
        g.output(call(g, "sum.dim_IntList", g.placeholder("x", null), new int[] {1}, false));
        InductorGraph compiled = Inductor.compile(new GraphModule(g), List.of(x), CompileMode.DEFAULT, null);
        Tensor exact = x.to(DType.FLOAT64).sum(new int[] {1}, false);
        double c = ulpsOff((Tensor) compiled.run(x), exact), e = ulpsOff(x.sum(new int[] {1}, false), exact);
        assertTrue(c <= 1, "compiled row sums " + c + " ulps off, eager " + e);
    }

    @Test
    void aWholeTensorSumOverSeveralInnerDimsIsAsAccurateAsEager() {
        // [32, 56*56]: the channel dim cannot merge with the spatial one (a per-channel scale), so the row has two inner dims
        Tensor x = uniform(32, 56 * 56 * 40, 2).reshape(1, 32, 56 * 40, 56), scale = uniform(1, 32, 3).reshape(1, 32, 1, 1);
        Graph g = new Graph();
        g.output(call(g, "sum.default", call(g, "mul.Tensor", g.placeholder("x", null), g.placeholder("s", null))));
        InductorGraph compiled = Inductor.compile(new GraphModule(g), List.of(x, scale), CompileMode.DEFAULT, null);
        Tensor product = x.to(DType.FLOAT64).mul(scale.to(DType.FLOAT64)), exact = product.sum();
        double c = ulpsOff((Tensor) compiled.run(x, scale), exact), e = ulpsOff(x.mul(scale).sum(), exact);
        assertTrue(c <= 1, "compiled sum " + c + " ulps off, eager " + e);
    }
}
