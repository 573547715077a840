package dev.ember.bench.dashboard;

import dev.ember.bench.dashboard.Dashboard.Row;
import dev.ember.bench.dashboard.Dashboard.Unmatched;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.ember.bench.dashboard.Fixtures.JMH_ADD;
import static dev.ember.bench.dashboard.Fixtures.JMH_NORM;
import static dev.ember.bench.dashboard.Fixtures.PEER;
import static dev.ember.bench.dashboard.Fixtures.jmhMillis;
import static dev.ember.bench.dashboard.Fixtures.path;
import static dev.ember.bench.dashboard.Fixtures.peerFigure;
import static dev.ember.bench.dashboard.Fixtures.rowCells;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The dashboard generator on real JMH and torch peer output (see {@link Fixtures}): cells, ratios, unmatched results, the page. */
class DashboardTest {
    private static final String B = "dev.ember.bench.";
    private static final String SOFTMAX = "softmax 1024×4096";
    private static final String LAYER_NORM = "layer_norm 1024×4096";
    private static final String ADD = "add 4M f32, new output (eager)";

    @TempDir
    Path tmp;

    private static Dashboard dashboard(List<String> jmhFiles, boolean withPeer) {
        List<JmhResult> jmh = new ArrayList<>();
        for (String f : jmhFiles) jmh.addAll(JmhResult.read(path(f)));
        return Dashboard.build(Workloads.TABLE, jmh, withPeer ? PeerResults.read(path(PEER)) : null, null);
    }

    private String page(List<String> jmhFiles, boolean withPeer) throws IOException {
        List<String> args = new ArrayList<>();
        for (String f : jmhFiles) args.addAll(List.of("--jmh", path(f).toString()));
        if (withPeer) args.addAll(List.of("--peer", path(PEER).toString()));
        args.addAll(List.of("--out", tmp.toString()));
        Cli cli = Cli.run(args.toArray(String[]::new));
        assertEquals(0, cli.status(), cli.err());
        assertEquals("benchmark dashboard: " + tmp.resolve("index.html").toAbsolutePath(), cli.out().strip());
        return Files.readString(tmp.resolve("index.html"));
    }

    private static Row row(Dashboard d, String label) {
        return d.rows().stream().filter(r -> r.workload().label().equals(label)).findFirst().orElse(null);
    }

    @Test
    void readsJmhJsonAsMedianMillisecondsWithParametersAndUnitsConverted() throws IOException {
        List<JmhResult> results = JmhResult.read(path(JMH_NORM));
        assertEquals(10, results.size());
        JmhResult alloc = results.stream().filter(r -> r.benchmark().equals(B + "EagerOpsBench.alloc4M_jvm")).findFirst().orElseThrow();
        assertEquals(jmhMillis(JMH_NORM, B + "EagerOpsBench.alloc4M_jvm"), alloc.medianMs(), 1e-12);
        assertEquals("avgt", alloc.mode());
        assertEquals(1, alloc.forks());
        assertEquals(1, alloc.iterations());
        // SizeGenericBench reports microseconds and has a @Param
        JmhResult generic = results.stream().filter(r -> r.benchmark().equals(B + "SizeGenericBench.generic")).findFirst().orElseThrow();
        Map<String, Object> metric = Fixtures.primaryMetric(JMH_NORM, B + "SizeGenericBench.generic");
        assertEquals("us/op", metric.get("scoreUnit"));
        assertEquals(((Number) metric.get("score")).doubleValue() / 1000, generic.medianMs(), 1e-9);
        assertEquals(Map.of("batch", "2"), generic.params());
        assertEquals(B + "SizeGenericBench.generic:batch=2", generic.displayName());
    }

    @Test
    void medianOverForksAndIterationsAndThroughputUnits() {
        assertEquals(2.0, JmhResult.median(List.of(3.0, 1.0, 2.0)));
        assertEquals(2.5, JmhResult.median(List.of(4.0, 1.0, 2.0, 3.0)));
        assertEquals(0.25, JmhResult.toMillisPerOp(4, "ops/ms", "here"), 1e-12);
        assertEquals(2.0, JmhResult.toMillisPerOp(500, "ops/s", "here"), 1e-12);
        assertEquals(1.5, JmhResult.toMillisPerOp(1500, "us/op", "here"), 1e-12);
        assertEquals(3e-6, JmhResult.toMillisPerOp(3, "ns/op", "here"), 1e-18);
    }

