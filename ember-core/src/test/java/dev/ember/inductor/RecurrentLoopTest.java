package dev.ember.inductor;

import dev.ember.Ember;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.debug.Accuracy;
import dev.ember.fx.Backend;
import dev.ember.fx.CompileMode;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.inductor.cache.ArtifactCache;
import dev.ember.inductor.ir.Buffer;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.ember.inductor.Graphs.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A recurrent loop feeds each step's output into the next step's GEMM. Inductor once fused step
 * one's {@code tanh(add)} as an "epilogue" of step two's input GEMM (same shape, but it read
 * nothing of that GEMM) and wrote it in place over that GEMM's result, which the next kernel then
 * read: every RNN of two or more steps was wrong by ~2 while every test passed.
 */
class RecurrentLoopTest {
    static Tensor twoSteps(Tensor seq, Tensor wx, Tensor wh) {
        Tensor h = Tensor.zeros(seq.size(0), wh.size(0));
        for (int t = 0; t < 2; t++) h = seq.select(1, t).matmul(wx).add(h.matmul(wh)).tanh();
        return h;
    }

    static Tensor fiveStepsWithBias(Tensor seq, Tensor wx, Tensor wh) {
        Tensor h = Tensor.zeros(seq.size(0), wh.size(0));
        for (int t = 0; t < 5; t++) h = seq.select(1, t).matmul(wx).add(h.matmul(wh)).add(1.0).relu().mul(0.5);
        return h;
    }

    @AfterEach
    void reset() { Ember.reset(); }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"eager, default", "aot_eager, default", "inductor, default", "inductor, max-autotune", "inductor, reduce-overhead"})
    void everyBackendAndModeMatchesEager(String backend, String mode) {
        Tensor.manualSeed(0);
        Tensor seq = Tensor.randn(2, 5, 8), wx = Tensor.randn(8, 16), wh = Tensor.randn(16, 16);
        for (Fn3<Tensor, Tensor, Tensor, Tensor> program : List.<Fn3<Tensor, Tensor, Tensor, Tensor>>of(
                RecurrentLoopTest::twoSteps, RecurrentLoopTest::fiveStepsWithBias)) {
            Tensor eager = program.apply(seq, wx, wh);
            Object fp64 = Accuracy.float64Reference(new Object[] {seq, wx, wh}, in -> program.apply((Tensor) in[0], (Tensor) in[1], (Tensor) in[2]));
            var compiled = Ember.compile(program, Options.backend(backend).mode(mode));
            for (int call = 0; call < 2; call++) {
                Tensor got = compiled.apply(seq, wx, wh).clone();
                Accuracy.Verdict v = Accuracy.compare(eager, got, fp64, 1e-4);
                assertTrue(v.passed(), backend + " " + mode + " call " + call + ": " + v);
            }
        }
    }

    @Test
    void coldAndFromTheDiskCacheMatchEager(@TempDir Path cacheDir) {
        Tensor.manualSeed(1);
        Tensor seq = Tensor.randn(3, 5, 8), wx = Tensor.randn(8, 16), wh = Tensor.randn(16, 16);
        Tensor eager = fiveStepsWithBias(seq, wx, wh);
        List<String> problems = new ArrayList<>();
        List<Boolean> fromCache = new ArrayList<>();
        Backend cached = (gm, inputs) -> {
            InductorGraph g = Inductor.compile(gm, inputs, CompileMode.DEFAULT, new ArtifactCache(cacheDir, p -> problems.add(p.message())));
            fromCache.add(g.fromCache());
            return InductorBackend.compiled(g);
        };
        for (int process = 0; process < 2; process++) {
            Ember.reset();
            Tensor got = Ember.compile(RecurrentLoopTest::fiveStepsWithBias, Options.backend(cached)).apply(seq, wx, wh);
            Accuracy.Verdict v = Accuracy.compare(eager, got, null, 1e-4);
            assertTrue(v.passed(), (process == 0 ? "cold: " : "from the cache: ") + v);
        }
        assertEquals(List.of(false, true), fromCache);
        assertEquals(List.of(), problems);
    }

    /** The last check before codegen refuses a plan that writes over a live value, whichever pass decided it. */
    @Test
    void aWrongInPlaceDecisionIsACompileErrorNotAWrongAnswer() {
        Graph g = new Graph();
        Node a = g.placeholder("a", null), b = g.placeholder("b", null);
        Node mm = call(g, "mm.default", a, b);
        Node other = call(g, "tanh.default", a);
        g.output(List.of(call(g, "add.Tensor", mm, call(g, "mm.default", other, b)), other));
        GraphModule gm = new GraphModule(g);
        List<Tensor> inputs = List.of(Tensor.randn(4, 4), Tensor.randn(4, 4));
        dev.ember.fx.ShapeProp.propagate(gm, inputs.toArray());
        Lowering.Result lowered = Lowering.lower(gm);
        Scheduler s = Scheduler.schedule(lowered);
        MemoryPlan plan = MemoryPlan.plan(s.kernels(), lowered.output(), false, new long[0]);
        LiveOverwriteCheck.check(s.kernels(), plan, lowered.output());
        // Force the bug's decision: the first GEMM's output taken over by a later, unrelated value.
        Buffer mmOut = ((dev.ember.inductor.ir.Stage.Gemm) MemoryPlan.stages(s.kernels().get(0)).get(0)).out();
        Buffer later = null;
        for (Kernel k : s.kernels()) for (var st : MemoryPlan.stages(k)) if (later == null && st instanceof dev.ember.inductor.ir.Stage.Pointwise p) later = p.out();
        later.aliasTo(mmOut);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> LiveOverwriteCheck.check(s.kernels(), plan, lowered.output()));
        assertTrue(e.getMessage().contains("still reads it") || e.getMessage().contains("graph output"), e.getMessage());
    }
}
