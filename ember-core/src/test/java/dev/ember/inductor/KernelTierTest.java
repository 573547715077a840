package dev.ember.inductor;

import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.inductor.runtime.KernelTier;
import dev.ember.kernels.ColdStart;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static dev.ember.inductor.Graphs.call;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A generated kernel's two forms (KernelTier): cold calls run the scalar form, which must give every
 * element the bits of the SIMD form (a reduction's scalar form folds its terms lane by lane as the
 * SIMD form does); a pointwise kernel that calls a polynomial formula (exp, sin, sigmoid …) keeps
 * its one SIMD form, a row kernel does not; and a kernel runs its scalar form on its first calls only.
 */
class KernelTierTest {
    @AfterEach
    void tiersChooseAgain() { KernelTier.forceForm(null); }

    /** The tests' JVM is started with the flag tiers need (pom.xml's argLine): tiers are on unless EMBER_COLD_START=java. */
    private static void tiersOn() {
        assumeTrue(ColdStart.enabled(), "EMBER_COLD_START=java turns tiers off");
        assertTrue(KernelTier.enabled(), "the tests' JVM lacks " + KernelTier.INLINE_VECTOR_MATH + " (pom.xml's argLine)");
    }

    @Test
    void tiersAreOnOnlyWithTheFlagThatInlinesVectorMath() {
        assertTrue(KernelTier.vectorMathInlined(List.of("-Xmx1g", "-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::*")));
        assertTrue(KernelTier.vectorMathInlined(List.of("-XX:CompileCommand=inline,dev/ember/kernels/VectorMath.*")));
        assertFalse(KernelTier.vectorMathInlined(List.of()));
        assertFalse(KernelTier.vectorMathInlined(List.of("-XX:CompileCommand=dontinline,dev.ember.kernels.VectorMath::*")));
        assertFalse(KernelTier.vectorMathInlined(List.of("-XX:CompileCommand=inline,dev.ember.kernels.VectorMath::exp")),
                "one function inlined leaves the others to the profile");
    }

    @Test
    void aKernelRunsItsScalarFormForItsFirstCallsThenTriesItsSimdForm() {
        tiersOn();
        KernelTier t = new KernelTier();
        for (int i = 0; i < KernelTier.SCALAR_CALLS; i++) {
            assertFalse(t.simd(), "call " + i);
            ran(t, false, 1_000_000);   // a scalar call of 1 ms
        }
        assertTrue(t.simd(), "the first try of the SIMD form follows the scalar calls");
        assertEquals(KernelTier.SCALAR_CALLS, t.scalarCalls());
    }

    /** A call that took {@code nanos}: what the generated code passes back to {@link KernelTier#ran}. */
    private static void ran(KernelTier t, boolean simd, long nanos) { t.ran(simd, System.nanoTime() - nanos); }

    @Test
    void aSlowTryPutsTheNextOneFurtherOffAndAFastOneDecidesSimdForGood() {
        tiersOn();
        KernelTier t = new KernelTier();
        for (int i = 0; i < KernelTier.SCALAR_CALLS; i++) ran(t, t.simd(), 2_000_000);
        List<Integer> scalarCallsBetweenTries = new ArrayList<>();
        for (int tryNo = 0; tryNo < 7; tryNo++) {
            int scalar = 0;
            while (!t.simd()) {
                ran(t, false, 2_000_000);
                scalar++;
            }
            scalarCallsBetweenTries.add(scalar);
            ran(t, true, 50_000_000);   // the SIMD form still cold: 25 times slower
        }
        assertEquals(List.of(0, 2, 4, 8, KernelTier.MAX_GAP, KernelTier.MAX_GAP, KernelTier.MAX_GAP), scalarCallsBetweenTries);
        while (!t.simd()) ran(t, false, 2_000_000);
        ran(t, true, 500_000);   // compiled now: faster than the scalar form's fastest call
        int scalarBefore = t.scalarCalls();
        for (int i = 0; i < 100; i++) {
            assertTrue(t.simd(), "SIMD for good after a fast try");
            ran(t, true, 90_000_000);   // even a slow call (a pause) changes nothing now
        }
        assertEquals(scalarBefore, t.scalarCalls());
        assertEquals("simd", t.toString());
    }

