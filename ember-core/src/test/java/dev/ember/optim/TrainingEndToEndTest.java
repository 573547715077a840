package dev.ember.optim;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Activation;
import ai.djl.training.GradientCollector;
import dev.ember.Ember;
import dev.ember.nn.Linear;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A small MLP (Linear-ReLU-Linear) trained with AdamW for 50 steps on generated regression data,
 * in float32: the loss falls, and every step's loss equals the loss of the same training run by
 * libtorch (DJL's autograd for the gradients, AdamW as PyTorch computes it with libtorch ops) from
 * the same initial weights and batches.
 */
class TrainingEndToEndTest {
    static final int STEPS = 50, BATCH = 32, IN = 4, HIDDEN = 16;
    static final double LR = 3e-2, BETA1 = 0.9, BETA2 = 0.999, EPS = 1e-8, WEIGHT_DECAY = 1e-2;

    record Batch(Tensor x, Tensor y) {}

    /** y = sin(x0) + x1 * x2 - 0.5 * x3 + noise. */
    static List<Batch> batches() {
        Generator g = new Generator(1234);
        List<Batch> out = new ArrayList<>();
        for (int s = 0; s < STEPS; s++) {
            Tensor x = Tensor.randn(g, BATCH, IN);
            Tensor y = x.select(1, 0).sin().add(x.select(1, 1).mul(x.select(1, 2))).sub(x.select(1, 3).mul(0.5))
                    .add(Tensor.randn(g, BATCH).mul(0.05)).reshape(BATCH, 1);
            out.add(new Batch(x, y));
        }
        return out;
    }

    static Sequential model() {
        Tensor.manualSeed(42);
        return new Sequential(new Linear(IN, HIDDEN), new ReLU(), new Linear(HIDDEN, 1));
    }

    @Test
    void adamWTrainingMatchesLibtorchStepByStep() {
        List<Batch> data = batches();
        Sequential model = model();
        List<Tensor> initial = model.parameters().stream().map(p -> p.detach().clone()).map(t -> (Tensor) t).toList();

        AdamW opt = new AdamW(model.parameters(), AdamW.options().lr(LR).betas(BETA1, BETA2).eps(EPS).weightDecay(WEIGHT_DECAY));
        double[] ember = new double[STEPS];
        for (int s = 0; s < STEPS; s++) {
            opt.zeroGrad();
            Tensor loss = model.forward(data.get(s).x()).sub(data.get(s).y()).pow(2).mean();
            loss.backward();
            opt.step();
            ember[s] = loss.item();
        }

        double[] torch = libtorchTraining(initial, data);
        double worst = 0;
        for (int s = 0; s < STEPS; s++) {
            assertEquals(torch[s], ember[s], 1e-5, "loss at step " + s);
            worst = Math.max(worst, Math.abs(torch[s] - ember[s]));
        }
        System.out.printf("AdamW MLP, %d float32 steps: loss %.5f -> %.5f; largest difference from libtorch %.3g%n", STEPS, ember[0], ember[STEPS - 1], worst);
        double first = java.util.Arrays.stream(ember, 0, 10).average().orElseThrow(), last = java.util.Arrays.stream(ember, STEPS - 10, STEPS).average().orElseThrow();
        assertTrue(last < 0.5 * first, "the loss falls (each step is a fresh batch, so compare ten-step means): " + first + " -> " + last);
    }

    /** The same run in libtorch: DJL's autograd for gradients, PyTorch's AdamW update with libtorch ops. */
    static double[] libtorchTraining(List<Tensor> initial, List<Batch> data) {
        double[] losses = new double[STEPS];
        try (NDManager m = Torch.scope()) {
            NDArray[] p = new NDArray[initial.size()], exp = new NDArray[p.length], expSq = new NDArray[p.length];
            for (int i = 0; i < p.length; i++) {
                p[i] = Torch.toNd(m, initial.get(i));
                exp[i] = p[i].zerosLike();
                expSq[i] = p[i].zerosLike();
            }
            for (int s = 0; s < STEPS; s++) {
                NDArray x = Torch.toNd(m, data.get(s).x()), y = Torch.toNd(m, data.get(s).y());
                NDArray[] grads = new NDArray[p.length];
                for (NDArray a : p) a.setRequiresGradient(true);
                try (GradientCollector gc = m.getEngine().newGradientCollector()) {
                    NDArray h = Activation.relu(x.matMul(p[0].transpose()).add(p[1]));
                    NDArray pred = h.matMul(p[2].transpose()).add(p[3]);
                    NDArray loss = pred.sub(y).pow(2).mean();
                    gc.backward(loss);
                    losses[s] = loss.getFloat();
                    for (int i = 0; i < p.length; i++) grads[i] = p[i].getGradient().duplicate();
                }
                int t = s + 1;
                double bc1 = 1 - Math.pow(BETA1, t), bc2 = 1 - Math.pow(BETA2, t);
                for (int i = 0; i < p.length; i++) {
                    NDArray w = p[i].stopGradient().mul(1 - LR * WEIGHT_DECAY);
                    exp[i] = exp[i].mul(BETA1).add(grads[i].mul(1 - BETA1));
                    expSq[i] = expSq[i].mul(BETA2).add(grads[i].mul(grads[i]).mul(1 - BETA2));
                    NDArray denom = expSq[i].sqrt().div(Math.sqrt(bc2)).add(EPS);
                    p[i] = w.sub(exp[i].mul(LR / bc1).div(denom));
                }
            }
        }
        return losses;
    }

    @Test
    void trainEvaluateSaveAndLoadAsTheDocsShow(@TempDir Path dir) throws Exception {
        List<Batch> data = batches();
        Sequential model = model();
        AdamW opt = new AdamW(model.parameters(), AdamW.options().lr(LR));
        LRScheduler sched = new CosineAnnealingLR(opt, STEPS);
        for (Batch b : data) {
            opt.zeroGrad();
            Tensor loss = model.forward(b.x()).sub(b.y()).pow(2).mean();
            loss.backward();
            opt.step();
            sched.step();
        }
        assertEquals(0.0, sched.getLastLr().getFirst(), 1e-12, "annealed to eta_min");
        Tensor evalLoss;
        model.eval();
        try (var unused = Ember.noGrad()) {
            evalLoss = model.forward(data.getFirst().x()).sub(data.getFirst().y()).pow(2).mean();
        }
        assertTrue(!evalLoss.requiresGrad() && evalLoss.gradFn() == null, "nothing recorded under noGrad");

        model.save(dir.resolve("model.safetensors"));
        opt.save(dir.resolve("optim.safetensors"));
        Sequential restored = model();
        restored.load(dir.resolve("model.safetensors"));
        AdamW opt2 = new AdamW(restored.parameters(), AdamW.options().lr(LR));
        opt2.load(dir.resolve("optim.safetensors"));
        restored.eval();
        try (var unused = Ember.noGrad()) {
            assertArrayEquals(evalLoss.toFloatArray(), restored.forward(data.getFirst().x()).sub(data.getFirst().y()).pow(2).mean().toFloatArray(), 0f);
        }
        assertEquals(opt.paramGroups().getFirst().options(), opt2.paramGroups().getFirst().options(), "lr and initial_lr restored too");
    }
}
