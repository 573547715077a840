package dev.ember.examples;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.nn.ClipGrad;
import dev.ember.nn.F;
import dev.ember.nn.Init;
import dev.ember.nn.LSTM;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.nn.RNNBase;
import dev.ember.optim.Adam;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * An LSTM sequence classifier trained compiled: noisy sine waves, slow or fast, told apart from 24
 * steps. The LSTM is one node of the compiled graph (its steps one rnn_layer op), the Adam step is
 * compiled as well ({@code Ember.compile(opt)}), gradients are
 * clipped (ClipGrad), the head starts from Init.xavierUniform_, and the prediction is x.max(1)'s
 * index.
 */
public final class SequenceLstm {
    private SequenceLstm() {}

    static final int STEPS = 24;

    static final class Classifier extends Module {
        final LSTM lstm = new LSTM(1, 24, 1, true, true, 0.0, false);   // batch first
        final Linear head = new Linear(24, 2);

        Classifier() {
            Init.xavierUniform_(head.weight);
            Init.zeros_(head.bias);
        }

        @Override
        public Tensor forward(Tensor x) {
            RNNBase.Output out = lstm.forward(x, null, null);
            return head.forward(out.hN().select(0, -1));   // the last layer's final hidden state
        }
    }

    /** {@code n} sequences [n, STEPS, 1] and their labels: 1 for a fast wave, 0 for a slow one. */
    static List<Tensor> batch(int n) {
        Tensor labels = Tensor.randint(0, 2, n);
        Tensor frequency = labels.to(DType.FLOAT32).mul(0.35).add(0.2).unsqueeze(1);       // [n, 1]: 0.2 or 0.55 rad per step
        Tensor phase = Tensor.rand(n, 1).mul(2 * Math.PI);
        Tensor t = Tensor.arange(STEPS).to(DType.FLOAT32).unsqueeze(0);                   // [1, STEPS]
        Tensor x = frequency.mul(t).add(phase).sin().add(Tensor.randn(n, STEPS).mul(0.2));
        return List.of(x.unsqueeze(2), labels);
    }

    public static void main(String[] args) {
        Tensor.manualSeed(0);
        Classifier model = new Classifier();
        Adam opt = new Adam(model.parameters(), Adam.options().lr(0.02));
        Fn1<Tensor, Tensor> compiled = Ember.compile(model);
        Ember.compile(opt);   // the optimizer's step too: each parameter's update one fused kernel
        long start = System.nanoTime();
        for (int step = 1; step <= 60; step++) {
            List<Tensor> b = batch(32);
            Tensor loss = F.crossEntropy(compiled.apply(b.get(0)), b.get(1));
            opt.zeroGrad();
            loss.backward();
            Tensor norm = ClipGrad.clipGradNorm_(model.parameters(), 1.0);
            opt.step();
            if (step % 15 == 0) System.out.printf("step %2d  loss %.4f  gradient norm %.3f%n", step, loss.item(), norm.item());
        }
        System.out.printf("60 steps in %.1f s (the first compiles the LSTM's forward and backward)%n", (System.nanoTime() - start) / 1e9);

        model.eval();
        List<Tensor> test = batch(512);
        Tensor predicted = compiled.apply(test.get(0)).max(1).get(1);
        double accuracy = predicted.eq(test.get(1)).to(DType.FLOAT32).mean().item();
        System.out.printf("test accuracy %.1f%% on 512 new sequences%n", 100 * accuracy);
        Tensor x = test.get(0).narrow(0, 0, 8);
        double diff = compiled.apply(x).sub(model.forward(x)).abs().max().item();
        System.out.printf("compiled equals eager: %b (largest difference %.1e)%n", diff < 1e-5, diff);
        var explain = Ember.explain((Fn1<Tensor, Tensor>) model::forward).with(x);
        System.out.println("graphs: " + explain.graphCount() + ", graph breaks: " + explain.graphBreakCount() + ", ops: " + explain.opCount());
    }
}
