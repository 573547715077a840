package dev.ember.bench;

import dev.ember.fx.GraphModule;
import dev.ember.inductor.Inductor;
import dev.ember.inductor.InductorGraph;
import dev.ember.tensor.Tensor;

import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * Time to the first compiled result of the MLP in a fresh JVM: compile (or load from the on-disk
 * cache) plus the first call. Run it twice with the same cache folder: the first run is cold, the
 * second loads from the cache. With the argument {@code eager}, the eager graph runs once first, so
 * the time of loading OpenBLAS and of the first GEMMs (which eager pays too) is shown apart.
 * The last figures are the time to build the graph (the op table's first use, which capture pays
 * too) and the whole time from the JVM's start to the first result, start-up and the inputs'
 * creation included: what a command-line user waits for.
 * <pre>
 * D=$(mktemp -d); for i in 1 2; do EMBER_CACHE_DIR=$D ./ember bench compile-time; done
 * </pre>
 */
public final class InductorCompileTime {
    private InductorCompileTime() {}

    public static void main(String[] args) {
        long g0 = System.nanoTime();
        GraphModule mlp = ModelGraphs.mlp(3);
        long g1 = System.nanoTime();
        List<Tensor> in = List.of(Tensor.randn(64, 512), Tensor.randn(2048, 512), Tensor.randn(2048),
                Tensor.randn(2048, 2048), Tensor.randn(2048), Tensor.randn(512, 2048), Tensor.randn(512));
        if (args.length > 0 && args[0].equals("eager")) {
            long e0 = System.nanoTime();
            mlp.run(in.toArray());
            System.out.printf("MLP eager first call %.1f ms%n", (System.nanoTime() - e0) / 1e6);
        }
        long t0 = System.nanoTime();
        InductorGraph g = Inductor.compile(mlp, in);
        long t1 = System.nanoTime();
        g.run(in.toArray());
        long t2 = System.nanoTime();
        long sinceStart = ManagementFactory.getRuntimeMXBean().getUptime();   // read after the result, so its loading is not timed
        System.out.printf("MLP %s: compile %.1f ms, first call %.1f ms, total %.1f ms (graph built in %.1f ms; JVM start to first result %d ms)%n",
                g.fromCache() ? "from cache" : "cold", (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t2 - t0) / 1e6, (g1 - g0) / 1e6,
                sinceStart);
    }
}
