package dev.ember.optim;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Activation;
import ai.djl.training.GradientCollector;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.nn.F;
import dev.ember.nn.Linear;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The train-mlp example's model and step (784→256→128→10, cross entropy, AdamW) on generated
 * 28×28 "images": the first 50 steps' losses, eager and compiled (forward and backward compiled by
 * inductor), equal libtorch's (DJL's autograd, AdamW with libtorch ops) from the same initial
 * weights and batches within 1e-4.
 */
class ClassifierTrainingTest {
    static final int STEPS = 50, BATCH = 32;
    static final double LR = 1e-3, WEIGHT_DECAY = 1e-4, BETA1 = 0.9, BETA2 = 0.999, EPS = 1e-8;

    record Batch(Tensor x, Tensor y) {}

    /** Ten classes, each a noisy template image. */
    static List<Batch> batches() {
        Generator g = new Generator(77);
        Tensor templates = Tensor.randn(g, 10, 784);
        List<Batch> out = new ArrayList<>();
        for (int s = 0; s < STEPS; s++) {
            Tensor y = Tensor.randint(g, 0, 10, BATCH);
            Tensor x = templates.indexSelect(0, y).add(Tensor.randn(g, BATCH, 784).mul(2.0));
            out.add(new Batch(x, y));
        }
        return out;
    }

    static Sequential model() {
        Tensor.manualSeed(5);
        return new Sequential(new Linear(784, 256), new ReLU(), new Linear(256, 128), new ReLU(), new Linear(128, 10));
    }

    static double[] train(boolean compiled, List<Batch> data) {
        Sequential model = model();
        AdamW opt = new AdamW(model.parameters(), AdamW.options().lr(LR).weightDecay(WEIGHT_DECAY));
        Fn1<Tensor, Tensor> forward = compiled ? Ember.compile(model) : model::forward;
        double[] losses = new double[STEPS];
        for (int s = 0; s < STEPS; s++) {
            opt.zeroGrad();
            Tensor loss = F.crossEntropy(forward.apply(data.get(s).x()), data.get(s).y());
            loss.backward();
            opt.step();
            losses[s] = loss.item();
        }
        return losses;
    }

    @Test
    void eagerAndCompiledTrainingMatchLibtorchForFiftySteps() {
        List<Batch> data = batches();
        List<Tensor> initial = model().parameters().stream().map(p -> (Tensor) p.detach().clone()).toList();
        double[] torch = libtorch(initial, data);
        double[] eager = train(false, data);
        Ember.reset();
        double[] compiled = train(true, data);
        for (int s = 0; s < STEPS; s++) {
            assertEquals(torch[s], eager[s], 1e-4, "eager loss at step " + s);
            assertEquals(torch[s], compiled[s], 1e-4, "compiled loss at step " + s);
        }
        assertEquals(true, compiled[STEPS - 1] < 0.5 * compiled[0], "it learns: " + compiled[0] + " -> " + compiled[STEPS - 1]);
    }

    static double[] libtorch(List<Tensor> initial, List<Batch> data) {
        double[] losses = new double[STEPS];
        try (NDManager m = Torch.scope()) {
            NDArray[] p = new NDArray[initial.size()], exp = new NDArray[p.length], expSq = new NDArray[p.length];
            for (int i = 0; i < p.length; i++) {
                p[i] = Torch.toNd(m, initial.get(i));
                exp[i] = p[i].zerosLike();
                expSq[i] = p[i].zerosLike();
            }
            for (int s = 0; s < STEPS; s++) {
                NDArray x = Torch.toNd(m, data.get(s).x());
                NDArray oneHot = Torch.toNd(m, F.oneHot(data.get(s).y(), 10).to(DType.FLOAT32));
                NDArray[] grads = new NDArray[p.length];
                for (NDArray a : p) a.setRequiresGradient(true);
                try (GradientCollector gc = m.getEngine().newGradientCollector()) {
                    NDArray h = Activation.relu(x.matMul(p[0].transpose()).add(p[1]));
                    h = Activation.relu(h.matMul(p[2].transpose()).add(p[3]));
                    NDArray logits = h.matMul(p[4].transpose()).add(p[5]);
                    NDArray loss = logits.logSoftmax(1).mul(oneHot).sum(new int[] {1}).mean().neg();
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
}
