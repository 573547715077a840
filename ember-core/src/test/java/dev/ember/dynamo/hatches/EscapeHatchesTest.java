package dev.ember.dynamo.hatches;

import dev.ember.Cond;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.ops.Library;
import dev.ember.ops.OpOverload;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** allowInGraph, leaf functions, custom ops and Cond.cond: one graph, no break, results equal eager, the call visible as one node. */
class EscapeHatchesTest {

    // ---- allowInGraph: a helper the translator cannot trace (Arrays.parallelSort, which sorts an array in place, is not traced), but that works on fake tensors.
    static Tensor widest(Tensor x) {
        int[] sorted = x.shape();
        Arrays.parallelSort(sorted);
        int max = sorted[sorted.length - 1];
        return x.reshape(-1).narrow(0, 0, max).relu();
    }

    static Tensor callsWidest(Tensor x) { return widest(x.mul(2.0)).add(1.0); }

    // ---- leafFunction: a helper that reads tensor data (a break when traced), with a fake implementation.
    static Tensor cumulative(Tensor x) {
        float[] v = x.contiguous().toFloatArray();
        for (int i = 1; i < v.length; i++) v[i] += v[i - 1];
        return Tensor.of(v, x.shape());
    }

    static Tensor cumulativeFake(Tensor x) { return Tensor.empty(x.shape()); }

    static Tensor callsCumulative(Tensor x) { return cumulative(x.exp()).mul(0.5); }

    // ---- a custom op
    static final OpOverload SCALE = Library.customOp("hatchtest::scale", "(Tensor x, float s=2.0) -> Tensor",
            a -> a.tensor(0).mul(a.dbl(1)), a -> a.tensor(0).meta());

    static Tensor callsScale(Tensor x) { return SCALE.callTensor(x.relu(), 3.0).sum(); }

    static Tensor callsScaleByName(Tensor x) { return OpRegistry.get("hatchtest.scale.default").callTensor(x).neg(); }

    // ---- Cond.cond
    static Tensor branches(Tensor x, Tensor y) {
        Tensor s = x.add(y);
        return Cond.cond(s.sum().gt(0.0), ops -> ops.get(0).sin().add(ops.get(1)), ops -> ops.get(0).cos().mul(ops.get(1)), List.of(s, y)).neg();
    }

    static Tensor branchesOnConstant(Tensor x) {
        return Cond.cond(x.dim() == 2, ops -> ops.get(0).t(), ops -> ops.get(0).neg(), List.of(x));
    }

    static Tensor mismatched(Tensor x) {
        return Cond.cond(x.sum().gt(0.0), ops -> ops.get(0).sum(), ops -> ops.get(0), List.of(x));
    }

    @AfterEach
    void reset() { Ember.reset(); }

    /** The only graph a function compiles, captured by a recording backend. */
    private static GraphModule onlyGraph(Fn1<Tensor, Tensor> fn, Tensor x) {
        List<GraphModule> graphs = new ArrayList<>();
        var f = Ember.compile(fn, Options.backend((gm, in) -> {
            graphs.add(gm);
            return dev.ember.fx.Backends.EAGER.compile(gm, in);
        }));
        f.apply(x);
        assertEquals(1, graphs.size());
        return graphs.getFirst();
    }

    private static List<String> targets(GraphModule gm) {
        return gm.graph().nodes().stream().filter(n -> n.kind() == NodeKind.CALL_FUNCTION).map(n -> n.target().toString()).toList();
    }

    @Test
    void allowInGraphMakesOneNodeInsteadOfABreak() {
        Fn1<Tensor, Tensor> fn = EscapeHatchesTest::callsWidest;
        Tensor x = Tensor.randn(3, 4);
        ExplainOutput before = Ember.explain(fn).with(x);
        assertTrue(before.graphBreakCount() > 0, "without allowInGraph the helper breaks:\n" + before);
        Ember.reset();
        Ember.allowInGraph((Fn1<Tensor, Tensor>) EscapeHatchesTest::widest);
        ExplainOutput e = Ember.explain(fn).with(x);
        assertEquals(1, e.graphCount(), e.toString());
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertEquals(List.of("aten.mul.Scalar", "EscapeHatchesTest.widest", "aten.add.Scalar"), targets(onlyGraph(fn, x)));
        Tensor y = Tensor.randn(3, 4);
        assertTrue(callsWidest(y).sameData(Ember.compile(fn).apply(y)));
    }

