package dev.ember.bench.dashboard;

import dev.ember.bench.dashboard.Workload.JmhBenchmark;
import dev.ember.bench.dashboard.Workload.PeerFigure;
import dev.ember.bench.dashboard.Workload.Source;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static dev.ember.bench.dashboard.Column.EMBER_COMPILED;
import static dev.ember.bench.dashboard.Column.EMBER_EAGER;
import static dev.ember.bench.dashboard.Column.EMBER_REDUCE_OVERHEAD;
import static dev.ember.bench.dashboard.Column.EMBER_SCOPED;
import static dev.ember.bench.dashboard.Column.LIBTORCH;
import static dev.ember.bench.dashboard.Column.TORCH_COMPILE;
import static dev.ember.bench.dashboard.Column.TORCH_EAGER;

/**
 * The dashboard's rows: which JMH benchmark and which torch peer figure ({@code ember-bench/peer/torch_peer.py
 * --json}) fills each cell. The one place that maps benchmark names to workloads; a JMH result or peer figure
 * not named here is listed on the page as unmatched, never dropped.
 */
public final class Workloads {
    private Workloads() {}

    static final String PACKAGE = "dev.ember.bench.";

    /** The rows in the order shown (those of docs/benchmarks.md's inductor table and issue #18). */
    public static final List<Workload> TABLE = List.of(
            row("8-op arithmetic chain, 16M f32", EMBER_COMPILED, TORCH_COMPILE)
                    .jmh(EMBER_EAGER, "InductorPointwiseBench.arith16M_eager")
                    .jmh(EMBER_COMPILED, "InductorPointwiseBench.arith16M_compiled")
                    .jmh(EMBER_SCOPED, "InductorPointwiseBench.arith16M_scoped")
                    .jmh(EMBER_REDUCE_OVERHEAD, "InductorPointwiseBench.arith16M_reduceOverhead")
                    .jmh(LIBTORCH, "InductorPointwiseBench.arith16M_libtorch")
                    .peer(TORCH_EAGER, "arith16M", "eager_ms")
                    .peer(TORCH_COMPILE, "arith16M", "compiled_ms").build(),
            // the bandwidth yardstick: Ember's figure is a hand-written 2-thread Java loop, not a compiled graph
            row("STREAM triad c = a + 3b, 16M f32 (Ember: a Java loop)", EMBER_COMPILED, TORCH_EAGER)
                    .jmh(EMBER_COMPILED, "InductorPointwiseBench.triad16M_stream")
                    .peer(TORCH_EAGER, "triad16M", "eager_ms").build(),
            row("transcendental chain, 4M f32", EMBER_COMPILED, TORCH_COMPILE)
                    .jmh(EMBER_EAGER, "InductorPointwiseBench.trans4M_eager")
                    .jmh(EMBER_COMPILED, "InductorPointwiseBench.trans4M_compiled")
                    .jmh(EMBER_REDUCE_OVERHEAD, "InductorPointwiseBench.trans4M_reduceOverhead")
                    .jmh(LIBTORCH, "InductorPointwiseBench.trans4M_libtorch")
                    .peer(TORCH_EAGER, "trans4M", "eager_ms")
                    .peer(TORCH_COMPILE, "trans4M", "compiled_ms").build(),
            row("MLP 512→2048→2048→512, batch 64", EMBER_COMPILED, TORCH_COMPILE)
                    .jmh(EMBER_EAGER, "ModelBench.mlp_eager")
                    .jmh(EMBER_COMPILED, "ModelBench.mlp_compiled")
                    .jmh(LIBTORCH, "ModelBench.mlp_libtorch")
                    .peer(TORCH_EAGER, "mlp", "eager_ms")
                    .peer(TORCH_COMPILE, "mlp", "compiled_ms").build(),
            row("softmax 1024×4096", EMBER_COMPILED, TORCH_COMPILE)
                    .jmh(EMBER_EAGER, "InductorNormBench.softmax_eager")
                    .jmh(EMBER_COMPILED, "InductorNormBench.softmax_compiled")
                    .jmh(EMBER_SCOPED, "InductorNormBench.softmax_scoped")
                    .jmh(EMBER_REDUCE_OVERHEAD, "InductorNormBench.softmax_reduceOverhead")
                    .jmh(LIBTORCH, "InductorNormBench.softmax_libtorch")
                    .peer(TORCH_EAGER, "softmax", "eager_ms")
                    .peer(TORCH_COMPILE, "softmax", "compiled_ms").build(),
            row("layer_norm 1024×4096", EMBER_COMPILED, TORCH_COMPILE)
                    .jmh(EMBER_EAGER, "InductorNormBench.layerNorm_eager")
                    .jmh(EMBER_COMPILED, "InductorNormBench.layerNorm_compiled")
                    .jmh(EMBER_SCOPED, "InductorNormBench.layerNorm_scoped")
                    .jmh(EMBER_REDUCE_OVERHEAD, "InductorNormBench.layerNorm_reduceOverhead")
                    .jmh(LIBTORCH, "InductorNormBench.layerNorm_libtorch")
                    .peer(TORCH_EAGER, "layerNorm", "eager_ms")
                    .peer(TORCH_COMPILE, "layerNorm", "compiled_ms").build(),
            row("Conv-BN-ReLU ×3, batch 8, 64 ch, 56×56, eval", EMBER_COMPILED, TORCH_COMPILE)
                    .jmh(EMBER_EAGER, "ModelBench.convBnRelu_eager")
                    .jmh(EMBER_COMPILED, "ModelBench.convBnRelu_compiled")
                    .jmh(LIBTORCH, "ModelBench.convBnRelu_libtorch")
                    .peer(TORCH_EAGER, "convBnRelu", "eager_ms")
                    .peer(TORCH_COMPILE, "convBnRelu", "compiled_ms").build(),
            row("transformer encoder layer (8×128×256, 4 heads, ff 1024)", EMBER_COMPILED, TORCH_COMPILE)
                    .jmh(EMBER_EAGER, "ModelBench.encoder_eager")
                    .jmh(EMBER_COMPILED, "ModelBench.encoder_compiled")
                    .jmh(LIBTORCH, "ModelBench.encoder_libtorch")
                    .peer(TORCH_EAGER, "encoder", "eager_ms")
                    .peer(TORCH_COMPILE, "encoder", "compiled_ms").build(),
            // eager only, so compared with libtorch's eager add: what a fresh 16 MB output costs
            row("add 4M f32, new output (eager)", EMBER_EAGER, LIBTORCH)
                    .jmh(EMBER_EAGER, "EagerOpsBench.add4M_ember")
                    .jmh(EMBER_SCOPED, "EagerOpsBench.add4M_scoped_ember")
                    .jmh(LIBTORCH, "EagerOpsBench.add4M_libtorch").build());

