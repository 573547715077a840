package dev.ember.inductor;

import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * div with a rounding mode, floor_divide, fmod and remainder compile to generated code (they were
 * declared fallbacks) with the eager kernels' own formulas: equal results bit for bit on every
 * dtype, signs and −0.0 included, and ATen's ZeroDivisionError for an integer zero divisor.
 */
class RoundingDivisionLoweringTest {

    private static final double[] A = {7, -7, 7, -7, 0, -0.0, 5.5, -5.5, 1e10, -3, 3, 2.5, -2.5, 9, -9, 100, -100, 1, -1, 13, 4};
    private static final double[] B = {2, 2, -2, -2, 3, 3, 2, 2, 3, 5, -5, -0.5, 0.5, 4, 4, -7, 7, 3, 3, -4, 6};

    private record Case(String op, Map<String, Object> kwargs, String formula) {}

    private static final List<Case> CASES = List.of(
            new Case("div.Tensor_mode", Map.of("rounding_mode", "trunc"), "divTrunc"),
            new Case("div.Tensor_mode", Map.of("rounding_mode", "floor"), "divFloor"),
            new Case("floor_divide.default", Map.of(), "divFloor"),
            new Case("fmod.Tensor", Map.of(), "fmod"),
            new Case("remainder.Tensor", Map.of(), "remainder"));

    private static GraphModule graph(Case c) {
        Graph g = new Graph();
        Node a = g.placeholder("a", null), b = g.placeholder("b", null);
        Node r = g.callFunction(OpRegistry.get("aten." + c.op()), List.of(a, b), c.kwargs());
        g.output(r);
        return new GraphModule(g);
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"FLOAT32", "FLOAT64", "INT32", "INT64"})
    void compiledEqualsEagerBitForBit(DType d) {
        double[] divisors = B.clone();
        if (!d.isFloatingPoint()) for (int i = 0; i < divisors.length; i++) if ((long) divisors[i] == 0) divisors[i] = 1;   // ±0.5 would be 0
        Tensor a = Tensor.of(A).to(d), b = Tensor.of(divisors).to(d);
        for (Case c : CASES) {
            GraphModule gm = graph(c);
            InductorGraph compiled = Inductor.compile(gm, List.of(a, b), CompileMode.DEFAULT, null);
            String what = c.op() + " " + c.kwargs() + " on " + d;
            assertTrue(compiled.sourceCode().contains("ScalarMath." + c.formula()), what + " is generated code calling the shared formula:\n" + compiled.sourceCode());
            assertFalse(compiled.perfHints().stream().anyMatch(h -> h.contains("eager kernel")), what + ": " + compiled.perfHints());
            double[] got = ((Tensor) compiled.run(new Object[] {a, b})).to(DType.FLOAT64).toDoubleArray();
            double[] want = ((Tensor) gm.run(new Object[] {a, b})).to(DType.FLOAT64).toDoubleArray();
            for (int i = 0; i < got.length; i++) {
                assertEquals(Double.doubleToLongBits(want[i]), Double.doubleToLongBits(got[i]),
                        what + " at " + i + " (" + A[i] + ", " + B[i] + "): compiled " + got[i] + ", eager " + want[i]);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"INT32", "INT64"})
    void anIntegerZeroDivisorRaisesAsEagerDoes(DType d) {
        Tensor a = Tensor.of(A).to(d), b = Tensor.of(new double[A.length]).to(d);
        for (Case c : CASES) {
            GraphModule gm = graph(c);
            InductorGraph compiled = Inductor.compile(gm, List.of(a, b), CompileMode.DEFAULT, null);
            ArithmeticException eager = assertThrows(ArithmeticException.class, () -> gm.run(new Object[] {a, b}));
            ArithmeticException ours = assertThrows(ArithmeticException.class, () -> compiled.run(new Object[] {a, b}), c.op());
            assertEquals(eager.getMessage(), ours.getMessage(), c.op());
        }
    }

    @Test
    void aZeroDivisorInALoopSplitAcrossThreadsRaisesTheSameError() {
        int n = 1 << 20;
        Tensor a = Tensor.arange(n).to(DType.INT64), b = Tensor.ones(n).to(DType.INT64);
        b.storage().longs()[n - 3] = 0;
        GraphModule gm = graph(CASES.get(4));
        InductorGraph compiled = Inductor.compile(gm, List.of(a, b), CompileMode.DEFAULT, null);
        ArithmeticException e = assertThrows(ArithmeticException.class, () -> compiled.run(new Object[] {a, b}));
        assertEquals("ZeroDivisionError", e.getMessage(), () -> { var w = new java.io.StringWriter(); e.printStackTrace(new java.io.PrintWriter(w)); return w.toString(); });
    }

    @Test
    void aFloatZeroDivisorGivesEagersInfinitiesAndNaNs() {
        Tensor a = Tensor.of(new float[] {1, -1, 0, 5}), b = Tensor.of(new float[] {0, 0, 0, -0.0f});
        for (Case c : CASES) {
            GraphModule gm = graph(c);
            InductorGraph compiled = Inductor.compile(gm, List.of(a, b), CompileMode.DEFAULT, null);
            float[] got = ((Tensor) compiled.run(new Object[] {a, b})).toFloatArray(), want = ((Tensor) gm.run(new Object[] {a, b})).toFloatArray();
            for (int i = 0; i < got.length; i++) assertEquals(Float.floatToIntBits(want[i]), Float.floatToIntBits(got[i]), c.op() + " at " + i);
        }
    }
}