    @Test
    void rowsTakeJmhAndPeerFiguresAndRatioIsTorchCompileOverEmberCompiled() throws IOException {
        Dashboard d = dashboard(List.of(JMH_NORM), true);
        for (String[] w : new String[][] {{SOFTMAX, "softmax"}, {LAYER_NORM, "layerNorm"}}) {
            Row r = row(d, w[0]);
            String jmh = B + "InductorNormBench." + w[1];
            assertEquals(jmhMillis(JMH_NORM, jmh + "_eager"), r.millis().get(Column.EMBER_EAGER), 1e-12);
            assertEquals(jmhMillis(JMH_NORM, jmh + "_compiled"), r.millis().get(Column.EMBER_COMPILED), 1e-12);
            assertEquals(jmhMillis(JMH_NORM, jmh + "_reduceOverhead"), r.millis().get(Column.EMBER_REDUCE_OVERHEAD), 1e-12);
            assertEquals(jmhMillis(JMH_NORM, jmh + "_libtorch"), r.millis().get(Column.LIBTORCH), 1e-12);
            assertEquals(peerFigure(w[1], "eager_ms"), r.millis().get(Column.TORCH_EAGER), 1e-12);
            assertEquals(peerFigure(w[1], "compiled_ms"), r.millis().get(Column.TORCH_COMPILE), 1e-12);
            assertEquals(peerFigure(w[1], "compiled_ms") / jmhMillis(JMH_NORM, jmh + "_compiled"), r.ratio(), 1e-12);
        }
        // the peer's triad fills the triad row's torch column; its Java loop was not in this JMH run
        Row triad = d.rows().stream().filter(r -> r.workload().label().startsWith("STREAM triad")).findFirst().orElseThrow();
        assertEquals(Map.of(Column.TORCH_EAGER, peerFigure("triad16M", "eager_ms")), triad.millis());
        assertNull(triad.ratio());
        // rows this run measured nothing of are left out, in table order otherwise
        assertEquals(List.of("STREAM triad c = a + 3b, 16M f32 (Ember: a Java loop)", SOFTMAX, LAYER_NORM),
                d.rows().stream().map(r -> r.workload().label()).toList());
    }

    @Test
    void pageTableShowsEachCellAndTheRatio() throws IOException {
        String html = page(List.of(JMH_NORM), true);
        String jmh = B + "InductorNormBench.softmax";
        List<String> cells = rowCells(html, SOFTMAX);
        assertEquals(List.of(SOFTMAX,
                Format.millis(jmhMillis(JMH_NORM, jmh + "_eager")),
                Format.millis(jmhMillis(JMH_NORM, jmh + "_compiled")),
                "",   // in a TensorScope: the fixture's run did not measure it
                Format.millis(jmhMillis(JMH_NORM, jmh + "_reduceOverhead")),
                Format.millis(jmhMillis(JMH_NORM, jmh + "_libtorch")),
                Format.millis(peerFigure("softmax", "eager_ms")),
                Format.millis(peerFigure("softmax", "compiled_ms")),
                Format.ratio(peerFigure("softmax", "compiled_ms") / jmhMillis(JMH_NORM, jmh + "_compiled"))
                        + (peerFigure("softmax", "compiled_ms") >= jmhMillis(JMH_NORM, jmh + "_compiled") ? " ahead of " : " behind ")
                        + "torch.compile"), cells);
        assertNull(rowCells(html, "MLP 512→2048→2048→512, batch 64"), "a row with no figure is not shown");
        // one bar chart per shown row, each bar the reference's time over the column's
        assertEquals(3, count(html, "<div class=\"chart\">"));
        assertTrue(html.contains("<div class=\"value\">"
                + Format.ratio(peerFigure("softmax", "compiled_ms") / jmhMillis(JMH_NORM, jmh + "_libtorch")) + "</div>"));
        // the torch.compile first calls and the malloc settings the peer ran with
        assertTrue(html.contains("<tr><td><code>softmax</code></td><td class=\"num\">" + Format.millis(peerFigure("softmax", "first_compiled_call_s"))));
        assertTrue(html.contains("MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=4294967296 MALLOC_TOP_PAD_=268435456"));
        assertTrue(html.contains("--quick"), "a quick peer run is flagged");
    }

