package dev.ember.aot;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.ShapeProp;
import dev.ember.ops.OpOverload;
import dev.ember.ops.Tag;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * In-place ops in a captured graph: compiled code must see every mutation exactly where eager does
 * (a later read of the mutated tensor reads the new value; an earlier read the old one).
 */
class FunctionalizeTest {

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    static Tensor mutateThenUse(Tensor x) {
        Tensor a = x.mul(3.0);
        Tensor b = a.add_(1.0);
        return b.neg().add(a);
    }

    static Tensor readBeforeAndAfter(Tensor x) {
        Tensor a = x.mul(2.0);
        Tensor before = a.sin();
        a.relu_();
        a.mul_(0.5);
        return before.add(a);
    }

    static Tensor keepsDtype(Tensor x, Tensor y64) {
        Tensor a = x.mul(2.0);
        a.add_(y64);
        return a.exp();
    }

    static Tensor mutatesInput(Tensor x) {
        x.add_(1.0);
        return x.mul(2.0);
    }

    static Tensor mutatesView(Tensor x) {
        Tensor a = x.mul(1.0);
        a.narrow(0, 0, 1).mul_(0.0);
        return a.add(1.0);
    }

    private static void assertClose(Tensor want, Tensor got, String what) {
        assertArrayEquals(want.shape(), got.shape(), what);
        assertEquals(want.dtype(), got.dtype(), what);
        double[] a = want.toDoubleArray(), b = got.toDoubleArray();
        for (int i = 0; i < a.length; i++) assertEquals(a[i], b[i], 1e-5 * (1 + Math.abs(a[i])), what + " element " + i);
    }

    @ParameterizedTest
    @ValueSource(strings = {"inductor", "aot_eager"})
    void laterReadsSeeTheMutationEarlierReadsDoNot(String backend) {
        Tensor x = Tensor.randn(4, 5);
        assertClose(mutateThenUse(x), Ember.compile(FunctionalizeTest::mutateThenUse, Options.backend(backend)).apply(x), backend + " mutateThenUse");
        assertClose(readBeforeAndAfter(x), Ember.compile(FunctionalizeTest::readBeforeAndAfter, Options.backend(backend)).apply(x), backend + " readBeforeAndAfter");
    }

    @ParameterizedTest
    @ValueSource(strings = {"inductor", "aot_eager"})
    void anInPlaceAddKeepsItsTargetsDtype(String backend) {
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(3, 4).to(DType.FLOAT64);
        Tensor got = Ember.compile((Fn2<Tensor, Tensor, Tensor>) FunctionalizeTest::keepsDtype, Options.backend(backend)).apply(x, y);
        assertEquals(DType.FLOAT32, got.dtype());
        assertClose(keepsDtype(x, y), got, backend);
    }

    @ParameterizedTest
    @ValueSource(strings = {"inductor", "aot_eager"})
    void mutationsOfInputsAndViewsAreSeenByTheCallerAsInEager(String backend) {
        Tensor x = Tensor.randn(3, 4);
        Tensor eagerX = x.clone(), compiledX = x.clone();
        Tensor want = mutatesInput(eagerX);
        Tensor got = Ember.compile((Fn1<Tensor, Tensor>) FunctionalizeTest::mutatesInput, Options.backend(backend)).apply(compiledX);
        assertClose(want, got, backend + " result");
        assertClose(eagerX, compiledX, backend + " the caller's tensor after the call");
        assertClose(mutatesView(x), Ember.compile((Fn1<Tensor, Tensor>) FunctionalizeTest::mutatesView, Options.backend(backend)).apply(x), backend + " view");
    }

    @Test
    void thePassRemovesInPlaceOpsOnIntermediatesAndRefusesVisibleMutations() {
        GraphModule safe = capture(FunctionalizeTest::readBeforeAndAfter, Tensor.randn(2, 3));
        assertEquals(2, Functionalize.run(safe));
        assertFalse(anyInPlace(safe), targets(safe).toString());
        assertTrue(targets(safe).containsAll(List.of("aten.relu.default", "aten.mul.Scalar")), targets(safe).toString());

        // a graph input written in place: this pass refuses it (dynamo's InputMutations rewrites it for the AOT backends first)
        GraphModule input = capture(FunctionalizeTest::mutatesInput, Tensor.randn(2, 3));
        var e = assertThrows(Functionalize.NotFunctional.class, () -> Functionalize.run(input));
        assertTrue(e.getMessage().contains("aten.add_.Scalar") && e.getMessage().contains("graph input")
                && e.getMessage().contains("FunctionalizeTest.java:"), e.getMessage());

        GraphModule view = capture(FunctionalizeTest::mutatesView, Tensor.randn(2, 3));
        var v = assertThrows(Functionalize.NotFunctional.class, () -> Functionalize.run(view));
        assertTrue(v.getMessage().contains("view"), v.getMessage());
    }

    @Test
    void aGraphWithAVisibleMutationRunsInTheInterpreterAndSaysSo() {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        var saved = dev.ember.logging.Logs.output();
        dev.ember.logging.Logs.setOutput(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            Ember.setLogs("perf_hints");
            Ember.reset();
            Ember.compile((Fn1<Tensor, Tensor>) FunctionalizeTest::mutatesView, Options.backend("inductor")).apply(Tensor.randn(2, 2));
        } finally {
            Ember.setLogs("");
            dev.ember.logging.Logs.setOutput(saved);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        assertTrue(log.contains("graph runs in the interpreter") && log.contains("mutates") && log.contains("view"), log);
    }

    private static GraphModule capture(Fn1<Tensor, Tensor> fn, Tensor x) {
        List<GraphModule> graphs = new ArrayList<>();
        Ember.reset();
        Ember.compile(fn, Options.backend((gm, inputs) -> {
            graphs.add(gm);
            return dev.ember.fx.Backends.EAGER.compile(gm, inputs);
        })).apply(x.clone());
        GraphModule gm = graphs.getFirst();
        GraphModule work = new GraphModule(gm.className(), gm.graph().copy(), gm.attributes(), gm.submodules());
        ShapeProp.propagate(work, x);
        return work;
    }

    private static List<String> targets(GraphModule gm) {
        List<String> out = new ArrayList<>();
        for (Node n : gm.graph().nodes()) if (n.target() instanceof OpOverload op) out.add(op.name());
        return out;
    }

    private static boolean anyInPlace(GraphModule gm) {
        return gm.graph().nodes().stream().anyMatch(n -> n.target() instanceof OpOverload op && op.hasTag(Tag.INPLACE));
    }
}
