package dev.ember.debug;

import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.debug.Bisector.FailsWithEager;
import dev.ember.debug.Bisector.FirstBadStep;
import dev.ember.debug.Bisector.NoSingleStep;
import dev.ember.debug.Bisector.Outcome;
import dev.ember.debug.Bisector.PassesWithInductor;
import dev.ember.debug.Bisector.Trial;
import dev.ember.fx.CompilerSteps;
import dev.ember.fx.CompilerSteps.Kind;
import dev.ember.fx.CompilerSteps.Step;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BisectorTest {
    @TempDir
    Path tmp;

    @AfterEach
    void off() {
        System.clearProperty(Options.BACKEND_PROPERTY);
        System.clearProperty(CompilerSteps.LIMIT_PROPERTY);
        System.clearProperty(CompilerSteps.REPORT_PROPERTY);
        CompilerSteps.reset();
        Ember.reset();
    }

    // ------------------------------------------------------------------ the search, on a simulated program

    /** A program that takes 40 decompositions, 30 lowerings and 9 fusions, and fails as {@code fails} says. */
    private record Simulated(Predicate<Trial> fails, List<Trial> trials) implements Bisector.Runner {
        Simulated(Predicate<Trial> fails) { this(fails, new ArrayList<>()); }

        public Outcome run(Trial t) {
            trials.add(t);
            boolean decomposes = !t.backend().equals("eager"), lowers = t.backend().equals("inductor");
            List<Step> steps = new ArrayList<>();
            take(t, Kind.DECOMPOSITION, decomposes ? 40 : 0, steps);
            take(t, Kind.LOWERING, lowers ? 30 : 0, steps);
            take(t, Kind.FUSION, lowers ? 9 : 0, steps);
            return new Outcome(fails.test(t), steps);
        }

        private static void take(Trial t, Kind kind, int count, List<Step> steps) {
            for (int i = 1; i <= count; i++) {
                boolean applied = t.limit() == null || t.limit().kind() != kind || i <= t.limit().n();
                steps.add(new Step(kind, i, applied, "op" + i + " (node n" + i + " at Model.java:" + (10 + i) + ")"));
            }
        }
    }

    private static boolean limitAtLeast(Trial t, Kind kind, int n) {
        return t.limit() == null || t.limit().kind() != kind || t.limit().n() >= n;
    }

    @Test
    void findsTheFirstBadLoweringInLogarithmicallyManyRuns() throws Exception {
        Simulated program = new Simulated(t -> t.backend().equals("inductor") && limitAtLeast(t, Kind.LOWERING, 12));
        List<String> progress = new ArrayList<>();
        Bisector.Result r = Bisector.bisect(program, progress::add);
        assertEquals(new FirstBadStep("inductor", "aot_eager", new Step(Kind.LOWERING, 12, true, "op12 (node n12 at Model.java:22)")), r);
        assertEquals("fails with backend inductor, passes with aot_eager; first bad step: lowering #12 op12 (node n12 at Model.java:22)", r.message());
        assertEquals(4 + 5, program.trials().size(), "inductor, eager, aot_eager, lowering:0, then a binary search of 30");
        assertEquals(String.format("%-50s %s", "backend inductor, EMBER_BISECT_LIMIT=lowering:0", "passes"), progress.get(3));
    }

    @Test
    void aFusionWhenLoweringsAreNotAtFault() throws Exception {
        Simulated program = new Simulated(t -> t.backend().equals("inductor") && limitAtLeast(t, Kind.FUSION, 9));
        assertEquals(new FirstBadStep("inductor", "aot_eager", new Step(Kind.FUSION, 9, true, "op9 (node n9 at Model.java:19)")),
                Bisector.bisect(program, s -> { }));
    }

    @Test
    void aDecompositionWhenAotEagerFails() throws Exception {
        Simulated program = new Simulated(t -> !t.backend().equals("eager") && limitAtLeast(t, Kind.DECOMPOSITION, 1));
        assertEquals(new FirstBadStep("aot_eager", "eager", new Step(Kind.DECOMPOSITION, 1, true, "op1 (node n1 at Model.java:11)")),
                Bisector.bisect(program, s -> { }));
    }

    @Test
    void saysWhenThereIsNothingToBisectOrTheCompilerIsNotAtFault() throws Exception {
        assertEquals(new PassesWithInductor(), Bisector.bisect(new Simulated(t -> false), s -> { }));
        Simulated always = new Simulated(t -> true);
        assertEquals(new FailsWithEager(), Bisector.bisect(always, s -> { }));
        assertTrue(new FailsWithEager().message().startsWith("fails with backend eager too: not a compiler problem"));
        Bisector.Result r = Bisector.bisect(new Simulated(t -> t.backend().equals("inductor")), s -> { });
        assertEquals(new NoSingleStep("inductor", "aot_eager", List.of(Kind.LOWERING, Kind.FUSION)), r);
        assertTrue(r.message().startsWith("fails with backend inductor, passes with aot_eager; switching off all of its lowerings, fusions"), r.message());
    }

    // ------------------------------------------------------------------ the search, on a real program in this process

    static Tensor scaledTanh(Tensor x) {
        return x.tanh().mul(2.0);
    }

    /**
     * Keeps an output of a reduce-overhead graph across a call, which the next call overwrites:
     * reading it then throws. Only inductor reuses output arrays, and only for values its
     * generated code stores (an op run by its eager kernel returns a fresh tensor).
     */
    static void keepsAnOutputAcrossCalls() {
        var f = Ember.compile(BisectorTest::scaledTanh, Options.defaults().mode("reduce-overhead"));
        Tensor x = Tensor.of(new float[] {0.5f, -1, 2, 0}, 2, 2);
        Tensor first = f.apply(x);
        f.apply(x);
        first.sum();
    }

    /** Runs {@link #keepsAnOutputAcrossCalls} with the trial's settings as system properties; failing = throwing. */
    private Outcome inProcess(Trial t) throws IOException {
        Path report = tmp.resolve("steps.tsv");
        Files.deleteIfExists(report);
        System.setProperty(Options.BACKEND_PROPERTY, t.backend());
        if (t.limit() == null) System.clearProperty(CompilerSteps.LIMIT_PROPERTY);
        else System.setProperty(CompilerSteps.LIMIT_PROPERTY, t.limit().toString());
        System.setProperty(CompilerSteps.REPORT_PROPERTY, report.toString());
        CompilerSteps.reset();
        Ember.reset();
        boolean failed = false;
        try {
            keepsAnOutputAcrossCalls();
        } catch (RuntimeException e) {
            failed = true;
        }
        return new Outcome(failed, CompilerSteps.steps());
    }

    @Test
    void findsTheLoweringWhoseOutputAReduceOverheadGraphReuses() throws Exception {
        Bisector.Result r = Bisector.bisect(this::inProcess, s -> { });
        String line = "BisectorTest.java:" + (Files.readAllLines(Path.of("src/test/java/dev/ember/debug/BisectorTest.java")).indexOf("        return x.tanh().mul(2.0);") + 1);
        assertEquals("fails with backend inductor, passes with aot_eager; first bad step: lowering #2 aten.mul.Scalar (node mul at " + line + ")", r.message());
    }
}