    @Test
    void eagerAddRowIsComparedWithLibtorch() throws IOException {
        Dashboard d = dashboard(List.of(JMH_ADD), false);
        Row add = row(d, ADD);
        double ember = jmhMillis(JMH_ADD, B + "EagerOpsBench.add4M_ember");
        double libtorch = jmhMillis(JMH_ADD, B + "EagerOpsBench.add4M_libtorch");
        assertEquals(Map.of(Column.EMBER_EAGER, ember, Column.LIBTORCH, libtorch), add.millis());
        assertEquals(libtorch / ember, add.ratio(), 1e-12);
        List<String> cells = rowCells(page(List.of(JMH_ADD), false), ADD);
        assertEquals("Ember eager: " + Format.ratio(libtorch / ember) + (libtorch >= ember ? " ahead of " : " behind ") + "libtorch (DJL)",
                cells.getLast());
        assertTrue(d.unmatched().isEmpty(), d.unmatched().toString());
    }

    @Test
    void resultsNoRowTakesAreListedNotDropped() throws IOException {
        Dashboard d = dashboard(List.of(JMH_NORM), true);
        assertEquals(List.of(
                new Unmatched("JMH", B + "EagerOpsBench.alloc4M_jvm", Dashboard.ms(jmhMillis(JMH_NORM, B + "EagerOpsBench.alloc4M_jvm")),
                        "no table row names this benchmark"),
                new Unmatched("JMH", B + "SizeGenericBench.generic:batch=2",
                        Dashboard.ms(((Number) Fixtures.primaryMetric(JMH_NORM, B + "SizeGenericBench.generic").get("score")).doubleValue() / 1000),
                        "no table row names this benchmark")), d.unmatched());
        String html = page(List.of(JMH_NORM), true);
        assertTrue(html.contains("<code>" + B + "EagerOpsBench.alloc4M_jvm</code>"));
        assertTrue(html.contains("<code>" + B + "SizeGenericBench.generic:batch=2</code>"));
    }

    @Test
    void aSecondResultForTheSameBenchmarkIsListedAndTheFirstKept() throws IOException {
        Dashboard d = dashboard(List.of(JMH_ADD, JMH_ADD), false);
        assertEquals(jmhMillis(JMH_ADD, B + "EagerOpsBench.add4M_ember"), row(d, ADD).millis().get(Column.EMBER_EAGER), 1e-12);
        assertEquals(List.of(B + "EagerOpsBench.add4M_ember", B + "EagerOpsBench.add4M_libtorch"),
                d.unmatched().stream().map(Unmatched::name).toList());
        assertTrue(d.unmatched().stream().allMatch(u -> u.reason().startsWith("a second result")));
    }

    @Test
    void tableBenchmarksTheRunSelectedButGotNoResultAreNamed() throws IOException {
        // the norm fixture's run had no add4M results and no scoped ones: as if they had failed in a run selecting them
        Cli cli = Cli.run("--jmh", path(JMH_NORM).toString(), "--selected", "InductorNormBench|EagerOpsBench\\.add4M_", "--out", tmp.toString());
        assertEquals(0, cli.status(), cli.err());
        String html = Files.readString(tmp.resolve("index.html"));
        assertTrue(html.contains("<b>5 benchmark(s) of the table were selected but gave no result</b>"), html);
        assertTrue(html.contains("<li><code>" + B + "EagerOpsBench.add4M_ember</code></li>\n<li><code>" + B + "EagerOpsBench.add4M_scoped_ember</code></li>\n<li><code>"
                + B + "EagerOpsBench.add4M_libtorch</code></li>"), html);
        List<JmhResult> jmh = JmhResult.read(path(JMH_NORM));
        assertEquals(List.of(), Dashboard.build(Workloads.TABLE, jmh, null, java.util.regex.Pattern.compile("InductorNormBench\\.\\w+_(eager|compiled|libtorch)")).noResult());
        assertEquals(List.of(B + "InductorNormBench.softmax_scoped", B + "InductorNormBench.layerNorm_scoped"),
                Dashboard.build(Workloads.TABLE, jmh, null, java.util.regex.Pattern.compile("InductorNormBench")).noResult());
        assertEquals(List.of(B + "InductorPointwiseBench.arith16M_eager", B + "InductorPointwiseBench.trans4M_eager", B + "ModelBench.mlp_eager", B + "ModelBench.convBnRelu_eager",
                        B + "ModelBench.encoder_eager"),
                Dashboard.build(Workloads.TABLE, jmh, null, java.util.regex.Pattern.compile("_eager$")).noResult());
        Cli bad = Cli.run("--jmh", path(JMH_NORM).toString(), "--selected", "(", "--out", tmp.toString());
        assertEquals(2, bad.status());
        assertTrue(bad.err().contains("--selected ( is not a regular expression"), bad.err());
    }

