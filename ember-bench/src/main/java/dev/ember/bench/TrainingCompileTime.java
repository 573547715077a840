package dev.ember.bench;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.events.CompileEvent;
import dev.ember.nn.Module;
import dev.ember.optim.AdamW;
import dev.ember.tensor.Tensor;

/**
 * Compile time of a training step in a fresh JVM, as a user meets it: the first compiled step of
 * each TrainingBench model (capture, AOT's joint graph and partition, inductor on the forward and
 * the backward graph, then the step itself), beside the second step; and how much of the first
 * step was the compile itself (Ember's timed compile phases: tracing, resume codegen, the backend
 * with AOT and inductor on both graphs), the rest being the step's first run in a cold JVM. Run:
 * {@code java --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED -cp ember-bench/target/benchmarks.jar dev.ember.bench.TrainingCompileTime}
 * (one process per model keeps each first step cold: pass mlp, convBnRelu, encoder, lstm or gru).
 */
public final class TrainingCompileTime {
    private TrainingCompileTime() {}

    public static void main(String[] args) {
        String which = args.length > 0 ? args[0] : "mlp";
        Tensor.manualSeed(1);
        Module model;
        Tensor x;
        switch (which) {
            case "mlp" -> { model = TrainingBench.mlpModel(); x = Tensor.randn(64, 512); }
            case "convBnRelu" -> { model = TrainingBench.convModel(); x = Tensor.randn(4, 64, 28, 28); }
            case "encoder" -> { model = TrainingBench.encoderModel(); x = Tensor.randn(4, 128, 256); }
            case "lstm" -> { model = TrainingBench.lstmModel(); x = TrainingBench.lstmInput(); }
            case "gru" -> { model = TrainingBench.gruModel(); x = TrainingBench.lstmInput(); }
            default -> throw new IllegalArgumentException("mlp, convBnRelu, encoder, lstm or gru, not " + which);
        }
        AdamW opt = TrainingBench.adamW(model);
        Fn1<Tensor, Tensor> compiled = Ember.compile(model);
        java.util.Map<CompileEvent.Phase, Long> phases = new java.util.EnumMap<>(CompileEvent.Phase.class);
        long[] compileNanos = {0};
        int[] depth = {0};
        long t0, t1;
        try (var s = Ember.events().subscribe(e -> {
            // phases may nest (a backend compile inside a trace): the total counts the outermost only
            if (e instanceof CompileEvent.PhaseStarted) depth[0]++;
            if (e instanceof CompileEvent.PhaseEnded end) {
                phases.merge(end.phase(), end.elapsed().toNanos(), Long::sum);
                if (--depth[0] == 0) compileNanos[0] += end.elapsed().toNanos();
            }
        })) {
            t0 = System.nanoTime();
            TrainingBench.step(compiled, opt, x);
            t1 = System.nanoTime();
        }
        TrainingBench.step(compiled, opt, x);
        long t2 = System.nanoTime();
        StringBuilder parts = new StringBuilder();
        phases.forEach((phase, nanos) -> parts.append(parts.isEmpty() ? "" : ", ").append(phase.text()).append(String.format(" %.0f", nanos / 1e6)));
        System.out.printf("%-11s first compiled step %7.0f ms (compile %5.0f ms: %s; the rest runs the step), second %6.0f ms%n",
                which, (t1 - t0) / 1e6, compileNanos[0] / 1e6, parts, (t2 - t1) / 1e6);
    }
}
