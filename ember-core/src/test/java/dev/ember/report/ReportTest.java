package dev.ember.report;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReportTest {
    @TempDir
    Path tmp;

    private Report.Result generate() throws IOException {
        Path trace = tmp.resolve("trace");
        SyntheticRun.write(trace);
        return Report.generate(trace, tmp.resolve("out"));
    }

    private String read(String page) throws IOException {
        return Files.readString(tmp.resolve("out").resolve(page), StandardCharsets.UTF_8);
    }

    @Test
    void writesIndexFailuresAndAFolderPerCompileId() throws IOException {
        Report.Result r = generate();
        assertEquals(4, r.compilations());
        assertEquals(2, r.graphBreaks());
        assertTrue(r.problems().isEmpty(), () -> "problems: " + r.problems());
        for (String page : List.of("index.html", "failures_and_restarts.html", "chromium_events.json",
                "0_0_0/index.html", "0_1_0/index.html", "1_0_0/index.html", "2_0_0/index.html",
                "0_0_0/dynamo_graph_break_reason.html", "0_0_0/dynamo_output_graph.html", "0_0_0/dynamo_guards.html",
                "0_0_0/original_bytecode.html", "0_0_0/modified_bytecode.html", "0_0_0/inductor_output_code.html",
                "0_0_0/compilation_metrics.html", "0_1_0/recompile_reasons.html", "1_0_0/aot_forward_graph.html",
                "no_compile_id/ember_config.html")) {
            assertTrue(Files.isRegularFile(tmp.resolve("out").resolve(page)), page);
        }
    }

    @Test
    void indexHasTheTrieWithStatusColoursAndEveryCompilation() throws IOException {
        generate();
        String index = read("index.html");
        // The trie: MyApp.main once, with fn's two compilations and the resume function below it.
        assertEquals(1, count(index, "dev/ember/examples/MyApp.java:12 in <b>MyApp.main</b>"));
        assertTrue(index.contains("class=\"badge status-break\" href=\"0_0_0/index.html\""), "0/0 is a graph break");
        assertTrue(index.contains("class=\"badge status-ok\" href=\"1_0_0/index.html\""), "1/0 compiled");
        assertTrue(index.contains("class=\"badge status-failed\" href=\"2_0_0/index.html\""), "2/0 failed");
        assertTrue(index.contains("MyApp.java:8 in <b>MyApp.fn$resume_at_7</b>"));
        assertTrue(index.contains("Model.java:14 in <b>Model.forward</b>"));
        // escaped source text of a frame
        assertTrue(index.contains("<code class=\"loc\">return x.matmul(w);</code>"));
        assertTrue(index.contains("2 graph break(s)"), index);
        assertTrue(index.contains("<h2>Outside any compilation</h2>") && index.contains("no_compile_id/ember_config.html"));
    }

    @Test
    void failuresPageListsEveryBreakWithItsFullReasonAndTheFailureAndRecompile() throws IOException {
        generate();
        String page = read("failures_and_restarts.html");
        assertEquals(2, count(page, "<td>Graph break</td>"));
        assertTrue(page.contains(Html.escape(SyntheticRun.BREAK_REASON)), "full break reason, escaped");
        assertTrue(page.contains("Failure: IllegalArgumentException"));
        assertTrue(page.contains(Html.escape(SyntheticRun.FAIL_REASON)));
        assertTrue(page.contains("dev/ember/examples/Model.java:14"));
        assertTrue(page.contains(Html.escape(SyntheticRun.RECOMPILE_REASON)));
    }

    @Test
    void compilationPageShowsBreakMetricsGraphGuardsAndBytecode() throws IOException {
        generate();
        String page = read("0_0_0/index.html");
        assertTrue(page.contains("<h2>Graph break</h2>"));
        assertTrue(page.contains("Graph Break Reason: Print or logging call (GB0005)"));
        assertTrue(page.contains("<tr><td>Graph ops</td><td>2</td></tr>"), "metrics table");
        assertTrue(page.contains("<tr><td>Guards</td><td>3</td></tr>"));
        assertTrue(page.contains("<tr><td>Compile time, total</td><td>4.200 ms</td></tr>"));
        assertTrue(page.contains("aten.relu.default(add)"), "output graph");
        assertTrue(page.contains("TENSOR_MATCH: L[&#39;x&#39;] is a Tensor of dtype f32, shape [3, 4]"), "guards, escaped");
        assertTrue(page.contains("<b>Original</b>") && page.contains("invokestatic __compiled_fn_0"), "bytecode before/after");
        assertTrue(page.contains("<a href=\"inductor_output_code.html\">inductor_output_code</a>"), "artifact list");
        String recompile = read("0_1_0/index.html");
        assertTrue(recompile.contains("<h2>Recompiled because</h2>"));
        assertTrue(recompile.contains("expected 3, actual 5"));
    }

    @Test
    void everyLinkIsRelativeAndResolvesAndNothingIsFetched() throws IOException {
        generate();
        Path out = tmp.resolve("out");
        Pattern href = Pattern.compile("(href|src)=\"([^\"]*)\"");
        List<Path> pages;
        try (Stream<Path> s = Files.walk(out)) {
            pages = s.filter(p -> p.toString().endsWith(".html")).toList();
        }
        assertTrue(pages.size() > 15, "pages: " + pages.size());
        List<String> broken = new ArrayList<>();
        for (Path p : pages) {
            String html = Files.readString(p);
            assertFalse(html.contains("src="), p + " loads something");
            assertFalse(html.contains("@import") || html.contains("url("), p + " styles load something");
            Matcher m = href.matcher(html);
            while (m.find()) {
                String link = m.group(2);
                assertFalse(link.contains("://") || link.startsWith("/"), p + " has a non-relative link " + link);
                Path target = p.getParent().resolve(link.replaceAll("#.*", "")).normalize();
                if (!Files.exists(target)) broken.add(out.relativize(p) + " -> " + link);
            }
        }
        assertTrue(broken.isEmpty(), "broken links: " + broken);
    }

    @Test
    void aCorruptLineAndABadPayloadAreShownAsWarningsAndTheRestIsReported() throws IOException {
        Path trace = tmp.resolve("trace");
        Path file = SyntheticRun.write(trace);
        List<String> lines = new ArrayList<>(Files.readAllLines(file));
        int guards = indexOf(lines, "\"dynamo_guards\"");
        lines.set(guards + 1, lines.get(guards + 1) + " (edited)");            // payload no longer matches its MD5
        int str = indexOf(lines, "\"str\"");
        lines.addAll(str, List.of("this line is not an event", "\torphan payload", "\tlines"));  // garbage between two events
        int metrics = indexOf(lines, "\"compilation_metrics\"");
        lines.set(metrics, lines.get(metrics).substring(0, lines.get(metrics).length() - 5)); // cut JSON
        Files.write(file, lines);

        Report.Result r = Report.generate(trace, tmp.resolve("out"));
        assertEquals(4, r.problems().size(), () -> "problems: " + r.problems());
        String index = read("index.html");
        assertTrue(index.contains("4 problem(s) reading the trace"));
        assertTrue(index.contains("2 payload line(s) with no event before them"));
        assertTrue(index.contains(":" + (indexOf(lines, "this line is not") + 1) + ": not a trace event line"), index);
        assertTrue(index.contains("does not match its MD5"));
        assertTrue(index.contains("event is not valid JSON"));
        assertEquals(4, r.compilations(), "the other events are still reported");
    }

    @Test
    void missingDirectoryOrNoTraceFilesIsAClearError() throws IOException {
        var missing = assertThrows(IllegalArgumentException.class, () -> Report.generate(tmp.resolve("nope"), tmp.resolve("out")));
        assertTrue(missing.getMessage().contains("trace directory " + tmp.resolve("nope") + " does not exist"), missing.getMessage());
        assertTrue(missing.getMessage().contains("EMBER_TRACE="));

        Files.createDirectories(tmp.resolve("empty"));
        Files.writeString(tmp.resolve("empty/notes.txt"), "hello");
        var empty = assertThrows(IllegalArgumentException.class, () -> Report.generate(tmp.resolve("empty"), tmp.resolve("out")));
        assertTrue(empty.getMessage().startsWith("no trace files (*.log) in " + tmp.resolve("empty")), empty.getMessage());

        Path trace = tmp.resolve("trace");
        SyntheticRun.write(trace);
        Files.writeString(tmp.resolve("afile"), "x");
        var outIsFile = assertThrows(IllegalArgumentException.class, () -> Report.generate(trace, tmp.resolve("afile")));
        assertTrue(outIsFile.getMessage().contains("is a file"), outIsFile.getMessage());
    }

    @Test
    void aTraceOfSeveralProcessesKeepsTheirCompilationsApart() throws IOException {
        Path trace = tmp.resolve("trace");
        Path first = SyntheticRun.write(trace);
        // A second process: same events, another pid.
        List<String> lines = Files.readAllLines(first).stream()
                .map(l -> l.startsWith("V") ? l.replaceFirst("^(V\\S+ \\S+ )\\d+ ", "$1999999 ") : l).toList();
        Files.write(trace.resolve("dedicated_log_ember_trace_999999.log"), lines);
        Report.Result r = Report.generate(trace, tmp.resolve("out"));
        assertEquals(8, r.compilations());
        assertTrue(Files.isRegularFile(tmp.resolve("out/p999999-0_0_0/index.html")));
        assertTrue(read("index.html").contains("<h3>Process 999999</h3>"));
    }

    private static int indexOf(List<String> lines, String needle) {
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).contains(needle)) return i;
        throw new AssertionError("no line with " + needle);
    }

    private static int count(String s, String needle) {
        int n = 0;
        for (int i = s.indexOf(needle); i >= 0; i = s.indexOf(needle, i + 1)) n++;
        return n;
    }
}
