package dev.ember.startup;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.inductor.cache.ArtifactCache;
import dev.ember.nn.BatchNorm2d;
import dev.ember.nn.Conv2d;
import dev.ember.nn.F;
import dev.ember.nn.Linear;
import dev.ember.nn.Module;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.nn.TransformerEncoderLayer;
import dev.ember.ops.OpRegistry;
import dev.ember.optim.AdamW;
import dev.ember.optim.Optimizer;
import dev.ember.optim.SGD;
import dev.ember.tensor.Tensor;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The training run of the JVM's class data archive: the launcher ({@code ember-cds.bash}) runs this
 * once per build with {@code -XX:DumpLoadedClassList} and archives every class it loaded, the lambda
 * classes among them, so that later runs map them instead of reading, verifying and spinning them
 * again (docs/benchmarks.md, "Start-up: a class data archive instead of the AOT cache").
 *
 * <p>What it does is what a program that uses Ember does first: eager ops, then functions and a
 * module compiled with the inductor backend (capture, lowering, code generation, the first calls of
 * the generated code and of the GEMM, pointwise and normalization kernels), each compiled twice —
 * cold and then, after {@link Ember#reset()}, from the on-disk artifact cache — so both paths'
 * classes are listed; then compiled training steps ({@link #train()}). The artifact cache is a
 * temporary folder, deleted at the end, so training neither reads nor leaves entries in the user's
 * cache. The classes the inductor generates are hidden classes, which are not archived; the code
 * that defines and calls them is.
 */
public final class StartupTraining {
    private StartupTraining() {}

    /** Calls of each compiled function: enough to reach every class a model's first calls load. */
    static final int CALLS = 8;

    public static void main(String[] args) throws IOException {
        Path artifacts = Files.createTempDirectory("ember-startup-training");
        String before = System.getProperty("ember.cache.dir");
        System.setProperty("ember.cache.dir", artifacts.toString());
        try {
            long t0 = System.nanoTime();
            run();
            System.out.printf("ember: start-up training workload ran in %.1f s%n", (System.nanoTime() - t0) / 1e9);
        } finally {
            if (before == null) System.clearProperty("ember.cache.dir");
            else System.setProperty("ember.cache.dir", before);
            ArtifactCache.awaitWrites();
            deleteTree(artifacts);
        }
    }

    /** The workload: eager ops, then each compiled function cold and from the artifact cache. */
    static void run() {
        OpRegistry.all();   // the whole op table, as building or parsing a graph by op names loads it
        Tensor.manualSeed(0);
        Tensor x = Tensor.randn(64, 512), w1 = Tensor.randn(2048, 512).mul(0.04), b1 = Tensor.zeros(2048);
        Tensor w2 = Tensor.randn(512, 2048).mul(0.02), b2 = Tensor.zeros(512);
        Tensor rows = Tensor.randn(256, 1024), gamma = Tensor.ones(1024), beta = Tensor.zeros(1024);
        for (int i = 0; i < 3; i++) {
            mlp(x, w1, b1, w2, b2).sum().item();
            pointwise(rows).amax().item();
            normalize(rows, gamma, beta).mean().item();
            x.matmul(w1.t()).softmax(-1).sum().item();
        }
        Sequential model = new Sequential(new Linear(512, 1024), new ReLU(), new Linear(1024, 256));
        Options inductor = Options.backend("inductor");
        for (int round = 0; round < 2; round++) {
            var compiledMlp = Ember.compile(StartupTraining::mlp, inductor);
            var compiledPointwise = Ember.compile(StartupTraining::pointwise, inductor);
            var compiledNorm = Ember.compile(StartupTraining::normalize, inductor);
            var compiledModel = Ember.compile(model, inductor);
            for (int i = 0; i < CALLS; i++) {
                compiledMlp.apply(x, w1, b1, w2, b2);
                compiledPointwise.apply(rows);
                compiledNorm.apply(rows, gamma, beta);
                compiledModel.apply(x);
            }
            Ember.reset();   // the next round captures again and finds each graph in the artifact cache
        }
        train();
    }

    /**
     * Training steps of three small models, each compiled (capture, the joint graph, the
     * partitioner, inductor on the forward and the backward graph) and stepped: the first round
     * cold with AdamW, the second, after {@link Ember#reset()}, from the artifact cache with SGD
     * and momentum. So the classes of the autograd engine, the backward kernels and the optimizers
     * are archived too (docs/benchmarks.md, "Start-up: a class data archive instead of the AOT cache").
     */
    static void train() {
        Options inductor = Options.backend("inductor");
        Tensor.manualSeed(0);
        List<Module> models = List.of(
                new Sequential(new Linear(512, 1024), new ReLU(), new Linear(1024, 256)),
                new Sequential(new Conv2d(32, 32, new int[] {3, 3}, new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1, false),
                        new BatchNorm2d(32), new ReLU()),
                new TransformerEncoderLayer(64, 4, 256, 0.0));
        List<Tensor> inputs = List.of(Tensor.randn(64, 512), Tensor.randn(2, 32, 28, 28), Tensor.randn(2, 64, 64));
        for (int round = 0; round < 2; round++) {
            for (int m = 0; m < models.size(); m++) {
                Module model = models.get(m);
                Fn1<Tensor, Tensor> compiled = Ember.compile(model, inductor);
                Optimizer optimizer = round == 0
                        ? new AdamW(model.parameters(), AdamW.options().lr(1e-4))
                        : new SGD(model.parameters(), SGD.options().lr(1e-3).momentum(0.9));
                for (int step = 0; step < CALLS / 2; step++) {
                    optimizer.zeroGrad();
                    Tensor loss = compiled.apply(inputs.get(m)).pow(2.0).mean();
                    loss.backward();
                    optimizer.step();
                    loss.item();
                }
            }
            Ember.reset();
        }
    }

    static Tensor mlp(Tensor x, Tensor w1, Tensor b1, Tensor w2, Tensor b2) {
        return F.linear(F.linear(x, w1, b1).relu(), w2, b2);
    }

    static Tensor pointwise(Tensor x) {
        return x.mul(1.5).add(2.0).relu().sin().mul(x).exp().neg().sigmoid().sub(0.5);
    }

    static Tensor normalize(Tensor x, Tensor gamma, Tensor beta) {
        return F.layerNorm(x, new int[] {x.size(-1)}, gamma, beta, 1e-5).softmax(-1);
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the training's artifact cache " + root, e);
        }
    }
}
