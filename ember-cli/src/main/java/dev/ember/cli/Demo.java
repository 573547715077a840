package dev.ember.cli;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.dynamo.CompileCounter;
import dev.ember.logging.Logs;
import dev.ember.logging.Trace;
import dev.ember.nn.AdaptiveAvgPool2d;
import dev.ember.nn.BatchNorm2d;
import dev.ember.nn.Conv2d;
import dev.ember.nn.F;
import dev.ember.nn.Flatten;
import dev.ember.nn.Linear;
import dev.ember.nn.MaxPool2d;
import dev.ember.nn.Module;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/** {@code ember demo}: a short tour that grows with the project. Every value printed is computed here. */
final class Demo {
    private Demo() {}

    static int run(String[] args, PrintStream out) throws Exception {
        if (args.length > 0) throw new IllegalArgumentException("takes no arguments, got " + String.join(" ", args));
        Tensor.manualSeed(0);
        tensors(out);
        broadcasting(out);
        views(out);
        cnn(out);
        compile(out);
        explainAndTrace(out);
        inductor(out);
        return 0;
    }

    /** Compute-bound: eight transcendental and arithmetic ops, one fused loop when compiled. */
    static Tensor transcendentalChain(Tensor x) {
        return x.mul(1.5).add(2.0).relu().sin().mul(x).exp().neg().sigmoid().sub(0.5);
    }

    static Tensor layerNorm(Tensor x, Tensor weight, Tensor bias) {
        return F.layerNorm(x, new int[] {x.size(-1)}, weight, bias, 1e-5);
    }

    static Tensor mlp(Tensor x, Tensor w1, Tensor b1, Tensor w2, Tensor b2) {
        return F.linear(F.linear(x, w1, b1).relu(), w2, b2);
    }

    private static void inductor(PrintStream out) {
        section(out, "7. The inductor backend: fused, generated code beside eager");
        Tensor x = Tensor.randn(4 * 1024 * 1024);
        var chain = Ember.compile(Demo::transcendentalChain, dev.ember.Options.backend("inductor"));
        long t0 = System.nanoTime();
        Tensor fused = chain.apply(x);
        double compileMs = (System.nanoTime() - t0) / 1e6;
        out.printf("transcendental chain on 4M floats: compiled in %.0f ms (first call: capture, code generation, and one run before the JIT"
                + " has compiled the new kernel), max |compiled - eager| = %.2e%n", compileMs, fused.sub(transcendentalChain(x)).abs().amax().item());
        compare(out, "eager", () -> transcendentalChain(x), "inductor", () -> chain.apply(x));

        Tensor in = Tensor.randn(64, 512), w1 = Tensor.randn(2048, 512).mul(0.04), b1 = Tensor.zeros(2048);
        Tensor w2 = Tensor.randn(512, 2048).mul(0.02), b2 = Tensor.zeros(512);
        var compiledMlp = Ember.compile(Demo::mlp, dev.ember.Options.backend("inductor"));
        compiledMlp.apply(in, w1, b1, w2, b2);
        out.println("MLP 512→2048→512, batch 64 (bias and relu fused onto the GEMM outputs):");
        compare(out, "eager", () -> mlp(in, w1, b1, w2, b2), "inductor", () -> compiledMlp.apply(in, w1, b1, w2, b2));
        Tensor rows = Tensor.randn(1024, 4096), gamma = Tensor.randn(4096), beta = Tensor.randn(4096);
        var freshOutputs = Ember.compile(Demo::layerNorm, dev.ember.Options.backend("inductor"));
        var reusedOutputs = Ember.compile(Demo::layerNorm, dev.ember.Options.backend("inductor").mode("reduce-overhead"));
        out.println("layer_norm over 1024x4096: a new 16 MB output every call (the JVM zeroes it first), or mode(\"reduce-overhead\")"
                + " writing into the previous call's output (docs/compile.md):");
        compare(out, "default", () -> freshOutputs.apply(rows, gamma, beta), "reuse", () -> reusedOutputs.apply(rows, gamma, beta));
        Tensor kept = reusedOutputs.apply(rows, gamma, beta);
        reusedOutputs.apply(rows, gamma, beta);
        try {
            kept.sum();
        } catch (IllegalStateException overwritten) {
            String message = overwritten.getMessage();
            out.println("   an output kept across calls is refused, not read stale:\n   \"" + message.substring(0, message.indexOf(". ") + 1) + " …\"");
        }
        out.println("(medians of 21 alternating calls, each function first warmed up for " + WARM_UP_MS + " ms: C2 compiles a fresh generated kernel"
                + " after some dozens of calls; before that its Vector API loops run slowly, see docs/inductor.md)");
        out.println("generated code: EMBER_LOGS=output_code ./ember demo   ·   benchmarks: docs/benchmarks.md");
    }

