package dev.ember.aot;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.fx.Backends;
import dev.ember.dynamo.CompileCounter;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.ShapeProp;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * out= calls ({@code x.addOut(y, out)}) under {@link Ember#compile}: captured as a mutation of out,
 * compiled code leaves out and the result exactly as eager does, on every backend; an out= call
 * on a tensor made inside the function is functionalized away.
 */
class OutVariantCaptureTest {

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    static Tensor intoInput(Tensor x, Tensor y, Tensor out) {
        Tensor before = out.mul(1.0);          // read before the write: the old values
        x.addOut(y, out);
        return out.mul(2.0).add(before);       // read after: the new ones
    }

    static Tensor resultUnused(Tensor x, Tensor y, Tensor out) {
        x.negOut(out);                         // only the write into out matters
        return y.exp();
    }

    static Tensor intoIntermediate(Tensor x, Tensor y) {
        Tensor o = Tensor.empty(x.shape());
        x.mulOut(y, o);
        o.sigmoidOut(o);                       // out is the input itself
        return o.add(1.0);
    }

    static Tensor intsIntoADoubleOut(Tensor i, Tensor j) {
        Tensor o = Tensor.zeros(DType.FLOAT64, i.shape());
        i.addOut(j, o);                        // computed in int32, cast into float64
        return o.div(3.0);
    }

    static Tensor wrongShape(Tensor x, Tensor out) {
        return x.addOut(x, out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void anOutThatIsAnInputIsWrittenAsInEager(String backend) {
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(4), out = Tensor.randn(3, 4);
        for (Fn3<Tensor, Tensor, Tensor, Tensor> fn : List.<Fn3<Tensor, Tensor, Tensor, Tensor>>of(OutVariantCaptureTest::intoInput, OutVariantCaptureTest::resultUnused)) {
            Tensor eagerOut = out.clone(), compiledOut = out.clone();
            Tensor want = fn.apply(x, y, eagerOut);
            Ember.reset();
            Tensor got = Ember.compile(fn, Options.backend(backend).fullgraph(true)).apply(x, y, compiledOut);
            assertClose(want, got, backend + " result");
            assertClose(eagerOut, compiledOut, backend + " out after the call");
            assertEquals(1, compiledOut.version(), backend + ": one write into out");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void anOutMadeInsideTheFunctionGivesTheEagerResult(String backend) {
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(3, 4);
        Ember.reset();
        assertClose(intoIntermediate(x, y), Ember.compile(OutVariantCaptureTest::intoIntermediate, Options.backend(backend).fullgraph(true)).apply(x, y), backend);
        Tensor i = Tensor.randint(-50, 50, 2, 5).to(DType.INT32), j = Tensor.randint(-50, 50, 5).to(DType.INT32);
        Tensor got = Ember.compile(OutVariantCaptureTest::intsIntoADoubleOut, Options.backend(backend).fullgraph(true)).apply(i, j);
        assertEquals(DType.FLOAT64, got.dtype());
        assertClose(intsIntoADoubleOut(i, j), got, backend + " int32 into float64");
    }

    @Test
    void functionalizationTurnsOutCallsOnIntermediatesIntoFunctionalOpsAndKeepsOnesOnInputs() {
        GraphModule safe = capture(OutVariantCaptureTest::intoIntermediate, Tensor.randn(2, 3), Tensor.randn(2, 3));
        assertEquals(List.of("aten.mul.out", "aten.sigmoid.out"), targets(safe).stream().filter(t -> t.endsWith(".out")).toList(), "captured as out ops");
        assertEquals(2, Functionalize.run(safe));
        List<String> after = targets(safe);
        assertTrue(after.stream().noneMatch(t -> t.endsWith(".out")), after.toString());
        assertTrue(after.containsAll(List.of("aten.mul.Tensor", "aten.sigmoid.default")), after.toString());

        GraphModule cast = capture(OutVariantCaptureTest::intsIntoADoubleOut, Tensor.ofLongs(1, 2).to(DType.INT32), Tensor.ofLongs(3, 4).to(DType.INT32));
        assertEquals(1, Functionalize.run(cast));
        assertTrue(targets(cast).containsAll(List.of("aten.add.Tensor", "aten._to_copy.default")), targets(cast).toString());

        List<GraphModule> graphs = new ArrayList<>();
        Ember.reset();
        Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) OutVariantCaptureTest::intoInput, Options.backend((gm, inputs) -> {
            graphs.add(gm);
            return Backends.EAGER.compile(gm, inputs);
        })).apply(Tensor.randn(2, 3), Tensor.randn(3), Tensor.randn(2, 3));
        var e = assertThrows(Functionalize.NotFunctional.class, () -> Functionalize.run(graphs.getFirst()));
        assertTrue(e.getMessage().contains("aten.add.out") && e.getMessage().contains("graph input"), e.getMessage());
    }

    @Test
    void aBadOutBreaksTheGraphAndFailsAsInEager() {
        Tensor x = Tensor.randn(3, 4), out = Tensor.zeros(4);
        String eager = assertThrows(IllegalArgumentException.class, () -> wrongShape(x, out)).getMessage();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        var saved = dev.ember.logging.Logs.output();
        dev.ember.logging.Logs.setOutput(new PrintStream(log, true, StandardCharsets.UTF_8));
        try {
            Ember.setLogs("graph_breaks");
            Ember.reset();
            var compiled = assertThrows(IllegalArgumentException.class,
                    () -> Ember.compile((Fn2<Tensor, Tensor, Tensor>) OutVariantCaptureTest::wrongShape, Options.backend(new CompileCounter())).apply(x, out));
            assertEquals(eager, compiled.getMessage());
        } finally {
            Ember.setLogs("");
            dev.ember.logging.Logs.setOutput(saved);
        }
        assertEquals(0, out.version(), "nothing written");
        String text = log.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("GB0007") && text.contains("aten.add.out failed on fake tensors: add: the out tensor has shape [4]"), text);
    }

    private static GraphModule capture(Fn2<Tensor, Tensor, Tensor> fn, Tensor x, Tensor y) {
        List<GraphModule> graphs = new ArrayList<>();
        Ember.reset();
        Ember.compile(fn, Options.backend((gm, inputs) -> {
            graphs.add(gm);
            return Backends.EAGER.compile(gm, inputs);
        })).apply(x, y);
        GraphModule gm = graphs.getFirst();
        GraphModule work = new GraphModule(gm.className(), gm.graph().copy(), gm.attributes(), gm.submodules());
        ShapeProp.propagate(work, x, y);
        return work;
    }

    private static List<String> targets(GraphModule gm) {
        List<String> out = new ArrayList<>();
        for (Node n : gm.graph().nodes()) if (n.target() instanceof OpOverload op) out.add(op.name());
        return out;
    }

    private static void assertClose(Tensor want, Tensor got, String what) {
        assertArrayEquals(want.shape(), got.shape(), what);
        assertEquals(want.dtype(), got.dtype(), what);
        double[] a = want.toDoubleArray(), b = got.toDoubleArray();
        for (int i = 0; i < a.length; i++) assertEquals(a[i], b[i], 1e-5 * (1 + Math.abs(a[i])), what + " element " + i);
    }
}
