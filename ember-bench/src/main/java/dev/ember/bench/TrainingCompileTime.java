package dev.ember.bench;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.nn.Module;
import dev.ember.optim.AdamW;
import dev.ember.tensor.Tensor;

/**
 * Compile time of a training step in a fresh JVM, as a user meets it: the first compiled step of
 * each TrainingBench model (capture, AOT's joint graph and partition, inductor on the forward and
 * the backward graph, then the step itself), beside the second step. Run:
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
        long t0 = System.nanoTime();
        TrainingBench.step(compiled, opt, x);
        long t1 = System.nanoTime();
        TrainingBench.step(compiled, opt, x);
        long t2 = System.nanoTime();
        System.out.printf("%-11s first compiled step %7.0f ms, second %6.0f ms%n", which, (t1 - t0) / 1e6, (t2 - t1) / 1e6);
    }
}