    @Test
    void aSimdFormThatNeverCatchesUpIsStillTriedOnceInEveryFewCalls() {
        tiersOn();
        KernelTier t = new KernelTier();
        int simdCalls = 0, calls = 2_000;
        for (int call = 0; call < calls; call++) {
            boolean simd = t.simd();
            if (simd) simdCalls++;
            ran(t, simd, simd ? 1_500_000 : 1_000_000);   // the SIMD form stays 1.5 times slower
        }
        assertTrue(simdCalls >= calls / (KernelTier.MAX_GAP + 1) - 5 && simdCalls <= calls / KernelTier.MAX_GAP + 5, simdCalls + " tries in " + calls + " calls");
        while (!t.simd()) ran(t, false, 1_000_000);
        ran(t, true, 1_050_000);   // within a tenth of the scalar form's fastest call: taken
        assertEquals(0L, t.clock(), "decided: no more timing");
        assertTrue(t.simd());
    }

    @Test
    void aCompiledGraphsFirstCallsRunTheScalarFormThenItsSimdFormForGood() {
        tiersOn();
        Graph g = new Graph();
        Node in = g.placeholder("x", null);
        g.output(call(g, "relu.default", call(g, "add.Tensor", call(g, "mul.Tensor", in, 2.0), 1.0)));
        Tensor x = values(4099, 7, DType.FLOAT32, 4099);
        InductorGraph compiled = Inductor.compile(new GraphModule(g), List.of(x), CompileMode.DEFAULT, null);
        assertTrue(compiled.sourceCode().contains("_scalar("), compiled.sourceCode());
        long before = KernelTier.scalarCallsInProcess();
        for (int i = 0; i < KernelTier.SCALAR_CALLS; i++) compiled.run(x);
        assertEquals(KernelTier.SCALAR_CALLS, KernelTier.scalarCallsInProcess() - before, "the one kernel's first calls ran its scalar form");
        // then tries of the SIMD form decide, by time, at most MAX_GAP calls apart; once the SIMD form is compiled, no scalar call
        int calls = 0, quiet = 0;
        while (quiet < 4 * KernelTier.MAX_GAP && calls < 50_000) {
            long s = KernelTier.scalarCallsInProcess();
            compiled.run(x);
            calls++;
            quiet = KernelTier.scalarCallsInProcess() == s ? quiet + 1 : 0;
        }
        assertEquals(4 * KernelTier.MAX_GAP, quiet, "the kernel settled on its SIMD form after " + calls + " calls");
    }

    /** Special values first, then random ones of several scales: {@code n} elements, vector bodies and a tail. */
    private static Tensor values(int n, long seed, DType d, int... shape) {
        double[] special = {-0.0, 0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1.0, -1.0, 1e-30, -1e-30, 88.0, -88.0,
                100.0, -100.0, 0.5, -0.5, 3.0, -7.25, 1e5, -1e5};
        SplittableRandom r = new SplittableRandom(seed);
        double[] v = new double[n];
        for (int i = 0; i < n; i++) v[i] = i < special.length ? special[i] : r.nextDouble(-1, 1) * (r.nextBoolean() ? 6 : 60);
        return Tensor.of(v).to(d).reshape(shape);
    }

    private static long[] bits(Object out) {
        Tensor t = ((Tensor) out).contiguous();
        if (t.dtype() == DType.FLOAT32) {
            float[] f = t.toFloatArray();
            long[] b = new long[f.length];
            for (int i = 0; i < f.length; i++) b[i] = Float.floatToIntBits(f[i]);
            return b;
        }
        double[] x = t.toDoubleArray();
        long[] b = new long[x.length];
        for (int i = 0; i < x.length; i++) b[i] = Double.doubleToLongBits(x[i]);
        return b;
    }

    /**
     * Compiles {@code gm} and runs it with every kernel in its SIMD form, then in its scalar form:
     * the same bits. Asserts that the kernel has both forms exactly when it has SIMD loops and
     * {@code oneForm} is false (a pointwise kernel that calls exp, sin, sigmoid … has one form).
     */
    private static String sameBitsInBothForms(String what, boolean oneForm, GraphModule gm, Tensor... inputs) {
        tiersOn();
        InductorGraph g = Inductor.compile(gm, List.of(inputs), CompileMode.DEFAULT, null);
        boolean simdLoops = g.sourceCode().contains(".fromArray(");
        assertEquals(simdLoops && !oneForm, g.sourceCode().contains("_scalar("),
                what + ": a kernel has a scalar form when it has SIMD loops, unless it is a pointwise kernel calling a polynomial formula\n" + g.sourceCode());
        KernelTier.forceForm(true);
        long[] simd = bits(g.run((Object[]) inputs));
        KernelTier.forceForm(false);
        long[] scalar = bits(g.run((Object[]) inputs));
        assertArrayEquals(simd, scalar, what + ": the scalar form gave other bits than the SIMD form");
        return g.sourceCode();
    }