    /** Times {@code fa} and {@code fb} alternately, so that a background JIT compile or a noisy neighbour hits both alike. */
    private static void compare(PrintStream out, String a, java.util.function.Supplier<Tensor> fa, String b, java.util.function.Supplier<Tensor> fb) {
        warmUp(fa);
        warmUp(fb);
        double[] ta = new double[21], tb = new double[21];
        for (int i = 0; i < ta.length; i++) {
            ta[i] = timeMs(fa);
            tb[i] = timeMs(fb);
        }
        double ma = median(ta), mb = median(tb);
        out.printf("   %-9s %8.2f ms%n   %-9s %8.2f ms   (%.1fx)%n", a, ma, b, mb, ma / mb);
    }

    /** How long each timed function runs before it is timed: long enough for C2 to compile fresh generated kernels. */
    private static final long WARM_UP_MS = 1500;

    private static void warmUp(java.util.function.Supplier<Tensor> f) {
        long end = System.nanoTime() + WARM_UP_MS * 1_000_000;
        for (int i = 0; i < 30 || System.nanoTime() < end; i++) f.get();
    }

    private static double timeMs(java.util.function.Supplier<Tensor> f) {
        long t0 = System.nanoTime();
        f.get();
        return (System.nanoTime() - t0) / 1e6;
    }

