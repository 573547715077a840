package dev.ember.passes;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.logging.Logs;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.ops.LinalgOps;
import dev.ember.ops.ShapeOps;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static dev.ember.passes.PreGradHarness.assertClose;
import static dev.ember.passes.PreGradHarness.capture;
import static dev.ember.passes.PreGradHarness.compiled;
import static dev.ember.passes.PreGradHarness.preGrad;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * pre_grad.batch_linear_fusion (opt-in, so switched on here): parallel linears on one input become
 * one linear over concatenated weights. Each output element is the same dot product, summed by a
 * GEMM of another width, so the results agree with the unfused graph's to rounding: 1e-12 in float64.
 */
class BatchLinearFusionTest {
    private static final String PASS = "pre_grad.batch_linear_fusion";
    private static final int ROWS = 64;
    private final PrintStream stderr = System.err;

    /** Attention's projections: three linears of different widths on one input, read as values. */
    static final class Qkv extends Module {
        final Linear q = new Linear(32, 16), k = new Linear(32, 16), v = new Linear(32, 24);

        @Override
        public Tensor forward(Tensor x) {
            Tensor scores = q.forward(x).mul(k.forward(x)).sum(1, true);
            return v.forward(x).mul(scores.sigmoid());
        }
    }

    /** The results are viewed and returned: each piece of the fused result is copied to be contiguous. */
    static final class ViewedAndReturned extends Module {
        final Linear a = new Linear(32, 12, false), b = new Linear(32, 12, false);

        @Override
        public Tensor forward(Tensor x) { return Tensor.cat(java.util.List.of(a.forward(x).view(-1, 3, 4), b.forward(x).view(-1, 3, 4)), 0); }
    }

    /** Two linears on different inputs. */
    static final class DifferentInputs extends Module {
        final Linear a = new Linear(32, 16), b = new Linear(32, 16);

        @Override
        public Tensor forward(Tensor x) { return a.forward(x).add(b.forward(x.relu())); }
    }

    @BeforeAll
    static void register() throws java.io.IOException { PreGradHarness.useInductor(); }

    @BeforeEach
    void enable() { PassManager.enable(PASS); }

    @AfterEach
    void reset() {
        Logs.set("");
        Logs.setOutput(stderr);
        PassManager.disable(null);
        PassManager.enable(null);
        Ember.reset();
    }

    private static void assertFusedAndUnchanged(Module m, int expectedClones) {
        m.to(DType.FLOAT64);
        Tensor x = Tensor.randn(ROWS, 32).to(DType.FLOAT64);
        try (var s = Ember.noGrad()) {
            var after = preGrad(capture(o -> Ember.compile(m, o), x));
            assertTrue(after.changed().contains("batch_linear_fusion"), after.changed().toString());
            assertEquals(1, after.count(LinalgOps.LINEAR), after.graph().code());
            assertEquals(1, after.count(ShapeOps.SPLIT_WITH_SIZES), after.graph().code());
            assertEquals(expectedClones, after.count(ShapeOps.CLONE), after.graph().code());
            Tensor fused = compiled(o -> Ember.compile(m, o), x, null);
            assertClose(compiled(o -> Ember.compile(m, o), x, PASS), fused, 1e-12, "against the unfused graph");
            assertClose(m.forward(x), fused, 1e-12, "against eager");
        }
    }

    @Test
    void parallelLinearsOnOneInputBecomeOneLinear() { assertFusedAndUnchanged(new Qkv(), 0); }

    @Test
    void aResultViewedOrReturnedIsACopyOfItsPiece() { assertFusedAndUnchanged(new ViewedAndReturned(), 2); }

    @Test
    void linearsOnDifferentInputsStayApart() {
        try (var s = Ember.noGrad()) {
            var different = preGrad(capture(o -> Ember.compile(new DifferentInputs(), o), Tensor.randn(ROWS, 32)));
            assertEquals(2, different.count(LinalgOps.LINEAR), different.graph().code());
        }
    }

    @Test
    void offUnlessEnabled() {
        PassManager.enable(null);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Logs.setOutput(new PrintStream(log, true, StandardCharsets.UTF_8));
        Logs.set("pre_grad_graphs");
        try (var s = Ember.noGrad()) {
            var after = preGrad(capture(o -> Ember.compile(new Qkv(), o), Tensor.randn(ROWS, 32)));
            assertEquals(3, after.count(LinalgOps.LINEAR), after.graph().code());
        }
        String text = log.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("SKIPPED " + PASS + " (opt-in: EMBER_ENABLE_PASSES does not name it)"), text);
    }

    @Test
    void aGraphCompiledForTrainingIsNotFused() {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Logs.setOutput(new PrintStream(log, true, StandardCharsets.UTF_8));
        Logs.set("pre_grad_graphs");
        Qkv m = new Qkv();
        Tensor x = Tensor.randn(ROWS, 32);
        Fn1<Tensor, Tensor> f = Ember.compile(m, Options.backend("inductor").fullgraph(true));
        f.apply(x).sum().backward();
        String text = log.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("SKIPPED " + PASS + " (inference only; this graph is compiled for training)"), text);
        assertFalse(text.contains("AFTER " + PASS), text);
        Tensor grad = m.q.weight.grad();
        m.zeroGrad();
        m.forward(x).sum().backward();
        assertClose(m.q.weight.grad(), grad, 1e-4, "gradient");
    }
}