    @Test
    void leafFunctionRunsEagerlyAsOneOpaqueNode() {
        Fn1<Tensor, Tensor> fn = EscapeHatchesTest::callsCumulative;
        Tensor x = Tensor.randn(2, 3);
        ExplainOutput before = Ember.explain(fn).with(x);
        assertEquals("GB0001", before.breakReasons().getFirst().gbId(), before.toString());
        Ember.reset();
        Ember.leafFunction((Fn1<Tensor, Tensor>) EscapeHatchesTest::cumulative, EscapeHatchesTest::cumulativeFake);
        ExplainOutput e = Ember.explain(fn).with(x);
        assertEquals(1, e.graphCount(), e.toString());
        assertEquals(0, e.graphBreakCount(), e.toString());
        GraphModule gm = onlyGraph(fn, x);
        assertEquals(List.of("aten.exp.default", "EscapeHatchesTest.cumulative", "aten.mul.Scalar"), targets(gm));
        Node leaf = gm.graph().nodes().stream().filter(n -> n.target().toString().equals("EscapeHatchesTest.cumulative")).findFirst().orElseThrow();
        assertEquals("cumulative", leaf.name());
        for (int i = 0; i < 3; i++) {
            Tensor y = Tensor.randn(2, 3);
            assertTrue(callsCumulative(y).sameData(Ember.compile(fn).apply(y)));
        }
    }

    @Test
    void customOpAppearsByNameInTheGraph() {
        Tensor x = Tensor.randn(3, 4);
        assertTrue(x.relu().mul(3.0).sum().sameData(SCALE.callTensor(x.relu(), 3.0).sum()), "eager call runs the implementation");
        for (Fn1<Tensor, Tensor> fn : List.<Fn1<Tensor, Tensor>>of(EscapeHatchesTest::callsScale, EscapeHatchesTest::callsScaleByName)) {
            ExplainOutput e = Ember.explain(fn).with(x);
            assertEquals(1, e.graphCount(), e.toString());
            assertEquals(0, e.graphBreakCount(), e.toString());
            GraphModule gm = onlyGraph(fn, x);
            assertTrue(targets(gm).contains("hatchtest.scale.default"), targets(gm).toString());
            assertTrue(gm.code().contains("hatchtest.scale.default"), gm.code());
            assertTrue(gm.graph().nodes().stream().anyMatch(n -> n.name().equals("scale")));
            // the default backend (inductor) sums in its own order: equal within float32 rounding, not bit for bit
            dev.ember.testing.TorchAssert.assertClose(Ember.compile(fn).apply(x), fn.apply(x), "compiled custom op");
        }
        assertEquals("hatchtest::scale(Tensor x, float s) -> Tensor", SCALE.schema().toString());
        assertThrows(IllegalArgumentException.class, () -> Library.customOp("aten::mine", "(Tensor x) -> Tensor", a -> a.tensor(0), a -> a.tensor(0)));
        assertThrows(IllegalArgumentException.class, () -> Library.customOp("nonamespace", "(Tensor x) -> Tensor", a -> a.tensor(0), a -> a.tensor(0)));
        OpOverload lying = Library.customOp("hatchtest::lying", "(Tensor x) -> Tensor", a -> a.tensor(0).sum(), a -> a.tensor(0));
        IllegalStateException bad = assertThrows(IllegalStateException.class, () -> lying.callTensor(x));
        assertTrue(bad.getMessage().contains("fake implementation said f32[3, 4]"), bad.getMessage());
    }

    @Test
    void condOnATensorIsOneHigherOrderNode() {
        Fn2<Tensor, Tensor, Tensor> fn = EscapeHatchesTest::branches;
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(3, 4);
        ExplainOutput e = Ember.explain(fn).with(x, y);
        assertEquals(1, e.graphCount(), e.toString());
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertTrue(e.toString().contains("higher_order.cond"), e.toString());
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile(fn, Options.backend(cc));
        Tensor pos = Tensor.full(1.0, 3, 4), neg = Tensor.full(-1.0, 3, 4);
        for (Tensor[] in : new Tensor[][] {{pos, y}, {neg, y}, {pos.neg(), pos.neg()}}) {
            assertTrue(branches(in[0], in[1]).sameData(f.apply(in[0], in[1])));
        }
        assertEquals(1, cc.frameCount(), "both branch outcomes run in the one graph");
    }

    @Test
    void condOnAConstantTracesTheChosenBranchOnly() {
        Fn1<Tensor, Tensor> fn = EscapeHatchesTest::branchesOnConstant;
        Tensor x = Tensor.randn(3, 4);
        assertEquals(List.of("aten.t.default"), targets(onlyGraph(fn, x)));
        assertTrue(branchesOnConstant(x).sameData(Ember.compile(fn).apply(x)));
    }

    @Test
    void condBranchesWithDifferentOutputsAreAnError() {
        Tensor x = Tensor.randn(3);
        IllegalArgumentException err = assertThrows(IllegalArgumentException.class,
                () -> Ember.compile((Fn1<Tensor, Tensor>) EscapeHatchesTest::mismatched).apply(x));
        assertTrue(err.getMessage().contains("true returns f32[] , false returns f32[3]".replace(" ,", ",")), err.getMessage());
    }
}
