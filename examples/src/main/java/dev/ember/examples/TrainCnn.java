package dev.ember.examples;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.nn.BatchNorm2d;
import dev.ember.nn.Conv2d;
import dev.ember.nn.Flatten;
import dev.ember.nn.Linear;
import dev.ember.nn.MaxPool2d;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.optim.AdamW;
import dev.ember.tensor.Tensor;

import java.io.IOException;

/**
 * Trains a small convolutional network (two Conv-BatchNorm-ReLU-MaxPool blocks, then two linear
 * layers) on Fashion-MNIST with a compiled forward and backward and AdamW.
 * Run: {@code ./ember example train-cnn} (installs Debian's dataset-fashion-mnist on first use).
 */
public final class TrainCnn {
    private TrainCnn() {}

    static Sequential model() {
        return new Sequential(
                new Conv2d(1, 16, 3, 1, 1), new BatchNorm2d(16), new ReLU(), new MaxPool2d(2),
                new Conv2d(16, 32, 3, 1, 1), new BatchNorm2d(32), new ReLU(), new MaxPool2d(2),
                new Flatten(), new Linear(32 * 7 * 7, 128), new ReLU(), new Linear(128, 10));
    }

    public static void main(String[] args) throws IOException {
        int epochs = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        Tensor.manualSeed(0);
        FashionMnist.Split train = FashionMnist.train(), test = FashionMnist.test();
        Sequential model = model();
        AdamW opt = new AdamW(model.parameters(), AdamW.options().lr(2e-3).weightDecay(1e-4));
        Fn1<Tensor, Tensor> forward = Ember.compile(model);
        Training.fit(model, forward, opt, train, test, epochs, 128, false);
    }
}
