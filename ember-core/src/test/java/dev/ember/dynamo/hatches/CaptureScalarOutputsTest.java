package dev.ember.dynamo.hatches;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.fx.Backends;
import dev.ember.fx.GraphModule;
import dev.ember.fx.NodeKind;
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
 * Options.captureScalarOutputs: item()/longItem() stay in the graph as a _local_scalar_dense node,
 * ops and arithmetic on the number become graph ops with eager's dtypes and values, and uses that
 * need the value (a branch, a JDK call, returning it) still break with GB0001.
 */
class CaptureScalarOutputsTest {
    private static final Options CAPTURE = Options.defaults().captureScalarOutputs(true);

    static Tensor scaleBySum(Tensor x, Tensor y) { return x.mul(y.sum().item()); }

    static Tensor scaleByLongSum(Tensor x, Tensor y) { return x.mul(y.sum().longItem()); }

    static Tensor everyScalarOp(Tensor x, Tensor y) {
        double s = y.sum().item();
        return x.add(s).sub(s).div(s).rsub(s).clamp(-s, s);
    }

    static Tensor clampOneSide(Tensor x, Tensor y) { return x.clampMin(y.mean().item()); }

    static Tensor javaArithmetic(Tensor x, Tensor y) {
        double s = y.mean().item();
        double t = Math.sqrt(Math.abs(s * 2.0 + 1)) - s / 3.0;
        return x.mul(t).add(Math.exp(-s));
    }

    static Tensor longArithmetic(Tensor x, Tensor y) {
        long n = y.sum().longItem();
        long m = n * 3 - 7 + n / 2;
        return x.add(m).mul((double) n);
    }

    /** The example of docs/escape-hatches.md. */
    static Tensor scaled(Tensor x, Tensor y) {
        double s = y.sum().item();
        double t = Math.sqrt(Math.abs(s)) * 2.0 + 1;
        return x.mul(s).add(t).clamp(-t, t);
    }

    static Tensor branchOnScalar(Tensor x, Tensor y) {
        double s = y.sum().item();
        if (s > 0) return x.mul(s);
        return x.neg();
    }

    static double returnsScalar(Tensor x, Tensor y) { return x.add(y).sum().item() * 2.0; }

    static Tensor formatsScalar(Tensor x, Tensor y) {
        double s = y.sum().item();
        return x.add(String.valueOf(s).length());
    }

    @AfterEach
    void reset() { Ember.reset(); }

    private static List<GraphModule> graphs(Fn2<Tensor, Tensor, Tensor> fn, Options options, Tensor x, Tensor y) {
        List<GraphModule> graphs = new ArrayList<>();
        Options recording = options.withBackend((gm, in) -> {
            graphs.add(gm);
            return Backends.EAGER.compile(gm, in);
        });
        Tensor compiled = Ember.compile(fn, recording).apply(x, y);
        assertSame(fn.apply(x, y), compiled);
        return graphs;
    }

    /** Same dtype, shape and values as eager. */
    /** Same dtype and values up to rounding: the graph around the scalar is compiled code, which may sum in another order than eager. */
    private static void assertSame(Tensor eager, Tensor compiled) {
        assertEquals(eager.dtype(), compiled.dtype());
        assertArrayEquals(eager.toDoubleArray(), compiled.toDoubleArray(), 1e-5, "eager " + eager + "\ncompiled " + compiled);
    }

    private static List<String> targets(GraphModule gm) {
        return gm.graph().nodes().stream().filter(n -> n.kind() == NodeKind.CALL_FUNCTION).map(n -> n.target().toString()).toList();
    }

    private static void assertOneGraph(Fn2<Tensor, Tensor, Tensor> fn, Tensor x, Tensor y) {
        ExplainOutput e = Ember.explain(fn, CAPTURE).with(x, y);
        assertEquals(1, e.graphCount(), e.toString());
        assertEquals(0, e.graphBreakCount(), e.toString());
        Ember.reset();
        List<GraphModule> gms = graphs(fn, CAPTURE, x, y);
        assertEquals(1, gms.size());
        assertTrue(targets(gms.getFirst()).contains("aten._local_scalar_dense.default"), targets(gms.getFirst()).toString());
        Ember.reset();
    }

    private static void assertBreaksOnData(Fn2<Tensor, Tensor, ?> fn, Options options, Tensor x, Tensor y) {
        ExplainOutput e = Ember.explain(fn, options).with(x, y);
        assertTrue(e.graphBreakCount() > 0, e.toString());
        assertEquals("GB0001", e.breakReasons().getFirst().gbId(), e.toString());
        Ember.reset();
    }

