package dev.ember.examples;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.nn.F;
import dev.ember.nn.Module;
import dev.ember.optim.Optimizer;
import dev.ember.tensor.Tensor;

import java.io.PrintStream;

/** The training loop the train-* examples share: shuffled mini-batches, a progress line, test accuracy per epoch. */
final class Training {
    private Training() {}

    /** Trains for {@code epochs}; returns the last epoch's test accuracy. */
    static double fit(Module model, Fn1<Tensor, Tensor> forward, Optimizer opt, FashionMnist.Split train, FashionMnist.Split test,
                      int epochs, int batch, boolean flat) {
        PrintStream out = System.out;
        int n = train.size(), steps = n / batch;
        double accuracy = 0;
        for (int epoch = 1; epoch <= epochs; epoch++) {
            model.train();
            Tensor order = Tensor.rand(n).argsort(0, false);   // a random permutation
            Tensor images = train.images().indexSelect(0, order), labels = train.labels().indexSelect(0, order);
            FashionMnist.Split shuffled = new FashionMnist.Split(images, labels);
            long start = System.nanoTime();
            double lossSum = 0;
            long correct = 0, seen = 0;
            for (int s = 0; s < steps; s++) {
                Tensor x = FashionMnist.batchImages(shuffled, s * batch, (s + 1) * batch, flat);
                Tensor y = FashionMnist.batchLabels(shuffled, s * batch, (s + 1) * batch);
                opt.zeroGrad();
                Tensor logits = forward.apply(x);
                Tensor loss = F.crossEntropy(logits, y);
                loss.backward();
                opt.step();
                lossSum += loss.item();
                try (var scope = Ember.noGrad()) {
                    correct += (long) logits.argmax(1, false).eq(y).sum().item();
                }
                seen += batch;
                if (s % 20 == 0 || s == steps - 1) {
                    double secs = (System.nanoTime() - start) / 1e9;
                    out.printf("\repoch %d/%d %s %4d/%d  loss %.4f  accuracy %5.1f%%  %6.0f images/s", epoch, epochs, bar(s + 1, steps), s + 1, steps,
                            lossSum / (s + 1), 100.0 * correct / seen, seen / Math.max(secs, 1e-9));
                }
            }
            accuracy = evaluate(model, forward, test, batch, flat);
            out.printf("  |  test accuracy %.2f%%%n", 100 * accuracy);
        }
        return accuracy;
    }

    static double evaluate(Module model, Fn1<Tensor, Tensor> forward, FashionMnist.Split test, int batch, boolean flat) {
        model.eval();
        long correct = 0;
        try (var scope = Ember.noGrad()) {
            for (int from = 0; from < test.size(); from += batch) {
                int to = Math.min(test.size(), from + batch);
                Tensor logits = forward.apply(FashionMnist.batchImages(test, from, to, flat));
                correct += (long) logits.argmax(1, false).eq(FashionMnist.batchLabels(test, from, to)).sum().item();
            }
        }
        return (double) correct / test.size();
    }

    private static String bar(int done, int total) {
        int width = 20, filled = (int) ((long) done * width / total);
        return "[" + "#".repeat(filled) + ".".repeat(width - filled) + "]";
    }
}
