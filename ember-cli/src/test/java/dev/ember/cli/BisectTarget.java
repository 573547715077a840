package dev.ember.cli;

import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.tensor.Tensor;

/**
 * A program {@link BisectCommandTest} bisects: it keeps an output of a reduce-overhead graph across
 * the next call, which overwrites it under inductor (and only there): reading it throws, the JVM
 * exits with code 1.
 */
public final class BisectTarget {
    private BisectTarget() {}

    static Tensor scaledTanh(Tensor x) {
        return x.tanh().mul(2.0);
    }

    public static void main(String[] args) {
        var f = Ember.compile(BisectTarget::scaledTanh, Options.defaults().mode("reduce-overhead"));
        Tensor x = Tensor.of(new float[] {0.5f, -1, 2, 0}, 2, 2);
        Tensor first = f.apply(x);
        f.apply(x);
        System.out.println("sum of the first output: " + first.sum().item());
    }
}
