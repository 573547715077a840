package dev.ember.debug;

import dev.ember.fx.CompilerSteps;
import dev.ember.fx.CompilerSteps.Kind;
import dev.ember.fx.CompilerSteps.Step;

import java.util.List;
import java.util.function.Consumer;

/**
 * {@code ember bisect}'s search (PyTorch's CompilerBisector): which stage first makes a failing
 * program fail, then which single step of that stage. The backends go from least to most compiler —
 * {@code eager} (capture only), {@code aot_eager} (adds decompositions), {@code inductor} (adds
 * lowering, fusion and code generation) — and the first that fails names the stage. Inside it, each
 * subsystem is switched off whole ({@link CompilerSteps.Limit} of 0); the first whose absence makes
 * the program pass is binary-searched for the smallest number of its steps that still fails: that
 * last step is the first bad one. Each probe is one run of the program, by a {@link Runner}.
 */
public final class Bisector {
    private Bisector() {}

    /** One run of the program: with this backend forced, and at most {@code limit} steps of one subsystem (null: all). */
    public record Trial(String backend, CompilerSteps.Limit limit) {
        @Override
        public String toString() { return "backend " + backend + (limit == null ? "" : ", " + CompilerSteps.LIMIT_ENV + "=" + limit); }
    }

    /** What a run did: whether it failed, and the compiler steps it took (in order). */
    public record Outcome(boolean failed, List<Step> steps) {
        public Outcome {
            steps = List.copyOf(steps);
        }

        int count(Kind kind) { return (int) steps.stream().filter(s -> s.kind() == kind).count(); }

        Step step(Kind kind, int number) {
            return steps.stream().filter(s -> s.kind() == kind && s.number() == number).findFirst()
                    .orElseThrow(() -> new IllegalStateException("the run took no " + kind.text() + " #" + number));
        }
    }

    /** Runs the program once as {@code trial} says. */
    @FunctionalInterface
    public interface Runner {
        Outcome run(Trial trial) throws Exception;
    }

    /** What the search concluded; {@link #message()} is the sentence for people. */
    public sealed interface Result {
        String message();
    }

    /** The program passes with inductor: there is no failure to bisect. */
    public record PassesWithInductor() implements Result {
        public String message() {
            return "passes with backend inductor: nothing to bisect (a run fails when the command exits with a non-zero code"
                    + ", or, with --grep TEXT, when its output contains TEXT)";
        }
    }

    /** The program fails with eager too: the backends are not at fault. */
    public record FailsWithEager() implements Result {
        public String message() {
            return "fails with backend eager too: not a compiler problem (eager runs the captured graphs op by op). "
                    + "If the program passes without Ember.compile, capture is at fault: look at EMBER_LOGS=graph_breaks,graph_code";
        }
    }

    /** The first bad step of the failing backend's subsystems. */
    public record FirstBadStep(String failing, String passing, Step step) implements Result {
        public String message() {
            return "fails with backend " + failing + ", passes with " + passing + "; first bad step: " + step;
        }
    }

    /** The failing backend is at fault, but no single step of its subsystems: switching each off did not make the program pass. */
    public record NoSingleStep(String failing, String passing, List<Kind> tried) implements Result {
        public String message() {
            return "fails with backend " + failing + ", passes with " + passing + "; switching off all of its "
                    + String.join(", ", tried.stream().map(k -> k.text() + "s").toList()) + " (one subsystem at a time) did not make it pass: "
                    + "the fault is elsewhere in " + failing + (failing.equals("inductor") ? " (code generation, memory planning)" : " (functionalization)")
                    + "; read its generated code with EMBER_LOGS=output_code";
        }
    }

    /**
     * Runs the search. {@code progress} gets one line per run ({@code backend inductor: fails}).
     *
     * @throws Exception what the runner throws (a command that cannot start)
     */
    public static Result bisect(Runner runner, Consumer<String> progress) throws Exception {
        Outcome inductor = probe(runner, new Trial("inductor", null), progress);
        if (!inductor.failed()) return new PassesWithInductor();
        if (probe(runner, new Trial("eager", null), progress).failed()) return new FailsWithEager();
        Outcome aot = probe(runner, new Trial("aot_eager", null), progress);
        String failing = aot.failed() ? "aot_eager" : "inductor", passing = aot.failed() ? "eager" : "aot_eager";
        Outcome all = aot.failed() ? aot : inductor;
        List<Kind> kinds = aot.failed() ? List.of(Kind.DECOMPOSITION) : List.of(Kind.LOWERING, Kind.FUSION);
        for (Kind kind : kinds) {
            int total = all.count(kind);
            if (total == 0 || probe(runner, new Trial(failing, new CompilerSteps.Limit(kind, 0)), progress).failed()) continue;
            // Invariant: `pass` steps pass, `fail` steps fail (with `failed` the run at `fail`).
            int pass = 0, fail = total;
            Outcome failed = all;
            while (fail - pass > 1) {
                int mid = (pass + fail) >>> 1;
                Outcome o = probe(runner, new Trial(failing, new CompilerSteps.Limit(kind, mid)), progress);
                if (o.failed()) {
                    fail = mid;
                    failed = o;
                } else {
                    pass = mid;
                }
            }
            return new FirstBadStep(failing, passing, failed.step(kind, fail));
        }
        return new NoSingleStep(failing, passing, kinds);
    }

    private static Outcome probe(Runner runner, Trial trial, Consumer<String> progress) throws Exception {
        Outcome o = runner.run(trial);
        progress.accept(String.format("%-50s %s", trial, o.failed() ? "fails" : "passes"));
        return o;
    }
}
