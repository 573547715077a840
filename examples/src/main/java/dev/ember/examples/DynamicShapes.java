package dev.ember.examples;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.events.CompileEvent.FrameCompiled;
import dev.ember.events.CompileEvent.Recompile;
import dev.ember.export.Dim;
import dev.ember.export.ExportError;
import dev.ember.export.ExportOptions;
import dev.ember.export.ExportedProgram;
import dev.ember.nn.F;
import dev.ember.nn.GELU;
import dev.ember.nn.Linear;
import dev.ember.nn.Sequential;
import dev.ember.optim.AdamW;
import dev.ember.tensor.Tensor;

/**
 * Dynamic shapes: a batch size that changes on every call compiles twice (the first size, then a
 * graph whose batch is the symbol s0), a size the code reads stays symbolic, explain shows the
 * symbolic graph and its guards, training takes the symbolic batch through its forward and backward
 * graphs, and export takes a dynamic batch with a range. See docs/dynamic.md.
 */
public final class DynamicShapes {
    private DynamicShapes() {}

    static Tensor classify(Tensor images, Tensor w) {
        Tensor flat = images.view(images.size(0), -1);   // the batch size, read by the code, stays symbolic
        return flat.matmul(w).softmax(-1);
    }

    public static void main(String[] args) {
        Tensor.manualSeed(0);
        Tensor w = Tensor.randn(64, 10);
        int[] compiles = {0};
        try (var s = Ember.events().subscribe(e -> {
            switch (e) {
                case FrameCompiled c -> compiles[0]++;
                case Recompile r -> System.out.println("  recompiling: " + r.failedGuards());
                default -> { }
            }
        })) {
            Fn2<Tensor, Tensor, Tensor> f = Ember.compile(DynamicShapes::classify);
            for (int n : new int[] {1, 2, 3, 8, 17, 64, 100, 256}) {
                Tensor x = Tensor.randn(n, 1, 8, 8);
                double diff = f.apply(x, w).sub(classify(x, w)).abs().amax().item();
                System.out.printf("batch %3d: %d compile(s) so far, max |compiled - eager| = %.1e%n", n, compiles[0], diff);
            }
        }

        // Training too: the forward and backward graphs AOT compiles take the symbolic batch
        Sequential net = new Sequential(new Linear(64, 32), new GELU(), new Linear(32, 10));
        AdamW opt = new AdamW(net.parameters(), AdamW.options().lr(1e-2));
        Fn1<Tensor, Tensor> forward = Ember.compile(net);
        int[] trainingCompiles = {0};
        try (var s = Ember.events().subscribe(e -> { if (e instanceof FrameCompiled) trainingCompiles[0]++; })) {
            for (int n : new int[] {4, 7, 12, 30, 64}) {
                Tensor images = Tensor.randn(n, 64), labels = Tensor.randint(0, 10, new int[] {n});
                opt.zeroGrad();
                Tensor loss = F.crossEntropy(forward.apply(images), labels);
                loss.backward();
                opt.step();
                System.out.printf("training batch %3d: %d compile(s) so far, loss %.4f%n", n, trainingCompiles[0], loss.item());
            }
        }

        Tensor x = Tensor.randn(5, 1, 8, 8);
        Ember.markDynamic(x, 0);   // a symbol from the first compile
        System.out.println(Ember.explain(DynamicShapes::classify).with(x, w));

        ExportedProgram ep = Ember.export(ExportOptions.defaults().dynamic(0, 0, Dim.of("batch", 2, 1024)), DynamicShapes::classify, x, w);
        System.out.println(ep);
        System.out.println("exported, run at batch 33: " + ep.run(Tensor.randn(33, 1, 8, 8), w).getFirst().describe());
        try {
            ep.run(Tensor.randn(2000, 1, 8, 8), w);
        } catch (ExportError e) {
            System.out.println(e.getMessage());
        }
    }
}