    private static final String[] ONE_OR_TWO_INSTRUCTIONS = {"relu", "rsqrt", "sqrt", "abs", "neg"};
    private static final String[] POLYNOMIALS = {"sigmoid", "silu", "exp", "log", "log1p", "sin", "cos", "tanh"};

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"FLOAT32", "FLOAT64"})
    void everyPointwiseFormulaGivesTheSameBitsInBothForms(DType d) {
        Tensor x = values(1037, 1, d, 1037), y = values(1037, 2, d, 1037);
        for (String[] ops : new String[][] {ONE_OR_TWO_INSTRUCTIONS, POLYNOMIALS}) {
            for (String op : ops) {
                Graph g = new Graph();
                Node in = g.placeholder("x", null);
                g.output(call(g, op + ".default", in));
                sameBitsInBothForms(op + " " + d, ops == POLYNOMIALS, new GraphModule(g), x);
            }
        }
        for (String approximate : new String[] {"none", "tanh"}) {
            Graph g = new Graph();
            Node in = g.placeholder("x", null);
            g.output(g.callFunction(dev.ember.ops.OpRegistry.get("aten.gelu.default"), List.of(in), Map.of("approximate", approximate)));
            sameBitsInBothForms("gelu " + approximate + " " + d, true, new GraphModule(g), x);
        }
        // binary ops, a scalar and a clamp fused into one kernel (each with a SIMD form in both dtypes)
        Graph g = new Graph();
        Node a = g.placeholder("a", null), b = g.placeholder("b", null);
        Node q = call(g, "div.Tensor", call(g, "mul.Tensor", a, b), call(g, "add.Tensor", b, 3.0));
        Node m = call(g, "maximum.default", call(g, "sub.Tensor", q, a), call(g, "minimum.default", a, b));
        g.output(call(g, "clamp.default", call(g, "mul.Tensor", m, m), -5.0, 7.5));
        sameBitsInBothForms("binary chain " + d, false, new GraphModule(g), x, y);
    }

    @Test
    void aReluEpilogueOfAProductAndABroadcastRowGivesTheSameBitsInBothForms() {
        Tensor x = values(64 * 96, 3, DType.FLOAT32, 64, 96), w = values(80 * 96, 4, DType.FLOAT32, 80, 96).mul(0.05),
                bias = values(80, 5, DType.FLOAT32, 80);
        Graph g = new Graph();
        Node in = g.placeholder("x", null), weight = g.placeholder("w", null), b = g.placeholder("b", null);
        g.output(call(g, "relu.default", call(g, "linear.default", in, weight, b)));
        sameBitsInBothForms("relu(linear)", false, new GraphModule(g), x, w, bias);
    }

    /**
     * Reductions: the scalar form folds each term into the lane and accumulator the SIMD form would,
     * and sums the lanes in {@code VectorMath.sumLanes}'s order, so both give the same bits. Row
     * lengths below, at and around multiples of the lane count and of the four unrolled vectors,
     * rows over several inner dims, special values (NaN, infinities, signed zeros) among the terms.
     */
    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"FLOAT32", "FLOAT64"})
    void everyReductionGivesTheSameBitsInBothForms(DType d) {
        for (int n : new int[] {1, 3, 15, 16, 17, 63, 64, 65, 128, 129, 300, 1037, 2048, 2049, 5000}) {
            Tensor x = values(6 * n, 7 + n, d, 6, n), y = values(6 * n, 8 + n, d, 6, n);
            String at = " over " + n + " " + d;
            lanes(n, sameBitsInBothForms("sum" + at, false, reduction(g -> call(g, "sum.dim_IntList", g.placeholder("x", null), new int[] {1}, false)), x));
            lanes(n, sameBitsInBothForms("amax" + at, false, reduction(g -> call(g, "amax.default", g.placeholder("x", null), new int[] {1}, false)), x));
            lanes(n, sameBitsInBothForms("amin of a product" + at, false, reduction(g -> {
                Node a = g.placeholder("a", null), b = g.placeholder("b", null);
                return call(g, "amin.default", call(g, "mul.Tensor", a, b), new int[] {1}, false);
            }), x, y));
            lanes(n, sameBitsInBothForms("softmax" + at, false, reduction(g -> call(g, "_softmax.default", g.placeholder("x", null), 1L, false)), x));
            // a row kernel whose pointwise stage calls a polynomial formula (log) has a scalar form, unlike a pointwise kernel
            lanes(n, sameBitsInBothForms("log_softmax" + at, false, reduction(g -> call(g, "_log_softmax.default", g.placeholder("x", null), 1L, false)), x));
            lanes(n, sameBitsInBothForms("var" + at, false, reduction(g -> call(g, "var.correction", g.placeholder("x", null), new int[] {1}, 1.0, false)), x));
            Tensor w = values(n, 9, d, n), b = values(n, 10, d, n);
            lanes(n, sameBitsInBothForms("layer_norm" + at, false, reduction(g -> {
                Node in = g.placeholder("x", null), weight = g.placeholder("w", null), bias = g.placeholder("b", null);
                return call(g, "layer_norm.default", in, new int[] {n}, weight, bias, 1e-5);
            }), x, w, b));
        }
        // rows over two inner dims: the accumulators carry from one inner row to the next
        Tensor x3 = values(4 * 5 * 37, 11, d, 4, 5, 37);
        lanes(37, sameBitsInBothForms("sum over [5, 37] " + d, false, reduction(g -> call(g, "sum.dim_IntList", g.placeholder("x", null), new int[] {1, 2}, false)), x3));
        lanes(37, sameBitsInBothForms("mean over [5, 37] " + d, false, reduction(g -> call(g, "mean.dim", g.placeholder("x", null), new int[] {1, 2}, false)), x3));
    }

    /** A kernel over rows of {@code n} terms, for {@code n} of a vector or more, runs its reductions on lanes and has a scalar form: the test is not empty. */
    private static void lanes(int n, String code) {
        if (n >= 16) assertTrue(code.contains("_scalar(") && (code.contains("F.length()") || code.contains("D.length()")), code);
    }

    private static GraphModule reduction(java.util.function.Function<Graph, Node> body) {
        Graph g = new Graph();
        g.output(body.apply(g));
        return new GraphModule(g);
    }

    @Test
    void aReductionKernelHasAScalarFormThatFoldsLaneByLane() {
        tiersOn();
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        g.output(call(g, "_softmax.default", x, 1L, false));
        InductorGraph compiled = Inductor.compile(new GraphModule(g), List.of(values(64 * 300, 6, DType.FLOAT32, 64, 300)), CompileMode.DEFAULT, null);
        String code = compiled.sourceCode();
        assertTrue(code.contains("_scalar(") && code.contains("VectorMath.sumLanes("), code);
    }

    /**
     * Found by the differential fuzzer (seed 410566, max-autotune): max-autotune's variant without SIMD
     * loops summed float32 in float, because the accumulator's type followed whether the row could
     * run on lanes instead of whether this writer put it there. Sequential float adds over 100,352
     * terms were 75 ulps off; the scalar loops sum float32 in double, as before the lane emulation.
     */
    @Test
    void maxAutotunesScalarVariantSumsFloat32InDouble() {
        Graph g = new Graph();
        g.output(call(g, "sum.default", call(g, "relu.default", g.placeholder("x", null))));
        SplittableRandom r = new SplittableRandom(410566);
        double[] v = new double[200_000];
        for (int i = 0; i < v.length; i++) v[i] = 0.5 + r.nextDouble();
        Tensor x = Tensor.of(v).to(DType.FLOAT32).reshape(400, 500);
        // a chooser that takes every variant: the one without SIMD loops
        InductorGraph scalarVariant = Inductor.compile(new GraphModule(g), List.of(x), CompileMode.MAX_AUTOTUNE, null, (a, b, in) -> true);
        assertFalse(scalarVariant.sourceCode().contains("FloatVector.fromArray("), scalarVariant.sourceCode());
        double exact = x.to(DType.FLOAT64).sum().item(), got = ((Tensor) scalarVariant.run(x)).item();
        assertTrue(Math.abs(got - exact) / exact < 1e-7, "sum " + got + ", float64 " + exact + ": relative error " + Math.abs(got - exact) / exact);
    }
}