    @Test
    void itemStaysInTheGraphForFloatAndIntInputs() {
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32)) {
            Tensor x = Tensor.randint(-5, 6, 3, 4).to(d), y = Tensor.randint(-3, 4, 5).to(d);
            if (d.isFloatingPoint()) {
                x = Tensor.randn(3, 4).to(d);
                y = Tensor.randn(5).to(d);
            }
            assertOneGraph(CaptureScalarOutputsTest::scaleBySum, x, y);
            assertOneGraph(CaptureScalarOutputsTest::scaleByLongSum, x, Tensor.randint(-3, 4, 5));
            assertOneGraph(CaptureScalarOutputsTest::longArithmetic, x, Tensor.randint(-30, 40, 5));
        }
    }

    @Test
    void scalarOpsTakeTheZeroDimTensorInEagersDtype() {
        Tensor y = Tensor.randn(5).abs().add(1.0);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64)) {
            Tensor x = d.isFloatingPoint() ? Tensor.randn(3, 4).to(d) : Tensor.randint(-5, 6, 3, 4).to(d);
            assertOneGraph(CaptureScalarOutputsTest::everyScalarOp, x, y);
            assertOneGraph(CaptureScalarOutputsTest::clampOneSide, x, y);
        }
        List<String> t = targets(graphs(CaptureScalarOutputsTest::everyScalarOp, CAPTURE, Tensor.randn(3, 4), y).getFirst());
        assertTrue(t.containsAll(List.of("aten.add.Tensor", "aten.sub.Tensor", "aten.div.Tensor", "aten.clamp.Tensor")), t.toString());
        assertTrue(t.stream().noneMatch(n -> n.endsWith(".Scalar")), t.toString());
    }

    @Test
    void javaArithmeticOnTheScalarBecomesGraphOps() {
        Tensor x = Tensor.randn(4, 2), y = Tensor.randn(6);
        assertOneGraph(CaptureScalarOutputsTest::javaArithmetic, x, y);
        List<String> t = targets(graphs(CaptureScalarOutputsTest::javaArithmetic, CAPTURE, x, y).getFirst());
        assertTrue(t.containsAll(List.of("aten.sqrt.default", "aten.abs.default", "aten.exp.default", "aten.neg.default")), t.toString());
    }

    @Test
    void docsExample() {
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(5);
        ExplainOutput off = Ember.explain(CaptureScalarOutputsTest::scaled).with(x, y);
        assertEquals(2, off.graphCount(), off.toString());
        assertEquals(1, off.graphBreakCount(), off.toString());
        Ember.reset();
        assertOneGraph(CaptureScalarOutputsTest::scaled, x, y);
    }

    @Test
    void usesThatNeedTheValueStillBreak() {
        Tensor x = Tensor.randn(3), y = Tensor.randn(4);
        ExplainOutput e = Ember.explain(CaptureScalarOutputsTest::branchOnScalar, CAPTURE).with(x, y);
        assertEquals(1, e.graphBreakCount(), e.toString());
        assertEquals("GB0001", e.breakReasons().getFirst().gbId());
        assertTrue(e.breakReasons().getFirst().reason().contains("data-dependent"), e.toString());
        Ember.reset();
        for (Tensor yy : List.of(y, y.neg())) {
            Tensor compiled = Ember.compile(CaptureScalarOutputsTest::branchOnScalar, CAPTURE).apply(x, yy);
            assertSame(branchOnScalar(x, yy), compiled);
        }
        assertBreaksOnData(CaptureScalarOutputsTest::formatsScalar, CAPTURE, x, y);
        Fn2<Tensor, Tensor, Double> ret = CaptureScalarOutputsTest::returnsScalar;
        Tensor z = Tensor.randn(3);
        assertBreaksOnData(ret, CAPTURE, x, z);
        assertEquals(returnsScalar(x, z), Ember.compile(ret, CAPTURE).apply(x, z));
    }

    @Test
    void withTheOptionOffItemBreaksAsBefore() {
        Tensor x = Tensor.randn(3), y = Tensor.randn(4);
        for (Fn2<Tensor, Tensor, Tensor> fn : List.<Fn2<Tensor, Tensor, Tensor>>of(CaptureScalarOutputsTest::scaleBySum,
                CaptureScalarOutputsTest::javaArithmetic, CaptureScalarOutputsTest::branchOnScalar)) {
            assertBreaksOnData(fn, Options.defaults(), x, y);
            assertTrue(Ember.explain(fn, Options.defaults()).with(x, y).breakReasons().getFirst().reason().contains("item()"));
            Ember.reset();
            assertSame(fn.apply(x, y), Ember.compile(fn).apply(x, y));
        }
    }
}
