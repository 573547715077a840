package dev.ember.examples;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.Unsupported;
import dev.ember.tensor.Tensor;

/** Ember.compile on plain Java: the graph, the guards, a recompile, explain, and fullgraph's error. */
public final class CompileAndExplain {
    private CompileAndExplain() {}

    static Tensor layer(Tensor x, Tensor w) {
        Tensor h = x.matmul(w).relu();
        return h.sub(h.mean(-1, true)).div(h.std(-1, true).add(1e-5));
    }

    static Tensor needsData(Tensor x) {
        Tensor y = x.mul(2.0);
        if (y.sum().item() > 0) return y;   // data-dependent: a graph break
        return y.neg();
    }

    public static void main(String[] args) {
        Tensor.manualSeed(0);
        CompileCounter counter = new CompileCounter();
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(CompileAndExplain::layer, Options.backend(counter));
        Tensor x = Tensor.randn(4, 16), w = Tensor.randn(16, 8);
        f.apply(x, w);
        f.apply(Tensor.randn(4, 16), w);          // same shapes: served from the cache
        f.apply(Tensor.randn(9, 16), w);          // new shape: the size guard fails, one recompile
        System.out.println("frames compiled: " + counter.frameCount() + " (expected 2), ops: " + counter.opCount());

        System.out.println(Ember.explain(CompileAndExplain::needsData).with(x));

        try {
            Ember.compile(CompileAndExplain::needsData, Options.fullgraph()).apply(x);
        } catch (Unsupported e) {
            System.out.println("fullgraph: " + e.gbId() + " at " + e.userFrame() + ": " + e.reason());
        }
    }
}
