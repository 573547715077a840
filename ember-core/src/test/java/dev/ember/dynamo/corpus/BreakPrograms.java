package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.tensor.Tensor;

/** Programs with graph breaks: the code before and after each break is captured in graphs of its own. */
final class BreakPrograms {
    private BreakPrograms() {}

    static final StringBuilder LOG = new StringBuilder();

    static Tensor printsBetween(Tensor x, Tensor y, double scale) {
        Tensor z = x.add(y);
        System.out.println("z has shape " + java.util.Arrays.toString(z.shape()));
        return z.relu().mul(scale);
    }

    static Tensor explicitBetween(Tensor x) {
        Tensor a = x.matmul(x.t());
        Ember.graphBreak();
        return a.softmax(1).sum(0, false);
    }

    static Tensor printsShape(Tensor x, Tensor w) {
        Tensor z = x.matmul(w);
        System.out.println("z has shape " + java.util.Arrays.toString(z.shape()));
        return z.t().softmax(0);
    }
}
