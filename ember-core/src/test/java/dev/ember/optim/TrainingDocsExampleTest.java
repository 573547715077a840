package dev.ember.optim;

import dev.ember.Ember;
import dev.ember.nn.Linear;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The training loop of docs/training.md, as written there (files in a temporary folder instead of the working directory). */
class TrainingDocsExampleTest {

    @Test
    void theLoopLearnsAndTheCheckpointRestoresIt(@TempDir Path dir) throws Exception {
        Tensor.manualSeed(0);
        Tensor wTrue = Tensor.of(new float[] {1.5f, -2f, 0.5f, 3f}, 4, 1);
        var model = new Sequential(new Linear(4, 32), new ReLU(), new Linear(32, 1));
        var opt = new AdamW(model.parameters(), AdamW.options().lr(3e-2).weightDecay(1e-2));
        int steps = 200;
        var sched = new CosineAnnealingLR(opt, steps);               // lr from 3e-2 down to 0 over the run

        model.train();
        for (int step = 0; step < steps; step++) {
            Tensor x = Tensor.randn(64, 4);
            Tensor y = x.matmul(wTrue).add(Tensor.randn(64, 1).mul(0.1));
            opt.zeroGrad();                                          // every grad() back to null
            Tensor loss = model.forward(x).sub(y).pow(2).mean();
            loss.backward();                                         // fills each parameter's grad()
            opt.step();                                              // updates the parameters in place
            sched.step();                                            // after opt.step(), as in PyTorch
        }

        model.eval();
        double mse;
        try (var scope = Ember.noGrad()) {                           // evaluation records nothing
            Tensor x = Tensor.randn(256, 4);
            mse = model.forward(x).sub(x.matmul(wTrue)).pow(2).mean().item();
        }

        model.save(dir.resolve("model.safetensors"));                // the state dict, as safetensors
        opt.save(dir.resolve("optim.safetensors"));                  // moments, step counts, options

        var restored = new Sequential(new Linear(4, 32), new ReLU(), new Linear(32, 1));
        restored.load(dir.resolve("model.safetensors"));             // strict: same keys, shapes, dtypes
        var restoredOpt = new AdamW(restored.parameters(), AdamW.options());
        restoredOpt.load(dir.resolve("optim.safetensors"));          // options (lr, …) come from the file

        assertTrue(mse < 0.05, "learned y = x·w (mse " + mse + ", the targets' variance is about 15)");
        Tensor probe = Tensor.randn(8, 4);
        try (var scope = Ember.noGrad()) {
            assertArrayEquals(model.forward(probe).toFloatArray(), restored.forward(probe).toFloatArray(), 0f);
        }
        assertEquals(opt.paramGroups().getFirst().lr(), restoredOpt.paramGroups().getFirst().lr());
        assertEquals(200.0, restoredOpt.state(restored.parameters().getFirst()).get("step").item());
        assertEquals(0.0, sched.getLastLr().getFirst(), 1e-15);
    }
}
