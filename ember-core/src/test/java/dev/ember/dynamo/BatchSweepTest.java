package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.nn.TransformerEncoderLayer;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue #15's target, as a user meets it: a model called over 20 batch sizes from 1 to 512
 * compiles at most twice (the first size, then one graph whose batch is a symbol), and every
 * call agrees with eager.
 */
class BatchSweepTest {
    static final int[] BATCHES = {1, 2, 3, 4, 5, 7, 8, 12, 16, 24, 31, 32, 48, 64, 100, 128, 200, 256, 384, 512};

    @AfterEach
    void reset() { Ember.reset(); }

    private static int compiles(Options opts) {
        return FrameRegistry.frames().stream().filter(f -> f.options() == opts).mapToInt(f -> f.entries().size()).sum();
    }

    private static void sweep(Module model, String backend, int[] rest, float tolerance) {
        Options opts = Options.backend(backend);
        var f = Ember.compile(model, opts);
        for (int b : BATCHES) {
            int[] shape = new int[rest.length + 1];
            shape[0] = b;
            System.arraycopy(rest, 0, shape, 1, rest.length);
            Tensor x = Tensor.randn(shape);
            assertArrayEquals(model.forward(x).toFloatArray(), f.apply(x).toFloatArray(), tolerance, backend + ", batch " + b);
        }
        int compiles = compiles(opts);
        assertTrue(compiles <= 2, backend + ": " + compiles + " compiles over " + BATCHES.length + " batch sizes");
    }

    @Test
    void anMlpCompilesAtMostTwiceOverTwentyBatchSizes() {
        Tensor.manualSeed(0);
        Module mlp = new Sequential(new Linear(64, 128), new ReLU(), new Linear(128, 10));
        try (var s = Ember.noGrad()) {
            sweep(mlp, "aot_eager", new int[] {64}, 1e-5f);
            Ember.reset();
            sweep(mlp, "inductor", new int[] {64}, 1e-4f);
        }
    }

    @Test
    void anEncoderLayerCompilesAtMostTwiceOverTwentyBatchSizes() {
        Tensor.manualSeed(0);
        Module encoder = new TransformerEncoderLayer(32, 4, 64, 0.0);
        encoder.eval();
        try (var s = Ember.noGrad()) {
            sweep(encoder, "aot_eager", new int[] {6, 32}, 1e-4f);
            Ember.reset();
            sweep(encoder, "inductor", new int[] {6, 32}, 1e-4f);
        }
    }
}
