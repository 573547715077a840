package dev.ember.report;

import dev.ember.logging.CompilationMetrics;
import dev.ember.logging.JsonWriter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static dev.ember.report.Html.escape;
import static dev.ember.report.Html.pre;

/** Writes the report's pages for a {@link ReportModel}. */
final class ReportWriter {
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneId.systemDefault());

    /** Metrics rows in reading order, with the words the table shows; times are in seconds in the trace. */
    private static final Map<String, String> METRIC_LABELS = new LinkedHashMap<>();

    static {
        METRIC_LABELS.put(CompilationMetrics.CO_NAME, "Method");
        METRIC_LABELS.put(CompilationMetrics.CO_FILENAME, "File");
        METRIC_LABELS.put(CompilationMetrics.CO_FIRSTLINENO, "First line");
        METRIC_LABELS.put(CompilationMetrics.START_TIME, "Started");
        METRIC_LABELS.put(CompilationMetrics.ENTIRE_FRAME_COMPILE_TIME, "Compile time, total");
        METRIC_LABELS.put(CompilationMetrics.TRACING_TIME, "Tracing (Dynamo)");
        METRIC_LABELS.put(CompilationMetrics.PASSES_TIME, "Pre-grad passes");
        METRIC_LABELS.put(CompilationMetrics.BACKEND_COMPILE_TIME, "Backend");
        METRIC_LABELS.put(CompilationMetrics.INDUCTOR_COMPILE_TIME, "Inductor");
        METRIC_LABELS.put(CompilationMetrics.CODE_GEN_TIME, "Code generation");
        METRIC_LABELS.put(CompilationMetrics.DYNAMO_TIME_BEFORE_RESTART, "Time before restarts");
        METRIC_LABELS.put(CompilationMetrics.GRAPH_OP_COUNT, "Graph ops");
        METRIC_LABELS.put(CompilationMetrics.GRAPH_NODE_COUNT, "Graph nodes");
        METRIC_LABELS.put(CompilationMetrics.GRAPH_INPUT_COUNT, "Graph inputs");
        METRIC_LABELS.put(CompilationMetrics.GUARD_COUNT, "Guards");
        METRIC_LABELS.put(CompilationMetrics.CACHE_SIZE, "Cache entries of this method before");
        METRIC_LABELS.put(CompilationMetrics.ACCUMULATED_CACHE_SIZE, "Cache entries of all methods");
        METRIC_LABELS.put(CompilationMetrics.RESTART_REASONS, "Restart reasons");
        METRIC_LABELS.put(CompilationMetrics.FAIL_TYPE, "Failure type");
        METRIC_LABELS.put(CompilationMetrics.FAIL_REASON, "Failure reason");
        METRIC_LABELS.put(CompilationMetrics.FAIL_USER_FRAME_FILENAME, "Failure in file");
        METRIC_LABELS.put(CompilationMetrics.FAIL_USER_FRAME_LINENO, "Failure at line");
    }

    private final ReportModel model;
    private final Path out;

    ReportWriter(ReportModel model, Path out) {
        this.model = model;
        this.out = out;
    }

    void write() throws IOException {
        Files.createDirectories(out);
        for (Compilation c : model.compilations.values()) writeCompilation(c);
        if (!model.outside.artifacts.isEmpty()) writeArtifacts(model.outside);
        if (!model.chromiumEvents.isEmpty()) {
            Files.writeString(out.resolve("chromium_events.json"), JsonWriter.write(model.chromiumEvents) + "\n", StandardCharsets.UTF_8);
        }
        Files.writeString(out.resolve("failures_and_restarts.html"), failuresPage(), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("index.html"), indexPage(), StandardCharsets.UTF_8);
    }

    // ---- index ----

    private String indexPage() {
        Collection<Compilation> cs = model.compilations.values();
        StringBuilder b = new StringBuilder();
        b.append("<h1>Compilations</h1>\n<p class=\"muted\">From ").append(model.eventCount).append(" events in ")
         .append(model.files.stream().map(f -> "<code>" + escape(f.getFileName().toString()) + "</code>").collect(Collectors.joining(", ")))
         .append(" &middot; report made ").append(STAMP.format(Instant.now())).append("</p>\n");
        problems(b);
        long methods = cs.stream().map(c -> c.pid + "/" + c.id.frameId()).distinct().count();
        long breaks = cs.stream().mapToLong(c -> c.breakReasons.size()).sum();
        long recompiles = cs.stream().filter(Compilation::isRecompile).count();
        long failures = cs.stream().filter(c -> c.status() == Status.FAILED).count();
        b.append("<div class=\"summary\">")
         .append(card(cs.size(), "compilations")).append(card(methods, "methods"))
         .append(card(breaks, "graph breaks")).append(card(recompiles, "recompiles")).append(card(failures, "failures"))
         .append("</div>\n");

        b.append("<h2>Stack trie</h2>\n<p>Where each compilation started: the user stacks of all compilations merged, outermost frame "
                + "first; a compilation's badge sits on the frame of the method compiled. Stacks that part are indented.</p>\n");
        b.append("<p class=\"legend\">");
        for (Status s : Status.values()) b.append(Html.badge(s)).append(' ');
        b.append("</p>\n");
        for (long pid : model.pids) {
            StackTrie trie = new StackTrie();
            for (Compilation c : cs) if (c.pid == pid && c.stack != null) trie.insert(c.stack, c);
            if (model.pids.size() > 1) b.append("<h3>Process ").append(pid).append("</h3>\n");
            if (!trie.isEmpty()) b.append(trie.toHtml());
        }
        List<Compilation> noStack = cs.stream().filter(c -> c.stack == null).toList();
        if (!noStack.isEmpty()) {
            b.append("<p>Without a user stack (no <code>dynamo_start</code> event): ");
            for (Compilation c : noStack) b.append(Html.badgeLink(c, "")).append(' ');
            b.append("</p>\n");
        }
        if (cs.isEmpty()) b.append("<p class=\"muted\">No compilations in this trace.</p>\n");

        b.append("<h2>Failures and restarts</h2>\n<p>This run had <a href=\"failures_and_restarts.html\"><b>")
         .append(breaks).append(" graph break(s), ")
         .append(cs.stream().mapToLong(c -> c.restartReasons().size()).sum()).append(" restart(s), ")
         .append(failures).append(" failure(s) and ").append(recompiles).append(" recompile(s)</b></a>.</p>\n");

        b.append("<h2>All compilations</h2>\n<table>\n<tr><th>Compile id</th><th>Method</th><th>Status</th><th>Ops</th><th>Guards</th>"
                + "<th>Compile time</th><th>Pages</th></tr>\n");
        for (Compilation c : cs) {
            b.append("<tr><td>").append(Html.badgeLink(c, "")).append("</td><td><code>").append(escape(c.method())).append("</code>");
            if (c.location() != null) b.append("<br><span class=\"muted\">").append(escape(c.location())).append("</span>");
            b.append("</td><td>").append(escape(c.status().label())).append("</td>")
             .append("<td class=\"num\">").append(number(c.metric(CompilationMetrics.GRAPH_OP_COUNT))).append("</td>")
             .append("<td class=\"num\">").append(number(c.metric(CompilationMetrics.GUARD_COUNT))).append("</td>")
             .append("<td class=\"num\">").append(millis(c.metric(CompilationMetrics.ENTIRE_FRAME_COMPILE_TIME))).append("</td><td>");
            for (Artifact a : c.artifacts) {
                b.append("<a href=\"").append(c.folder).append('/').append(a.page()).append("\">").append(escape(a.name())).append("</a> ");
            }
            b.append("</td></tr>\n");
        }
        b.append("</table>\n");

        if (!model.outside.artifacts.isEmpty()) {
            b.append("<h2>Outside any compilation</h2>\n<ul class=\"artifacts\">\n");
            for (Artifact a : model.outside.artifacts) {
                b.append("<li><a href=\"").append(model.outside.folder).append('/').append(a.page()).append("\">").append(escape(a.name()))
                 .append("</a></li>\n");
            }
            b.append("</ul>\n");
        }
        if (!model.chromiumEvents.isEmpty()) {
            b.append("<h2>Timeline</h2>\n<p><a href=\"chromium_events.json\">chromium_events.json</a>: ")
             .append(model.chromiumEvents.size())
             .append(" Chromium trace events of the compiler's phases; open the file in Perfetto or chrome://tracing.</p>\n");
        }
        return Html.page("Ember compile report", "", b.toString());
    }

    private void problems(StringBuilder b) {
        if (model.problems.isEmpty()) return;
        int shown = Math.min(model.problems.size(), 50);
        b.append("<div class=\"warning\"><b>").append(model.problems.size())
         .append(" problem(s) reading the trace</b>; the rest is reported below.<ul>\n");
        for (TraceProblem p : model.problems.subList(0, shown)) b.append("<li>").append(escape(p.toString())).append("</li>\n");
        if (shown < model.problems.size()) b.append("<li>… and ").append(model.problems.size() - shown).append(" more</li>\n");
        b.append("</ul></div>\n");
    }

    private static String card(long n, String label) {
        return "<div class=\"card\"><span class=\"n\">" + n + "</span><span class=\"l\">" + escape(label) + "</span></div>";
    }

    // ---- failures and restarts ----

    private String failuresPage() {
        StringBuilder b = new StringBuilder("<h1>Failures and restarts</h1>\n");
        b.append("<p>Every graph break with its full reason, every restart of the analysis, every compilation that failed, "
                + "and below, every recompile with the guards that failed.</p>\n");
        b.append("<table>\n<tr><th>Compile id</th><th>Kind</th><th>Reason</th><th>Method</th></tr>\n");
        int rows = 0;
        for (Compilation c : model.compilations.values()) {
            String method = "<code>" + escape(c.method()) + "</code>"
                    + (c.location() == null ? "" : "<br><span class=\"muted\">" + escape(c.location()) + "</span>");
            String breakKind = c.runtimeCost == null ? "Graph break" : "Graph break: " + eagerCost(c.runtimeCost);
            for (String r : c.breakReasons) rows += row(b, c, breakKind, r, method);
            for (String r : c.restartReasons()) rows += row(b, c, "Restart", r, method);
            if (c.status() == Status.FAILED) {
                Map<String, Object> m = c.metrics;
                String where = m.get(CompilationMetrics.FAIL_USER_FRAME_FILENAME) instanceof String f
                        ? f + ":" + m.get(CompilationMetrics.FAIL_USER_FRAME_LINENO) : null;
                rows += row(b, c, "Failure: " + m.get(CompilationMetrics.FAIL_TYPE), String.valueOf(m.get(CompilationMetrics.FAIL_REASON)),
                        where == null ? method : method + "<br>at <code>" + escape(where) + "</code>");
            }
        }
        b.append("</table>\n");
        if (rows == 0) b.append("<p class=\"muted\">None: every compilation captured its method whole.</p>\n");

        b.append("<h2>Recompiles</h2>\n");
        List<Compilation> recompiled = model.compilations.values().stream().filter(c -> !c.recompileReasons.isEmpty()).toList();
        if (recompiled.isEmpty()) {
            b.append("<p class=\"muted\">No recompile reasons in this trace.</p>\n");
        } else {
            b.append("<table>\n<tr><th>Compile id</th><th>Method</th><th>Guard failures that caused it</th><th>Closest cached entry</th></tr>\n");
            for (Compilation c : recompiled) {
                b.append("<tr><td>").append(Html.badgeLink(c, "")).append("</td><td><code>").append(escape(c.method()))
                 .append("</code></td><td>").append(list(c.recompileReasons)).append("</td><td>");
                if (c.closestEntry != null) b.append("<code>[").append(escape(c.closestEntry)).append("]</code> differs in").append(list(c.closestFailures));
                b.append("</td></tr>\n");
            }
            b.append("</table>\n");
        }
        return Html.page("Failures and restarts", "", b.toString());
    }

    /**
     * What the backend made: on an inductor cache hit, that the class came from the cache (no passes,
     * decompositions or fusion ran in this run); else links to the pass diffs and the fusion
     * decisions; then the output code.
     */
    private static String backendSection(Compilation c) {
        if (c.cacheFile == null && c.passes.isEmpty() && c.fusionDecisions == null && c.outputCode == null) return "";
        StringBuilder b = new StringBuilder("<h2>Backend</h2>\n");
        if (c.cacheFile != null) {
            b.append("<p><span class=\"badge status-empty\">cached</span> The compiled class was loaded from the inductor's cache, <code>")
             .append(escape(c.cacheFile)).append("</code>: no pass, decomposition or fusion ran for it in this run; its output code is the cached one.</p>\n");
        }
        if (!c.passes.isEmpty()) {
            b.append("<p><a href=\"passes.html\">Pass diffs</a>: the graph before and after each pass that changed it (")
             .append(escape(String.join(", ", c.passes.stream().map(PassDiff::name).toList()))).append(").</p>\n");
        }
        if (c.fusionDecisions != null) b.append("<h3>Fusion decisions</h3>\n").append(pre(c.fusionDecisions));
        if (c.outputCode != null) b.append("<h3>Output code").append(c.cacheFile != null ? " (cached)" : "").append("</h3>\n").append(pre(c.outputCode));
        return b.toString();
    }

    /** The graph before and after each pass that changed it, side by side, removed lines red, added lines green. */
    private static String passesPage(Compilation c) {
        StringBuilder b = new StringBuilder("<p><a href=\"index.html\">&larr; compilation ").append(escape(c.label)).append("</a></p>\n<h1>Pass diffs of ")
                .append(escape(c.label)).append("</h1>\n<p>Each pass that changed the graph, in the order they ran: the graph before it on the left "
                        + "(<mark class=\"del\">removed</mark> lines marked), after it on the right (<mark class=\"add\">added</mark> lines marked).</p>\n");
        for (PassDiff d : c.passes) {
            List<String> before = d.before().lines().toList(), after = d.after().lines().toList();
            LineDiff diff = LineDiff.of(before, after);
            b.append("<h2>").append(escape(d.name())).append("</h2>\n<p class=\"muted\">").append(escape(d.description())).append("</p>\n")
             .append("<div class=\"two\"><div><b>Before</b>").append(Html.markedLines(before, diff.keptBefore(), "del"))
             .append("</div><div><b>After</b>").append(Html.markedLines(after, diff.keptAfter(), "add")).append("</div></div>\n");
        }
        return Html.page("Pass diffs " + c.label, "../", b.toString());
    }

    /** {@code 412.7 ms eager over 41 calls (10.066 ms a call)}: a graph break's measured cost. */
    private static String eagerCost(RuntimeCost rc) {
        return millis(rc.eagerTime()) + " run eagerly over " + rc.calls() + " call(s)"
                + (rc.calls() == 0 ? "" : " (" + millis(rc.eagerTime() / rc.calls()) + " a call)");
    }

    private static String runtimeTable(RuntimeCost rc) {
        return "<table>\n<tr><th>Measured while the program ran</th><th>Value</th></tr>\n"
                + "<tr><td>Calls of this cache entry</td><td class=\"num\">" + rc.calls() + "</td></tr>\n"
                + "<tr><td>Their time (resume methods included)</td><td class=\"num\">" + millis(rc.runTime()) + "</td></tr>\n"
                + "<tr><td>Run eagerly (between graphs at a break, or whole calls)</td><td class=\"num\">" + millis(rc.eagerTime()) + "</td></tr>\n"
                + "<tr><td>Guard checks of this entry</td><td class=\"num\">" + rc.guardChecks() + "</td></tr>\n"
                + "<tr><td>Time checking them</td><td class=\"num\">" + millis(rc.guardTime()) + "</td></tr>\n</table>\n";
    }

    /**
     * At a recompile: the cached entry that came closest (fewest failing guards), its guards beside
     * this compilation's, each guard that is not in the other list marked.
     */
    private String closestEntry(Compilation c) {
        if (c.closestEntry == null) return "";
        Compilation cached = model.compilations.values().stream()
                .filter(o -> o.pid == c.pid && o.id.toString().equals(c.closestEntry)).findFirst().orElse(null);
        StringBuilder b = new StringBuilder("<h3>Closest cached entry [").append(escape(c.closestEntry)).append("]</h3>\n<p>")
                .append(cached == null ? escape("[" + c.closestEntry + "]") : Html.badgeLink(cached, "../"))
                .append(" came closest to this call; it failed ").append(c.closestFailures.size() == 1 ? "only " : "")
                .append(c.closestFailures.size()).append(" guard(s):</p>\n").append(list(c.closestFailures));
        if (cached == null) return b.append("<p class=\"muted\">(its compilation is not in this trace)</p>\n").toString();
        b.append("<div class=\"two\"><div><b>Guards of [").append(escape(c.closestEntry)).append("] (cached)</b>")
         .append(Html.markedLines(cached.guards, LineDiff.in(cached.guards, c.guards), "diff"))
         .append("</div><div><b>Guards of ").append(escape(c.label)).append(" (this compile)</b>")
         .append(Html.markedLines(c.guards, LineDiff.in(c.guards, cached.guards), "diff")).append("</div></div>\n");
        return b.toString();
    }

    private static int row(StringBuilder b, Compilation c, String kind, String reason, String methodHtml) {
        b.append("<tr><td>").append(Html.badgeLink(c, "")).append("</td><td>").append(escape(kind)).append("</td><td>")
         .append(pre(reason)).append("</td><td>").append(methodHtml).append("</td></tr>\n");
        return 1;
    }

    // ---- one compilation ----

    private void writeCompilation(Compilation c) throws IOException {
        Path dir = writeArtifacts(c);
        StringBuilder b = new StringBuilder();
        b.append("<h1>Compilation ").append(escape(c.label)).append(": <code>").append(escape(c.method())).append("</code></h1>\n")
         .append("<p>").append(Html.badge(c.status())).append(' ').append(escape(c.status().meaning())).append("</p>\n");
        if (c.location() != null) b.append("<p class=\"muted\">").append(escape(c.location())).append(" &middot; process ").append(c.pid).append("</p>\n");

        if (c.stack != null && !c.stack.isEmpty()) {
            b.append("<h2>User stack</h2>\n<pre>");
            for (Frame f : c.stack) {
                b.append(escape(f.file())).append(':').append(f.line()).append(" in ").append(escape(f.name())).append('\n');
                if (f.loc() != null) b.append("    ").append(escape(f.loc().strip())).append('\n');
            }
            b.append("</pre>\n");
        }
        if (!c.breakReasons.isEmpty()) {
            b.append("<h2>Graph break</h2>\n");
            if (c.runtimeCost != null) b.append("<p><b>Measured cost</b>: ").append(escape(eagerCost(c.runtimeCost))).append("</p>\n");
            for (String r : c.breakReasons) b.append(pre(r));
        }
        if (!c.recompileReasons.isEmpty()) {
            b.append("<h2>Recompiled because</h2>\n").append(list(c.recompileReasons));
            b.append(closestEntry(c));
        }
        if (c.runtimeCost != null) b.append("<h2>Run-time cost</h2>\n").append(runtimeTable(c.runtimeCost));
        if (!c.restartReasons().isEmpty()) b.append("<h2>Restarts</h2>\n").append(list(c.restartReasons()));
        b.append("<h2>Compilation metrics</h2>\n").append(metricsTable(c));
        if (c.outputGraph != null) b.append("<h2>Output graph</h2>\n").append(pre(c.outputGraph));
        b.append(backendSection(c));
        if (!c.guards.isEmpty()) b.append("<h2>Guards</h2>\n").append(pre(String.join("\n", c.guards)));
        if (c.originalBytecode != null || c.modifiedBytecode != null) {
            b.append("<h2>Bytecode</h2>\n<div class=\"two\"><div><b>Original</b>")
             .append(pre(c.originalBytecode == null ? "(not traced)" : c.originalBytecode))
             .append("</div><div><b>Modified</b>").append(pre(c.modifiedBytecode == null ? "(not traced)" : c.modifiedBytecode))
             .append("</div></div>\n");
        }
        b.append("<h2>Every artifact</h2>\n<ul class=\"artifacts\">\n");
        for (Artifact a : c.artifacts) {
            b.append("<li><a href=\"").append(a.page()).append("\">").append(escape(a.name())).append("</a> <span class=\"muted\">(")
             .append(a.content().lines().count()).append(" lines)</span></li>\n");
        }
        if (c.metrics != null) b.append("<li><a href=\"compilation_metrics.html\">compilation_metrics</a></li>\n");
        b.append("</ul>\n");
        Files.writeString(dir.resolve("index.html"), Html.page("Compilation " + c.label, "../", b.toString()), StandardCharsets.UTF_8);
        if (!c.passes.isEmpty()) Files.writeString(dir.resolve("passes.html"), passesPage(c), StandardCharsets.UTF_8);
        if (c.metrics != null) {
            String page = "<p><a href=\"index.html\">&larr; compilation " + escape(c.label) + "</a></p>\n<h1>compilation_metrics of "
                    + escape(c.label) + "</h1>\n" + metricsTable(c);
            Files.writeString(dir.resolve("compilation_metrics.html"), Html.page("compilation_metrics " + c.label, "../", page),
                    StandardCharsets.UTF_8);
        }
    }

    private Path writeArtifacts(Compilation c) throws IOException {
        Path dir = out.resolve(c.folder);
        Files.createDirectories(dir);
        for (Artifact a : c.artifacts) {
            TraceEvent e = a.event();
            String back = c.id == null ? "<a href=\"../index.html\">&larr; overview</a>"
                    : "<a href=\"index.html\">&larr; compilation " + escape(c.label) + "</a>";
            String body = "<p>" + back + "</p>\n<h1>" + escape(a.name()) + (c.id == null ? "" : " of " + escape(c.label)) + "</h1>\n"
                    + "<p class=\"muted\">event <code>" + escape(e.kind()) + "</code>, encoding " + escape(a.encoding()) + ", from "
                    + escape(e.file().getFileName().toString()) + " line " + e.line() + ", written " + escape(e.time()) + "</p>\n"
                    + pre(a.content());
            Files.writeString(dir.resolve(a.page()), Html.page(a.name() + " " + c.label, "../", body), StandardCharsets.UTF_8);
        }
        return dir;
    }

    private static String metricsTable(Compilation c) {
        if (c.metrics == null) {
            return "<p class=\"muted\">No compilation_metrics event for this compilation: it did not finish, or the process ended first.</p>\n";
        }
        StringBuilder b = new StringBuilder("<table>\n<tr><th>Metric</th><th>Value</th></tr>\n");
        Map<String, Object> rest = new LinkedHashMap<>(c.metrics);
        for (Map.Entry<String, String> label : METRIC_LABELS.entrySet()) {
            if (!rest.containsKey(label.getKey())) continue;
            Object v = rest.remove(label.getKey());
            if (v instanceof List<?> l && l.isEmpty()) continue;
            b.append("<tr><td>").append(escape(label.getValue())).append("</td><td>").append(metricValue(label.getKey(), v)).append("</td></tr>\n");
        }
        for (Map.Entry<String, Object> e : rest.entrySet()) {
            b.append("<tr><td><code>").append(escape(e.getKey())).append("</code></td><td>").append(metricValue(e.getKey(), e.getValue()))
             .append("</td></tr>\n");
        }
        return b.append("</table>\n").toString();
    }

    private static String metricValue(String key, Object v) {
        if (key.equals(CompilationMetrics.START_TIME) && v instanceof Number n) {
            long micros = (long) (n.doubleValue() * 1e6);
            return escape(STAMP.format(Instant.ofEpochSecond(micros / 1_000_000, (micros % 1_000_000) * 1000)));
        }
        if (key.endsWith("_time_s") && v instanceof Number n) return millis(n);
        if (v instanceof List<?> l) return list(l.stream().map(String::valueOf).toList());
        if (v instanceof String s) return s.contains("\n") ? pre(s) : "<code>" + escape(s) + "</code>";
        return escape(String.valueOf(v));
    }

    private static String list(List<String> items) {
        StringBuilder b = new StringBuilder("<ul>");
        for (String s : items) b.append("<li><code>").append(escape(s)).append("</code></li>");
        return b.append("</ul>\n").toString();
    }

    private static String number(Number n) {
        return n == null ? "" : n.toString();
    }

    private static String millis(Number seconds) {
        return seconds == null ? "" : String.format("%.3f ms", seconds.doubleValue() * 1000);
    }
}
