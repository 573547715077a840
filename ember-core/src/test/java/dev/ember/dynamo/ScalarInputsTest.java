package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Doubles a frame receives are graph inputs, not guarded constants (issue #15's scalars; PyTorch's
 * {@code specialize_float=False}): a new value runs the same compiled code. A use that needs the
 * value while tracing specializes it (the frame is traced again with the double as a constant
 * guarded by its value); {@code Options.specializeFloat(true)} restores the old behaviour.
 */
class ScalarInputsTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor scaleAndShift(Tensor x, double s) { return x.mul(s).add(s * 2 - 1); }

    static Tensor branchOnScale(Tensor x, double s) { return s > 0 ? x.mul(s) : x.neg(); }

    static Tensor centerOnMax(Tensor x) {
        double m = x.amax().item();         // a graph break (capture_scalar_outputs is off): m is carried into the resume method
        return x.sub(m).mul(2);
    }

    static double twiceAndSize(Tensor x, double s) { return s * 2 + x.size(0); }

    private static float[] eagerOf(Tensor t) { return t.toFloatArray(); }

    /** The user's method's frame (resume methods have frames of their own, in hidden classes). */
    private static CompiledFrame frameOf(Options opts) {
        return FrameRegistry.frames().stream().filter(f -> !f.method().owner().isHidden()).filter(f -> f.options() == opts).findFirst().orElseThrow();
    }

    @Test
    void aDoubleArgumentIsAGraphInputAndNeverRecompiles() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Double, Tensor>) ScalarInputsTest::scaleAndShift, opts);
        Tensor x = Tensor.randn(3, 4);
        for (int call = 0; call < 20; call++) {
            double s = 0.37 * call - 3.1;
            assertArrayEquals(eagerOf(scaleAndShift(x, s)), eagerOf(f.apply(x, s)), "call " + call);
        }
        assertEquals(1, cc.frameCount(), "one compile serves every value of s");
        OutputGraph g = frameOf(opts).entries().getFirst().graph();
        assertEquals(2, g.inputSources().size(), "x and s are the graph's inputs");
        assertTrue(g.guards().stream().noneMatch(guard -> guard.describe().contains("L['s']")), "no guard on s: " + g.guards());
    }

    @Test
    void theInductorComputesWithTheDoubleAsEagerDoes() {
        Options opts = Options.backend("inductor");
        var f = Ember.compile((Fn2<Tensor, Double, Tensor>) ScalarInputsTest::scaleAndShift, opts);
        Tensor x = Tensor.randn(5, 7);
        for (double s : new double[] {0.1, 1e-3, -2.5, 1.0 / 3, 12345.678}) {
            assertArrayEquals(eagerOf(scaleAndShift(x, s)), eagerOf(f.apply(x, s)), "s = " + s);
        }
        assertEquals(1, frameOf(opts).entries().size());
    }

    /** An optimizer's hyperparameters read from an array: each element a double input of the graph. */
    static Tensor fromArray(Tensor x, double[] h) { return x.mul(h[0]).sum().mul(h[1]); }

    @Test
    void aDoubleReadFromAnArrayIsAZeroDimensionalInputOnEveryCall() {
        for (String backend : new String[] {"aot_eager", "inductor"}) {
            var log = new java.io.ByteArrayOutputStream();
            var saved = dev.ember.logging.Logs.output();
            dev.ember.logging.Logs.setOutput(new java.io.PrintStream(log, true, java.nio.charset.StandardCharsets.UTF_8));
            try {
                Ember.setLogs("perf_hints");
                var f = Ember.compile((Fn2<Tensor, double[], Tensor>) ScalarInputsTest::fromArray, Options.backend(backend));
                Tensor x = Tensor.randn(3, 4);
                for (int call = 0; call < 4; call++) {
                    double[] h = {0.5 + call, 2.0 - call};
                    Tensor want = fromArray(x, h), got = f.apply(x, h);
                    assertArrayEquals(want.shape(), got.shape(), backend + " call " + call + ": a 0-d result stays 0-d");
                    assertEquals(want.item(), got.item(), 1e-4 * Math.max(1, Math.abs(want.item())), backend + " call " + call);
                }
            } finally {
                Ember.setLogs("");
                dev.ember.logging.Logs.setOutput(saved);
                Ember.reset();
            }
            String text = log.toString(java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(!text.contains("does not have the layout"), backend + ": the generated code runs on every call: " + text);
        }
    }

    @Test
    void aBranchOnTheDoubleIsGuardedByTheComparisonItMade() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Double, Tensor>) ScalarInputsTest::branchOnScale, opts);
        Tensor x = Tensor.randn(3, 4);
        for (double s : new double[] {0.5, 2.0, 1e-9}) assertArrayEquals(eagerOf(branchOnScale(x, s)), eagerOf(f.apply(x, s)), "s = " + s);
        assertEquals(1, cc.frameCount(), "every positive s takes the same branch: one graph");
        for (double s : new double[] {-1.0, 0.0, -0.0, Double.NaN, -3.5}) assertArrayEquals(eagerOf(branchOnScale(x, s)), eagerOf(f.apply(x, s)), "s = " + s);
        assertEquals(2, cc.frameCount(), "the other branch once, for zero, minus zero and NaN too");
        CompiledFrame frame = frameOf(opts);
        assertEquals("L['s'] > 0.0 failed: L['s'] is -1.0", frame.recompileReasons().getFirst().failedGuards().getFirst());
        assertArrayEquals(eagerOf(branchOnScale(x, Double.POSITIVE_INFINITY)), eagerOf(f.apply(x, Double.POSITIVE_INFINITY)));
        assertEquals(2, cc.frameCount());
    }

    /** PyTorch's pattern: an {@code item()} read before a break decides a branch after it. */
    static Tensor signOfSum(Tensor x) {
        double y = x.sum().item();
        return y > 0 ? x.mul(2) : x.mul(3);
    }

    @Test
    void aBranchOnAnItemAfterABreakCompilesEachSideOnce() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn1<Tensor, Tensor>) ScalarInputsTest::signOfSum, Options.backend(cc));
        for (double v : new double[] {1, 2, 3, 4, -1, -2}) {
            Tensor x = Tensor.ones(4).mul(v);
            assertArrayEquals(eagerOf(signOfSum(x)), eagerOf(f.apply(x)), "v = " + v);
        }
        // the graph before the break, and the resume method's graph for each side (Dynamo 2.13: 4, its first value specialized)
        assertEquals(3, cc.frameCount());
    }

    /** A number computed from the double decides: guarded by the comparison of the expression (DoubleExpressionGuardTest has more). */
    static Tensor branchOnTwice(Tensor x, double s) { return s * 2 > 1.0 ? x.mul(s) : x.neg(); }

    @Test
    void aBranchOnANumberComputedFromTheDoubleIsGuardedByItsComparison() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Double, Tensor>) ScalarInputsTest::branchOnTwice, opts);
        Tensor x = Tensor.randn(3, 4);
        assertArrayEquals(eagerOf(branchOnTwice(x, 0.75)), eagerOf(f.apply(x, 0.75)));
        assertArrayEquals(eagerOf(branchOnTwice(x, 3.0)), eagerOf(f.apply(x, 3.0)));
        assertEquals(1, cc.frameCount(), "another value on the same side reuses the graph");
        assertArrayEquals(eagerOf(branchOnTwice(x, -1.0)), eagerOf(f.apply(x, -1.0)));
        assertEquals(2, cc.frameCount(), "the other side compiles once");
        assertEquals("L['s'] * 2.0 > 1.0 failed: L['s'] is -1.0", frameOf(opts).recompileReasons().getFirst().failedGuards().getFirst());
    }

    /** The double's value itself is needed (an int made of it: Java's d2i saturates, a cast does not): it is specialized. */
    static Tensor scaleByWhole(Tensor x, double s) { return x.mul((int) (s * 2)); }

    @Test
    void aDoubleConvertedToAnIntSpecializesIt() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Double, Tensor>) ScalarInputsTest::scaleByWhole, opts);
        Tensor x = Tensor.randn(3, 4);
        assertArrayEquals(eagerOf(scaleByWhole(x, 0.75)), eagerOf(f.apply(x, 0.75)));
        assertArrayEquals(eagerOf(scaleByWhole(x, 0.75)), eagerOf(f.apply(x, 0.75)));
        assertEquals(1, cc.frameCount());
        assertArrayEquals(eagerOf(scaleByWhole(x, -1.0)), eagerOf(f.apply(x, -1.0)));
        assertEquals(2, cc.frameCount(), "a new value of a specialized double recompiles");
        assertEquals("L['s'] == 0.75 failed: actual -1.0", frameOf(opts).recompileReasons().getFirst().failedGuards().getFirst());
    }

    @Test
    void anItemCarriedAcrossABreakIsAnInputOfTheResumeGraph() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn1<Tensor, Tensor>) ScalarInputsTest::centerOnMax, Options.backend(cc));
        for (int call = 0; call < 20; call++) {
            Tensor x = Tensor.randn(3, 4);
            assertArrayEquals(eagerOf(centerOnMax(x)), eagerOf(f.apply(x)), "call " + call);
        }
        assertTrue(cc.frameCount() <= 2, "the graph before the break and the resume graph, compiled once each: " + cc.frameCount());
    }

    @Test
    void specializeFloatRestoresGuardedConstants() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Double, Tensor>) ScalarInputsTest::scaleAndShift, Options.backend(cc).specializeFloat(true));
        Tensor x = Tensor.randn(3, 4);
        for (double s : new double[] {0.5, 1.5, 2.5}) assertArrayEquals(eagerOf(scaleAndShift(x, s)), eagerOf(f.apply(x, s)));
        assertEquals(3, cc.frameCount());
    }

    @Test
    void aDoubleComputedFromAnInputIsReturnedAsEagerComputesIt() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Double, Double>) ScalarInputsTest::twiceAndSize, Options.backend(cc));
        List<Double> got = new ArrayList<>(), want = new ArrayList<>();
        for (double s : new double[] {0.25, -7.5, 1e10}) {
            got.add(f.apply(Tensor.randn(3), s));
            want.add(twiceAndSize(Tensor.randn(3), s));
        }
        assertEquals(want, got);
        assertEquals(1, cc.frameCount());
    }

    @Test
    void aFloat64TensorTimesADoubleKeepsDoublePrecision() {
        var f = Ember.compile((Fn2<Tensor, Double, Tensor>) ScalarInputsTest::scaleAndShift, Options.backend("inductor"));
        Tensor x = Tensor.randn(4).to(DType.FLOAT64);
        double s = 1.0 / 3;
        assertArrayEquals(scaleAndShift(x, s).toDoubleArray(), f.apply(x, s).toDoubleArray(), 0);
    }

    /** A model with a call counter, as a user writes it: the counter is read, incremented and used. */
    static final class Counted {
        int calls;

        Tensor forward(Tensor x) {
            calls++;
            return x.mul(calls).add(calls / 3);
        }
    }

    static Tensor shiftByInt(Tensor x, int n) { return x.add(n * 2 - 7); }

    static Tensor repeatAdd(Tensor x, int n) {
        for (int i = 0; i < n; i++) x = x.add(1);
        return x;
    }

    @Test
    void aChangingIntFieldBecomesAnInputAtTheFirstRecompile() {
        CompileCounter cc = new CompileCounter();
        Counted model = new Counted(), twin = new Counted();
        var f = Ember.compile((Fn1<Tensor, Tensor>) model::forward, Options.backend(cc));
        Tensor x = Tensor.randn(2, 3);
        for (int call = 0; call < 20; call++) {
            assertArrayEquals(eagerOf(twin.forward(x)), eagerOf(f.apply(x)), "call " + call);
        }
        assertEquals(20, model.calls, "the increments are stored back after each graph");
        assertEquals(2, cc.frameCount(), "compiled once as a constant, once more as an input");
    }

    @Test
    void theInductorComputesWithTheIntAsJavaDoes() {
        Options opts = Options.backend("inductor");
        Counted model = new Counted(), twin = new Counted();
        var counted = Ember.compile((Fn1<Tensor, Tensor>) model::forward, opts);
        Tensor x = Tensor.randn(5, 3);
        for (int call = 0; call < 6; call++) assertArrayEquals(eagerOf(twin.forward(x)), eagerOf(counted.apply(x)), "call " + call);
        var shifted = Ember.compile((Fn2<Tensor, Integer, Tensor>) ScalarInputsTest::shiftByInt, opts);
        Tensor y = Tensor.randn(4).to(DType.FLOAT64);
        for (int n : new int[] {3, 4, Integer.MAX_VALUE, -9}) assertArrayEquals(shiftByInt(y, n).toDoubleArray(), shifted.apply(y, n).toDoubleArray(), 0);
    }

    @Test
    void aChangingIntArgumentBecomesAnInputAndWrapsAsJavaDoes() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) ScalarInputsTest::shiftByInt, Options.backend(cc));
        Tensor x = Tensor.randn(4).to(DType.FLOAT64);
        int[] values = {3, 4, -5, 1 << 30, Integer.MAX_VALUE, 17};
        for (int n : values) assertArrayEquals(shiftByInt(x, n).toDoubleArray(), f.apply(x, n).toDoubleArray(), 0, "n = " + n);
        assertEquals(2, cc.frameCount());
    }

    @Test
    void anIntThatBoundsALoopStaysSpecialized() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) ScalarInputsTest::repeatAdd, opts);
        Tensor x = Tensor.randn(3);
        for (int n : new int[] {2, 3, 3, 2}) assertArrayEquals(eagerOf(repeatAdd(x, n)), eagerOf(f.apply(x, n)));
        assertEquals(2, cc.frameCount());
        assertEquals("L['n'] == 2 failed: actual 3", frameOf(opts).recompileReasons().getFirst().failedGuards().getFirst());
    }

    @Test
    void dynamicFalseSpecializesEveryInt() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) ScalarInputsTest::shiftByInt, Options.backend(cc).dynamic(false));
        Tensor x = Tensor.randn(4);
        for (int n = 0; n < 4; n++) f.apply(x, n);
        assertEquals(4, cc.frameCount());
    }

    @Test
    void dynamicTrueMakesIntsInputsFromTheFirstCompile() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn2<Tensor, Integer, Tensor>) ScalarInputsTest::shiftByInt, Options.backend(cc).dynamic(true));
        Tensor x = Tensor.randn(4);
        for (int n = 0; n < 4; n++) assertArrayEquals(eagerOf(shiftByInt(x, n)), eagerOf(f.apply(x, n)));
        assertEquals(1, cc.frameCount());
    }

    static Tensor scaleIfTrainable(Tensor x) { return x.requiresGrad() ? x.mul(2) : x.mul(3); }

    static Tensor shiftIfComputedRequiresGrad(Tensor x) {
        Tensor y = x.mul(2);
        return y.requiresGrad() ? y.add(1) : y.sub(1);
    }

    /**
     * {@code requiresGrad()} in traced code: an input's answer is its real tensor's (fake tensors
     * carried none, so compiled code took the other branch); a computed tensor's breaks the graph
     * rather than answering false.
     */
    @Test
    void requiresGradIsAnsweredAsEagerAnswersIt() {
        for (boolean requires : new boolean[] {true, false}) {
            Tensor x = Tensor.randn(3).requiresGrad(requires);
            var f = Ember.compile((Fn1<Tensor, Tensor>) ScalarInputsTest::scaleIfTrainable, Options.backend(new CompileCounter()));
            assertArrayEquals(scaleIfTrainable(x).detach().toFloatArray(), f.apply(x).detach().toFloatArray(), "requiresGrad " + requires);
            var g = Ember.compile((Fn1<Tensor, Tensor>) ScalarInputsTest::shiftIfComputedRequiresGrad, Options.backend(new CompileCounter()));
            assertArrayEquals(shiftIfComputedRequiresGrad(x).detach().toFloatArray(), g.apply(x).detach().toFloatArray(), "computed, requiresGrad " + requires);
            Ember.reset();
        }
    }

    /** A step written as optimizers write it: the learning rate as add's alpha, in place and not. */
    static Tensor alphaStep(Tensor p, Tensor g, double lr) {
        p.add_(g, -lr);
        return p.sub(g, lr * 0.5);
    }

    /**
     * A Java double as add's alpha is a graph input (one compile serves every learning rate), and
     * the compiled add rounds as eager's: {@code p + alpha * g} as one fused multiply-add (ATen's
     * fmadd), not a multiply then an add (an ulp apart, which a training loop grew: fuzz seed 973788).
     */
    @Test
    void aDoubleAsAddsAlphaIsAGraphInputRoundedAsEager() {
        for (String backend : new String[] {"aot_eager", "inductor"}) {
            Options opts = Options.backend(backend);
            var f = Ember.compile((Fn3<Tensor, Tensor, Double, Tensor>) ScalarInputsTest::alphaStep, opts);
            Tensor g = Tensor.randn(6, 5);
            for (double lr : new double[] {0.1, 1e-3, 1.0 / 3, -7.25, 12345.678}) {
                Tensor pe = Tensor.randn(6, 5), pc = pe.clone();
                Tensor expected = alphaStep(pe, g, lr), actual = f.apply(pc, g, lr);
                dev.ember.testing.SameBits.assertSameBits(pe, pc, backend + ", the parameter written in place, lr = " + lr);
                dev.ember.testing.SameBits.assertSameBits(expected, actual, backend + ", lr = " + lr);
            }
            assertEquals(1, frameOf(opts).entries().size(), backend + ": one compile serves every learning rate");
            Ember.reset();
        }
    }

    /** alpha computed in the op's dtype: float64 self and float32 other compute in float64 (the other widened first). */
    static Tensor mixedAlpha(Tensor a, Tensor b, double s) { return a.add(b, s); }

    /** A floating alpha of integer tensors is refused, compiled as in eager (ATen's alpha check). */
    static Tensor intTensorsDoubleAlpha(Tensor a, Tensor b, double s) { return a.add(b, s); }

    @Test
    void alphaKeepsEagersDtypesAndErrors() {
        var mixed = Ember.compile((Fn3<Tensor, Tensor, Double, Tensor>) ScalarInputsTest::mixedAlpha, Options.backend("inductor"));
        Tensor a = Tensor.randn(4, 3).to(DType.FLOAT64), b = Tensor.randn(4, 3);
        for (double s : new double[] {0.1, 1.0 / 3}) {
            Tensor expected = mixedAlpha(a, b, s), actual = mixed.apply(a, b, s);
            assertEquals(DType.FLOAT64, actual.dtype());
            // in float64, one fma as eager (a product rounded to float32 first would differ by far more)
            dev.ember.testing.SameBits.assertSameBits(expected, actual, "s = " + s);
        }
        Tensor ia = Tensor.arange(6).to(DType.INT32), ib = Tensor.arange(6).to(DType.INT32);
        var refused = Ember.compile((Fn3<Tensor, Tensor, Double, Tensor>) ScalarInputsTest::intTensorsDoubleAlpha, Options.backend("inductor"));
        IllegalArgumentException eager = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> intTensorsDoubleAlpha(ia, ib, 0.5));
        IllegalArgumentException compiled = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> refused.apply(ia, ib, 0.5));
        assertEquals(eager.getMessage(), compiled.getMessage());
    }
}
