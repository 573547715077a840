package dev.ember.inductor;

import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.function.DoubleBinaryOperator;

import static dev.ember.inductor.Graphs.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Vectorized row reductions fold four vectors per step into four accumulators, then one vector per
 * step, then scalars: a row of 4·16·2 + 16 + 3 elements runs all three loops (with 8 or 16 lanes),
 * and every lane must land in the result exactly once, also when the reduction stores its terms
 * for a later stage.
 */
class VectorReductionTest {
    private static final int ROWS = 5, COLS = 4 * 16 * 2 + 16 + 3;

    @ParameterizedTest(name = "{0}, terms stored: {1}, {2}")
    @CsvSource({
            "sum.dim_IntList, false, FLOAT32", "amax.default, false, FLOAT32", "amin.default, false, FLOAT32",
            "sum.dim_IntList, true, FLOAT32", "amax.default, true, FLOAT32", "amin.default, true, FLOAT32",
            "sum.dim_IntList, true, FLOAT64", "amax.default, false, FLOAT64",
    })
    void rowReductionMatchesFloat64(String op, boolean storeTerms, DType dtype) {
        Tensor x = Tensor.randn(ROWS, COLS).to(dtype);
        Graph g = new Graph();
        Node in = g.placeholder("x", null);
        // term(x) = exp(x) * 2 (float64: rsqrt(x² + 1) * 2, as float64 exp has no SIMD form): big enough
        // that a later stage reading it back gets it from the reduction's store
        boolean doubles = dtype == DType.FLOAT64;
        Node inner = doubles ? call(g, "rsqrt.default", call(g, "add.Tensor", call(g, "mul.Tensor", in, in), 1.0)) : call(g, "exp.default", in);
        Node term = call(g, "mul.Tensor", inner, 2.0);
        Node reduced = call(g, op, term, new int[] {-1}, true);
        g.output(storeTerms ? List.of(reduced, call(g, "div.Tensor", term, reduced)) : List.of(reduced));
        InductorGraph compiled = Inductor.compile(new GraphModule(g), List.of(x), CompileMode.DEFAULT, null);
        String source = compiled.sourceCode();
        assertTrue(source.contains("4 * " + (dtype == DType.FLOAT32 ? "F" : "D") + ".length()"), "four vectors per step:\n" + source);
        if (storeTerms) assertTrue(source.contains(".intoArray("), "the reduction stores its terms:\n" + source);

        List<?> got = (List<?>) compiled.run(x);
        String name = source.substring(source.indexOf("final class ") + 12, source.indexOf(" {", source.indexOf("final class ")));
        // the same code from the printed source: the same bits (reliability.md, "JIT tiers and the last bit")
        Graphs.assertSame(got, compiled.withClassBytes(Javac.compile("dev.ember.inductor." + name, source)).run(x), 0, "printed source");
        double[] xs = x.to(DType.FLOAT64).toDoubleArray();
        double[] want = new double[ROWS];
        DoubleBinaryOperator fold = switch (op) {
            case "sum.dim_IntList" -> Double::sum;
            case "amax.default" -> Math::max;
            default -> Math::min;
        };
        double tol = dtype == DType.FLOAT32 ? 1e-5 : 1e-12;
        for (int r = 0; r < ROWS; r++) {
            want[r] = term(xs[r * COLS], doubles);
            for (int c = 1; c < COLS; c++) want[r] = fold.applyAsDouble(want[r], term(xs[r * COLS + c], doubles));
        }
        double[] reducedGot = ((Tensor) got.get(0)).to(DType.FLOAT64).toDoubleArray();
        for (int r = 0; r < ROWS; r++) assertEquals(want[r], reducedGot[r], tol * Math.abs(want[r]), "row " + r);
        if (storeTerms) {
            double[] divided = ((Tensor) got.get(1)).to(DType.FLOAT64).toDoubleArray();
            for (int i = 0; i < xs.length; i++) {
                double w = term(xs[i], doubles) / want[i / COLS];
                assertEquals(w, divided[i], tol * Math.abs(w), "element " + i);
            }
        }
    }

    private static double term(double x, boolean doubles) { return doubles ? 2 / Math.sqrt(x * x + 1) : Math.exp(x) * 2; }
}