    @Test
    void withoutThePeerTheTorchColumnsAreEmptyAndThePageSaysWhy() throws IOException {
        Cli cli = Cli.run("--jmh", path(JMH_NORM).toString(), "--no-peer", "no torch venv at /nowhere/.venv", "--out", tmp.toString());
        assertEquals(0, cli.status(), cli.err());
        String html = Files.readString(tmp.resolve("index.html"));
        assertTrue(html.contains("<b>No torch figures:</b> no torch venv at /nowhere/.venv"));
        List<String> cells = rowCells(html, SOFTMAX);
        assertEquals("", cells.get(6));
        assertEquals("", cells.get(7));
        assertEquals("Ember compiled vs torch.compile: not both measured", cells.get(8));
        assertFalse(html.contains("first call"));
    }

    @Test
    void pageIsSelfContainedInTheReportStyle() throws IOException {
        String html = page(List.of(JMH_NORM, JMH_ADD), true);
        assertTrue(html.startsWith("<!DOCTYPE html>"));
        assertTrue(html.contains("<header><span class=\"brand\">Ember benchmarks</span></header>"));
        assertTrue(html.contains(".card .n"), "the report's shared style is inlined");
        assertTrue(html.contains(".chart .bar.ember"), "and the dashboard's own rules after it");
        assertFalse(html.contains("<script"));
        assertFalse(html.matches("(?s).*(src|href)=\"https?:.*"), "nothing is fetched from the network");
        assertTrue(html.contains("<code>" + Fixtures.JMH_NORM + "</code>, <code>" + Fixtures.JMH_ADD + "</code>"));
    }

    @Test
    void selectionRunsExactlyTheTablesBenchmarks() {
        Cli cli = Cli.run("--selection");
        assertEquals(0, cli.status());
        java.util.regex.Pattern selection = java.util.regex.Pattern.compile(cli.out().strip());
        for (String name : Workloads.jmhBenchmarks(Workloads.TABLE)) assertTrue(selection.matcher(name).find(), name);
        assertTrue(selection.matcher(B + "InductorNormBench.softmax_eager").find());
        // JMH matches with find(): neither a longer name nor another class may slip in
        assertFalse(selection.matcher(B + "EagerOpsBench.alloc4M_jvm").find());
        assertFalse(selection.matcher(B + "EagerOpsBench.add4M_ember_x").find());
        assertFalse(selection.matcher(B + "EagerOpsBench.add4M_inplace_ember").find());
        assertFalse(selection.matcher("dev.ember.benchXInductorNormBench.softmax_eager").find());
    }

    @Test
    void everyJmhNameInTheTableIsABenchmarkMethod() throws ReflectiveOperationException {
        for (String name : Workloads.jmhBenchmarks(Workloads.TABLE)) {
            int dot = name.lastIndexOf('.');
            java.lang.reflect.Method m = Class.forName(name.substring(0, dot), false, DashboardTest.class.getClassLoader()).getMethod(name.substring(dot + 1));
            assertTrue(m.isAnnotationPresent(org.openjdk.jmh.annotations.Benchmark.class), name + " is not a @Benchmark");
        }
    }

    @Test
    void peerRunsOnlyTheWorkloadsTheMeasuredRowsNeed() {
        Cli norm = Cli.run("--peer-workloads", path(JMH_NORM).toString());
        assertEquals(0, norm.status(), norm.err());
        assertEquals("softmax,layerNorm", norm.out().strip());
        Cli add = Cli.run("--peer-workloads", path(JMH_ADD).toString());
        assertEquals("", add.out().strip(), "the eager add row has no torch peer figure");
    }

    @Test
    void everyPeerWorkloadTheTableNamesIsOneTorchPeerMeasures() throws IOException {
        String peer = Files.readString(Path.of("peer/torch_peer.py"));
        for (Workload w : Workloads.TABLE) {
            for (Workload.Source s : w.sources().values()) {
                if (s instanceof Workload.PeerFigure f) {
                    assertTrue(peer.contains("\"" + f.workload() + "\""), f.workload());
                    assertTrue(peer.contains("\"" + f.field() + "\""), f.field());
                }
            }
        }
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) n++;
        return n;
    }
}
