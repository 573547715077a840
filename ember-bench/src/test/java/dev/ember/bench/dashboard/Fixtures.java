package dev.ember.bench.dashboard;

import dev.ember.logging.JsonReader;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real inputs the tests read, made once on the project's machine (JMH's figures from runs with no warm-up,
 * so they are only good as format):
 * <ul>
 * <li>{@code jmh-norm-alloc-sizegeneric.json}: {@code java -jar ember-bench/target/benchmarks.jar
 *     '^dev\.ember\.bench\.(InductorNormBench\..*|EagerOpsBench\.alloc4M_jvm|SizeGenericBench\.generic)$' -p batch=2
 *     -f 1 -wi 0 -i 1 -r 100ms -rf json -rff FILE}: the softmax and layer_norm rows, a benchmark no row names, and one
 *     with a parameter, in microseconds;</li>
 * <li>{@code jmh-add.json}: the same for {@code '^dev\.ember\.bench\.EagerOpsBench\.add4M_(ember|libtorch)$'};</li>
 * <li>{@code torch-peer-quick.json}: {@code /work/venv/bin/python ember-bench/peer/torch_peer.py --quick
 *     --only triad16M,softmax,layerNorm --json FILE}.</li>
 * </ul>
 */
final class Fixtures {
    private Fixtures() {}

    static final String JMH_NORM = "jmh-norm-alloc-sizegeneric.json";
    static final String JMH_ADD = "jmh-add.json";
    static final String PEER = "torch-peer-quick.json";

    static Path path(String name) {
        try {
            return Path.of(Fixtures.class.getResource(name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The fixture's JSON, read independently of the code under test's own reading of it. */
    static Object json(String name) throws IOException {
        return JsonReader.parse(Files.readString(path(name)));
    }

    /** {@code primaryMetric.score} and {@code scoreUnit} of the JMH entry named {@code benchmark}. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> primaryMetric(String file, String benchmark) throws IOException {
        for (Object e : (List<Object>) json(file)) {
            Map<String, Object> entry = (Map<String, Object>) e;
            if (entry.get("benchmark").equals(benchmark)) return (Map<String, Object>) entry.get("primaryMetric");
        }
        throw new AssertionError(benchmark + " not in " + file);
    }

    /** The JMH score of {@code benchmark} (each fixture entry has one measured iteration, so score = median), in ms. */
    static double jmhMillis(String file, String benchmark) throws IOException {
        Map<String, Object> m = primaryMetric(file, benchmark);
        if (!m.get("scoreUnit").equals("ms/op")) throw new AssertionError(benchmark + " is in " + m.get("scoreUnit"));
        return ((Number) m.get("score")).doubleValue();
    }

    @SuppressWarnings("unchecked")
    static double peerFigure(String workload, String field) throws IOException {
        Map<String, Object> results = (Map<String, Object>) ((Map<String, Object>) json(PEER)).get("results");
        return ((Number) ((Map<String, Object>) results.get(workload)).get(field)).doubleValue();
    }

    private static final Pattern TAG = Pattern.compile("<[^>]+>");

    /** The text of each cell of the table row whose first cell is {@code label}, or null when the page has no such row. */
    static List<String> rowCells(String html, String label) {
        int start = html.indexOf("<tr><td>" + label + "</td>");
        if (start < 0) return null;
        String row = html.substring(start, html.indexOf("</tr>", start));
        List<String> cells = new ArrayList<>();
        Matcher m = Pattern.compile("<td[^>]*>(.*?)</td>").matcher(row);
        while (m.find()) cells.add(TAG.matcher(m.group(1)).replaceAll("").replace("&amp;", "&"));
        return cells;
    }
}
