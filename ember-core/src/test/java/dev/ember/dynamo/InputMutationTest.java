package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.inductor.InductorBackend;
import dev.ember.ops.OpOverload;
import dev.ember.ops.Schema;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Inputs written in place by compiled code: the graph stays functional, the input gets the new value, aliasing is guarded. */
class InputMutationTest {

    @AfterEach
    void reset() { Ember.reset(); }

    /** An SGD-with-momentum step on two parameters, written as an optimizer writes it. */
    static Tensor sgdStep(Tensor p, Tensor grad, Tensor buf) {
        try (var scope = Ember.noGrad()) {
            buf.mul_(0.9).add_(grad);
            p.sub_(buf.mul(0.1));
        }
        return p;
    }

    static Tensor addInto(Tensor target, Tensor x) {
        target.add_(x.mul(2.0));
        return x.sum();
    }

    private static final List<GraphModule> SEEN = new ArrayList<>();

    /** inductor, recording the graphs it is given. */
    private static final dev.ember.fx.Backend RECORDING = new dev.ember.fx.Backend() {
        @Override
        public CompiledGraph compile(GraphModule gm, List<FakeTensor> inputs) {
            SEEN.add(gm);
            return InductorBackend.INDUCTOR.compile(gm, inputs);
        }
    };

    @Test
    void anOptimizerStepCompilesToAFunctionalGraphAndUpdatesItsInputs() {
        Tensor p = Tensor.randn(4, 3), g = Tensor.randn(4, 3), buf = Tensor.randn(4, 3);
        Tensor p2 = p.clone(), buf2 = buf.clone();
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        var saved = dev.ember.logging.Logs.output();
        dev.ember.logging.Logs.setOutput(new java.io.PrintStream(log, true, java.nio.charset.StandardCharsets.UTF_8));
        Ember.setLogs("perf_hints,recompiles");
        var step = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) InputMutationTest::sgdStep, Options.backend("inductor"));
        for (int i = 0; i < 3; i++) {
            sgdStep(p2, g, buf2);
            int version = p.version();
            Tensor out = step.apply(p, g, buf);
            assertArrayEquals(p2.toFloatArray(), p.toFloatArray(), 1e-6f, "step " + i);
            assertArrayEquals(buf2.toFloatArray(), buf.toFloatArray(), 1e-6f, "step " + i);
            assertArrayEquals(p2.toFloatArray(), out.toFloatArray(), 1e-6f);
            assertEquals(version + 1, p.version(), "one write, as eager's sub_");
        }
        Ember.setLogs("");
        dev.ember.logging.Logs.setOutput(saved);
        String out = log.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(!out.contains("runs in the interpreter") && !out.contains("Recompiling"), "one functional graph, generated code, no recompile:\n" + out);
    }

    @Test
    void theRewriteIsInductorsAndAotEagersOthersGetTheGraphAsCaptured() {
        SEEN.clear();
        Tensor p = Tensor.randn(4, 3), g = Tensor.randn(4, 3), buf = Tensor.randn(4, 3);
        Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) InputMutationTest::sgdStep, Options.backend(RECORDING)).apply(p, g, buf);
        assertTrue(SEEN.getFirst().graph().nodes().stream().anyMatch(n -> n.target() instanceof OpOverload op && op.schema().kind() == Schema.Kind.INPLACE),
                "a custom backend sees the in-place ops, as Dynamo hands them over");
    }

    @Test
    void anAliasedInputRecompilesInsteadOfSeeingAStaleValue() {
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) InputMutationTest::addInto, Options.backend("inductor"));
        Tensor t = Tensor.zeros(3), x = Tensor.ones(3);
        f.apply(t, x);
        assertArrayEquals(new float[] {2, 2, 2}, t.toFloatArray());
        // the same tensor twice: x is target, so x.sum() reads the written values (eager: 9)
        Tensor shared = Tensor.ones(3), expected = shared.clone();
        double eagerSum = addInto(expected, expected).item();
        assertEquals(eagerSum, f.apply(shared, shared).item(), 1e-6);
        assertArrayEquals(expected.toFloatArray(), shared.toFloatArray(), 1e-6f);
        // two views of one storage: the write must show through the other input
        Tensor base = Tensor.ones(2, 3), expectedBase = base.clone();
        double viewSum = addInto(expectedBase.view(3, 2).t(), expectedBase.reshape(6).narrow(0, 0, 3)).item();
        Tensor viewOut = f.apply(base.view(3, 2).t(), base.reshape(6).narrow(0, 0, 3));
        assertEquals(viewSum, viewOut.item(), 1e-6);
        assertArrayEquals(expectedBase.toFloatArray(), base.toFloatArray(), 1e-6f);
    }
}
