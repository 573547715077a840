package dev.ember.bench;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.kernels.Blas;
import dev.ember.nn.Module;
import dev.ember.optim.AdamW;
import dev.ember.tensor.Tensor;

import java.util.Arrays;

/**
 * One compiled training step of {@link TrainingBench}'s MLP or encoder (compiled model, compiled
 * AdamW), timed phase by phase: zeroGrad, forward and loss, backward, optimizer step; medians of
 * the last 150 of 300 steps in one JVM. Where a step's time goes, beside
 * {@code ember-bench/peer/torch_train_phases.py} (docs/benchmarks.md, session 19). Run:
 * {@code java $EMBER_FLAGS -cp ember-bench/target/benchmarks.jar dev.ember.bench.TrainingPhases [mlp|encoder]}
 * ({@code -Dember.blas=openblas|mkl} picks the BLAS).
 */
public final class TrainingPhases {
    private TrainingPhases() {}

    public static void main(String[] args) {
        String which = args.length > 0 ? args[0] : "mlp";
        if (!which.equals("mlp") && !which.equals("encoder")) {
            System.err.println("TrainingPhases: expected mlp or encoder, got '" + which + "'");
            System.exit(2);
        }
        Tensor.manualSeed(1);
        Module model = which.equals("mlp") ? TrainingBench.mlpModel() : TrainingBench.encoderModel();
        Tensor x = which.equals("mlp") ? Tensor.randn(64, 512) : Tensor.randn(4, 128, 256);
        AdamW opt = TrainingBench.adamW(model);
        Ember.compile(opt);
        Fn1<Tensor, Tensor> forward = Ember.compile(model);
        int steps = 300;
        long[][] t = new long[4][steps];
        for (int i = 0; i < steps; i++) {
            long t0 = System.nanoTime();
            opt.zeroGrad();
            long t1 = System.nanoTime();
            Tensor loss = forward.apply(x).pow(2.0).mean();
            long t2 = System.nanoTime();
            loss.backward();
            long t3 = System.nanoTime();
            opt.step();
            loss.item();
            long t4 = System.nanoTime();
            t[0][i] = t1 - t0;
            t[1][i] = t2 - t1;
            t[2][i] = t3 - t2;
            t[3][i] = t4 - t3;
        }
        double z = median(t[0]), f = median(t[1]), b = median(t[2]), s = median(t[3]);
        System.out.println("blas: " + Blas.backendDescription());
        System.out.printf("Ember compiled %s step, median ms: zeroGrad %.2f  forward %.2f  backward %.2f  step %.2f  total %.2f%n",
                which, z, f, b, s, z + f + b + s);
    }

    /** The median of the second half (after warm-up), in ms. */
    private static double median(long[] nanos) {
        long[] late = Arrays.copyOfRange(nanos, nanos.length / 2, nanos.length);
        Arrays.sort(late);
        return late[late.length / 2] / 1e6;
    }
}
