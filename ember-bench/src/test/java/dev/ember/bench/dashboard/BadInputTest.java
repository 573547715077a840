package dev.ember.bench.dashboard;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static dev.ember.bench.dashboard.Fixtures.JMH_NORM;
import static dev.ember.bench.dashboard.Fixtures.PEER;
import static dev.ember.bench.dashboard.Fixtures.path;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Missing, empty, malformed or misshapen inputs: exit status 1, no page, and a message naming the file and the place. */
class BadInputTest {
    @TempDir
    Path tmp;

    private Cli report(Path jmh, Path peer) {
        return peer == null ? Cli.run("--jmh", jmh.toString(), "--out", tmp.resolve("out").toString())
                : Cli.run("--jmh", jmh.toString(), "--peer", peer.toString(), "--out", tmp.resolve("out").toString());
    }

    private void assertFails(Cli cli, String... parts) {
        assertEquals(1, cli.status(), cli.err());
        for (String p : parts) assertTrue(cli.err().contains(p), "'" + p + "' not in: " + cli.err());
        assertTrue(cli.err().startsWith("bench report: "), cli.err());
        assertFalse(Files.exists(tmp.resolve("out/index.html")), "no page from bad input");
    }

    private Path write(String name, String text) throws IOException {
        return Files.writeString(tmp.resolve(name), text);
    }

    @Test
    void missingJmhFile() {
        Path missing = tmp.resolve("no-such.json");
        assertFails(report(missing, null), "JMH results not found: " + missing, "-rf json -rff FILE");
    }

    @Test
    void missingPeerFile() {
        Path missing = tmp.resolve("no-peer.json");
        assertFails(report(path(JMH_NORM), missing), "torch peer results not found: " + missing, "torch_peer.py --json FILE");
    }

    @Test
    void emptyJmhFileIsNamedAsEmpty() throws IOException {
        Path empty = write("empty.json", "\n");
        assertFails(report(empty, null), "JMH results " + empty + " is empty");
    }

    @Test
    void truncatedJmhOutputSaysLineAndColumn() throws IOException {
        String real = Files.readString(path(JMH_NORM));
        // cut mid-file, as a JMH run killed while writing leaves it: the parser meets the end of the text
        Path cut = write("cut.json", real.substring(0, real.indexOf("\"primaryMetric\"", real.length() / 2)));
        long lines = real.substring(0, real.indexOf("\"primaryMetric\"", real.length() / 2)).lines().count();
        assertFails(report(cut, null), "JMH results " + cut + " is not valid JSON", "at line " + lines + ", column ", "found end of text");
    }

    @Test
    void malformedJsonInTheMiddleSaysWhere() throws IOException {
        Path bad = write("bad.json", "[\n  {\"benchmark\": \"a.b\",\n   \"mode\": avgt}\n]\n");
        assertFails(report(bad, null), "is not valid JSON: bad JSON at line 3, column 12: expected a value, found 'a'");
    }

    @Test
    void jsonOfTheWrongShape() throws IOException {
        Path object = write("object.json", "{\"benchmark\": \"x\"}");
        assertFails(report(object, null), "JMH results " + object + ": expected a JSON array of benchmark results");
        Path noMetric = write("nometric.json", "[{\"benchmark\": \"dev.ember.bench.X.y\", \"mode\": \"avgt\"}]");
        assertFails(report(noMetric, null), "JMH results " + noMetric + ", entry 1 (dev.ember.bench.X.y): no \"primaryMetric\"");
        Path badUnit = write("unit.json", "[{\"benchmark\": \"dev.ember.bench.X.y\", \"primaryMetric\": {\"score\": 1.0, \"scoreUnit\": \"MB/s\"}}]");
        assertFails(report(badUnit, null), "entry 1 (dev.ember.bench.X.y): score unit 'MB/s' is neither a time per operation nor operations per time");
        Path badRaw = write("raw.json", "[{\"benchmark\": \"dev.ember.bench.X.y\", \"primaryMetric\": {\"score\": 1.0, \"scoreUnit\": \"ms/op\", \"rawData\": [[1.0, \"x\"]]}}]");
        assertFails(report(badRaw, null), "entry 1 (dev.ember.bench.X.y): primaryMetric.rawData holds x, not a number");
    }

    @Test
    void malformedPeerFile() throws IOException {
        Path notJson = write("peer.txt", "torch 2.13.0+cpu, 2 threads\nsoftmax eager 1.2 ms\n");
        assertFails(report(path(JMH_NORM), notJson), "torch peer results " + notJson + " is not valid JSON", "at line 1, column 1");
        String real = Files.readString(path(PEER));
        Path badFigure = write("peer.json", real.replaceFirst("\"compiled_ms\": [0-9.]+", "\"compiled_ms\": \"fast\""));
        assertFails(report(path(JMH_NORM), badFigure), "torch peer results " + badFigure + ", results.softmax: \"compiled_ms\" should be a number, found the string \"fast\"");
        Path noResults = write("peer2.json", "{\"torch\": \"2.13\", \"threads\": 2}");
        assertFails(report(path(JMH_NORM), noResults), "torch peer results " + noResults + ": no \"results\"");
    }

    @Test
    void badCommandLinesSayWhatIsWrong() {
        Cli noOut = Cli.run("--jmh", path(JMH_NORM).toString());
        assertEquals(2, noOut.status());
        assertTrue(noOut.err().contains("no --out folder") && noOut.err().contains("usage:"), noOut.err());
        Cli unknown = Cli.run("--jmh", path(JMH_NORM).toString(), "--html", "x");
        assertEquals(2, unknown.status());
        assertTrue(unknown.err().contains("unknown option --html"), unknown.err());
        Cli dangling = Cli.run("--out");
        assertEquals(2, dangling.status());
        assertTrue(dangling.err().contains("--out needs a value"), dangling.err());
    }
}