    /** Every JMH benchmark the table names, full names in table order. */
    public static Set<String> jmhBenchmarks(List<Workload> table) {
        Set<String> names = new LinkedHashSet<>();
        for (Workload w : table) {
            for (Source s : w.sources().values()) if (s instanceof JmhBenchmark b) names.add(b.name());
        }
        return names;
    }

    /**
     * A JMH selection (its regular-expression argument) running exactly the table's benchmarks, grouped by class:
     * {@code ^(ClassA\.(m1|m2)|ClassB\.(m3))$} with each class's full name.
     */
    public static String jmhSelection(List<Workload> table) {
        Map<String, List<String>> methodsByClass = jmhBenchmarks(table).stream().collect(Collectors.groupingBy(
                name -> name.substring(0, name.lastIndexOf('.')), LinkedHashMap::new,
                Collectors.mapping(name -> name.substring(name.lastIndexOf('.') + 1), Collectors.toList())));
        return methodsByClass.entrySet().stream()
                .map(e -> e.getKey().replace(".", "\\.") + "\\.(" + String.join("|", e.getValue()) + ")")
                .collect(Collectors.joining("|", "^(", ")$"));
    }

    private static Builder row(String label, Column compared, Column reference) {
        return new Builder(label, compared, reference);
    }

    private static final class Builder {
        private final String label;
        private final Column compared;
        private final Column reference;
        private final Map<Column, Source> sources = new EnumMap<>(Column.class);

        Builder(String label, Column compared, Column reference) {
            this.label = label;
            this.compared = compared;
            this.reference = reference;
        }

        Builder jmh(Column column, String classAndMethod) {
            return put(column, new JmhBenchmark(PACKAGE + classAndMethod));
        }

        Builder peer(Column column, String workload, String field) {
            return put(column, new PeerFigure(workload, field));
        }

        private Builder put(Column column, Source source) {
            if (sources.put(column, source) != null) throw new IllegalStateException(label + ": two sources for " + column);
            return this;
        }

        Workload build() {
            return new Workload(label, compared, reference, sources);
        }
    }
}