    private static double median(double[] ms) {
        double[] sorted = ms.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /** The function the compiler captures: plain Java over tensors. */
    static Tensor scoreRows(Tensor x, Tensor w) {
        Tensor h = x.matmul(w).relu();
        for (int i = 0; i < 2; i++) h = h.mul(0.5).add(1.0);   // a loop with a constant trip count unrolls
        return h.softmax(-1).sum(0, false);
    }

    /**
     * The print is kept out of the graph and replayed after it (reorderable logging); reading a
     * value with item() to branch on it is data-dependent: a graph break, and the code after it
     * is compiled as a resume method.
     */
    static Tensor withDebugPrint(Tensor x, Tensor y) {
        Tensor z = x.add(y).relu();
        System.out.println("   (inside withDebugPrint) z is " + Arrays.toString(z.shape()));
        if (z.sum().item() > 1.0) return z.mul(2.0);
        return z.neg();
    }

    private static void compile(PrintStream out) {
        section(out, "5. Ember.compile: bytecode → graph → guarded, cached code");
        CompileCounter counter = new CompileCounter();
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(Demo::scoreRows, dev.ember.Options.backend(counter));
        Tensor x = Tensor.randn(4, 8), w = Tensor.randn(8, 3);
        Tensor compiled = f.apply(x, w), eager = scoreRows(x, w);
        out.println("compiled == eager: " + compiled.sub(eager).abs().amax().item() + " max abs difference");
        out.println("frames compiled: " + counter.frameCount() + ", ops in graph: " + counter.opCount());
        f.apply(Tensor.randn(4, 8), w);
        out.println("same shapes again → cache hit, frames compiled still " + counter.frameCount());
        out.println("new shape [6, 8] → recompile (the failed guard is logged under 'recompiles'):");
        PrintStream saved = Logs.output();
        Logs.setOutput(out);
        try {
            Ember.setLogs("recompiles");
            f.apply(Tensor.randn(6, 8), w);
        } finally {
            Ember.setLogs("");
            Logs.setOutput(saved);
        }
        out.println("frames compiled: " + counter.frameCount());
    }

    private static void explainAndTrace(PrintStream out) throws Exception {
        section(out, "6. explain, a graph break, and the HTML report of a trace");
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(3, 4);
        out.println(Ember.explain(Demo::withDebugPrint).with(x, y).toString().stripTrailing());
        Path dir = Files.createTempDirectory("ember-demo-trace");
        Trace.start(dir);
        try {
            Ember.reset();
            Fn2<Tensor, Tensor, Tensor> g = Ember.compile(Demo::scoreRows);
            g.apply(Tensor.randn(4, 8), Tensor.randn(8, 3));
            g.apply(Tensor.randn(5, 8), Tensor.randn(8, 3));
            Ember.compile(Demo::withDebugPrint).apply(x, y);
        } finally {
            Trace.stop();
        }
        var report = dev.ember.report.Report.generate(dir, dir.resolve("report"));
        out.println();
        out.println("trace written to " + dir);
        out.println("report: open file://" + dir.resolve("report").resolve("index.html") + "  (or: ./ember report " + dir + ")");
    }

    private static void section(PrintStream out, String title) {
        out.println();
        out.println("── " + title + " " + "─".repeat(Math.max(0, 70 - title.length())));
    }

    private static void tensors(PrintStream out) {
        section(out, "1. Tensors, printed as PyTorch prints them");
        Tensor x = Tensor.tensor(new float[][] {{1, -2, 3}, {4.5f, 5, -6}});
        out.println("x = Tensor.tensor(new float[][] {{1, -2, 3}, {4.5f, 5, -6}})");
        out.println(x);
        out.println("x.relu().sum(1, false)      → " + x.relu().sum(1, false));
        out.println("Tensor.arange(6).view(2, 3) → " + Tensor.arange(6).view(2, 3).toString().replace("\n", "\n" + " ".repeat(30)));
        Tensor ints = Tensor.tensor(new int[] {1, 2, 3});
        out.println("int32 + 0.5 (type promotion) → " + ints.add(0.5) + "   dtype " + ints.add(0.5).dtype());
        out.println("int32 / 2   (true division)  → " + ints.div(Tensor.scalar(2L)));
    }

    private static void broadcasting(PrintStream out) {
        section(out, "2. Broadcasting, and the error when shapes don't fit");
        Tensor col = Tensor.arange(3).view(3, 1).to(DType.FLOAT32);
        Tensor row = Tensor.tensor(new float[] {10, 20, 30, 40});
        out.println("[3, 1] + [4] → " + Arrays.toString(col.add(row).shape()));
        out.println(col.add(row));
        try {
            Tensor.ones(3, 4).add(Tensor.ones(3));
        } catch (IllegalArgumentException e) {
            out.println("ones(3, 4) + ones(3) → IllegalArgumentException: " + e.getMessage());
        }
    }

    private static void views(PrintStream out) {
        section(out, "3. Views share storage; out= writes into a tensor you keep");
        Tensor x = Tensor.zeros(2, 3);
        Tensor column = x.t().select(0, 1);
        column.fill_(7);
        out.println("x.t().select(0, 1).fill_(7) writes through to x:");
        out.println(x);
        out.println("x.version() = " + x.version() + "   (in-place writes through any view)");
        Tensor a = Tensor.arange(3).to(dev.ember.tensor.DType.FLOAT32), buffer = Tensor.empty(2, 3);
        a.addOut(x, buffer);   // torch.add(a, x, out=buffer): no new array, buffer's version bumps
        out.println("a.addOut(x, buffer) (torch.add(a, x, out=buffer)) → " + buffer.toString().replace("\n", "\n" + " ".repeat(52))
                + "   buffer.version() = " + buffer.version());
    }

    private static void cnn(PrintStream out) {
        section(out, "4. A small CNN, eval mode, batch 8 × 3 × 32 × 32");
        Module net = new Sequential(
                new Conv2d(3, 32, 3, 1, 1), new BatchNorm2d(32), new ReLU(), new MaxPool2d(2),
                new Conv2d(32, 64, 3, 1, 1), new BatchNorm2d(64), new ReLU(), new MaxPool2d(2),
                new AdaptiveAvgPool2d(1), new Flatten(), new Linear(64, 10));
        net.eval();
        out.println(net);
        long params = net.parameters().stream().mapToLong(Tensor::numel).sum();
        out.printf("%,d parameters; GEMM backend: %s%n", params, Ember.gemmBackend());
        Tensor input = Tensor.randn(8, 3, 32, 32);
        Tensor logits = net.forward(input);
        out.println("logits " + logits.meta().describe() + ", first row: " + logits.select(0, 0));
        int runs = 20;
        double[] ms = new double[runs];
        for (int i = 0; i < 5; i++) net.forward(input);
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            net.forward(input);
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        out.printf("forward: median %.2f ms, best %.2f ms over %d runs (after 5 warm-up runs)%n", ms[runs / 2], ms[0], runs);
    }
}
