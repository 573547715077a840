package dev.ember.examples;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.nn.F;
import dev.ember.nn.Linear;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.optim.AdamW;
import dev.ember.tensor.Tensor;

import java.io.IOException;

/**
 * Trains a multilayer perceptron on Fashion-MNIST with a compiled forward and backward: the
 * model's forward is {@code Ember.compile}d, its backward is the compiled backward graph AOT made,
 * and AdamW updates the weights. Prints a progress line per step and the test accuracy per epoch.
 * Run: {@code ./ember example train-mlp} (installs Debian's dataset-fashion-mnist on first use).
 */
public final class TrainMlp {
    private TrainMlp() {}

    static Sequential model() {
        return new Sequential(new Linear(784, 256), new ReLU(), new Linear(256, 128), new ReLU(), new Linear(128, 10));
    }

    public static void main(String[] args) throws IOException {
        int epochs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        Tensor.manualSeed(0);
        FashionMnist.Split train = FashionMnist.train(), test = FashionMnist.test();
        Sequential model = model();
        AdamW opt = new AdamW(model.parameters(), AdamW.options().lr(1e-3).weightDecay(1e-4));
        Fn1<Tensor, Tensor> forward = Ember.compile(model);
        Training.fit(model, forward, opt, train, test, epochs, 128, true);
    }
}
