package dev.ember.bench.dashboard;

import dev.ember.bench.dashboard.Dashboard.Row;
import dev.ember.bench.dashboard.Dashboard.Unmatched;
import dev.ember.report.Html;

import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static dev.ember.report.Html.escape;

/** The dashboard as one self-contained HTML page in the trace report's style ({@link Html#standalonePage}): no script, no network. */
public final class DashboardPage {
    private DashboardPage() {}

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'").withZone(ZoneOffset.UTC);

    /** Rules only this page needs; colours are the report's (green: Ember, grey: the others, red: the 1.0x line). */
    private static final String CSS = """
            td.ahead { color: #1a7f37; font-weight: 600; }
            td.behind { color: #cf222e; font-weight: 600; }
            td.compared { font-weight: 700; }
            td.reference { text-decoration: underline dotted #57606a; }
            .chart { display: grid; grid-template-columns: minmax(120px, max-content) minmax(200px, 640px) 60px; gap: 3px 10px;
                     align-items: center; background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 14px;
                     margin: 6px 0 16px; width: fit-content; }
            .chart .title { grid-column: 1 / -1; font-weight: 600; margin-bottom: 2px; }
            .chart .name { font-size: 13px; color: #57606a; }
            .chart .value { font: 13px ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; text-align: right; }
            .chart .track { position: relative; height: 16px; background: #f6f8fa; border-radius: 2px; }
            .chart .bar { height: 100%; border-radius: 2px; background: #8c959f; }
            .chart .bar.ember { background: #1a7f37; }
            .chart .one { position: absolute; top: -3px; bottom: -3px; border-left: 2px dashed #cf222e; }
            """;

    /**
     * The page. {@code jmhFiles} and {@code noPeerReason} (why the torch columns are empty, or null when the peer
     * ran) go into its header so a reader knows what it is looking at.
     */
    public static String html(Dashboard d, List<Path> jmhFiles, String noPeerReason, Instant made) {
        StringBuilder b = new StringBuilder("<h1>Benchmarks</h1>\n");
        b.append("<p class=\"muted\">JMH results from ")
         .append(jmhFiles.stream().map(f -> "<code>" + escape(f.getFileName().toString()) + "</code>").collect(Collectors.joining(", ")))
         .append(" (").append(d.jmh().size()).append(" benchmarks").append(jvms(d.jmh())).append(")");
        if (d.peer() != null) {
            b.append(" &middot; torch peer: torch ").append(escape(d.peer().torchVersion())).append(", ").append(d.peer().threads()).append(" threads");
        }
        b.append(" &middot; page made ").append(STAMP.format(made)).append("</p>\n");
        if (noPeerReason != null) {
            b.append("<div class=\"warning\"><b>No torch figures:</b> ").append(escape(noPeerReason)).append("</div>\n");
        } else if (d.peer() != null && d.peer().quick()) {
            b.append("<div class=\"warning\">The torch peer ran with <code>--quick</code> (1-second measurements): its figures are rough.</div>\n");
        }
        if (d.peer() != null && !d.peer().malloc().isEmpty()) {
            b.append("<p class=\"muted\">torch ran with glibc's malloc keeping freed memory: <code>")
             .append(escape(d.peer().malloc().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "))))
             .append("</code></p>\n");
        }
        settings(b, d.jmh());
        if (!d.noResult().isEmpty()) {
            b.append("<div class=\"warning\"><b>").append(d.noResult().size())
             .append(" benchmark(s) of the table were selected but gave no result</b> (an error in the benchmark: JMH's output says which; "
                     + "or excluded with <code>-e</code>):<ul>\n");
            for (String name : d.noResult()) b.append("<li><code>").append(escape(name)).append("</code></li>\n");
            b.append("</ul></div>\n");
        }

        b.append("<h2>Workloads</h2>\n<p>Milliseconds per call: the median of every measured iteration (JMH) or call (torch peer). "
                + "The ratio is the reference's time ÷ the compared configuration's (bold; the reference is underlined): "
                + "above 1.00x that configuration is ahead.</p>\n");
        table(b, d.rows());

        b.append("<h2>Per workload: speed relative to the reference</h2>\n<p>Each bar is the reference's time ÷ that configuration's "
                + "time, so a longer bar is faster; the dashed line marks 1.0x. Green: Ember.</p>\n");
        double scale = d.rows().stream().flatMap(r -> r.millis().keySet().stream().map(r::ratioTo)).filter(x -> x != null)
                .mapToDouble(Double::doubleValue).max().orElse(1);
        scale = Math.max(scale, 1.25) * 1.05;
        for (Row r : d.rows()) chart(b, r, scale);
        if (d.rows().isEmpty()) b.append("<p class=\"muted\">No workload of the table was measured in this run.</p>\n");

        if (d.peer() != null) firstCalls(b, d);

        b.append("<h2>Not in the table</h2>\n");
        unmatched(b, d.unmatched());
        return Html.standalonePage("Ember benchmarks", "Ember benchmarks", CSS, b.toString());
    }

    private static String jvms(List<JmhResult> jmh) {
        String jdks = jmh.stream().map(JmhResult::jdkVersion).filter(v -> v != null).distinct().collect(Collectors.joining(", "));
        return jdks.isEmpty() ? "" : ", JDK " + escape(jdks);
    }

    /** The JMH run settings, one line per distinct combination, since a short run's figures mean less. */
    private static void settings(StringBuilder b, List<JmhResult> jmh) {
        Map<String, Long> counts = jmh.stream().collect(Collectors.groupingBy(
                r -> r.forks() + " fork(s), " + r.iterations() + " measured iteration(s) in all, mode " + r.mode(),
                LinkedHashMap::new, Collectors.counting()));
        if (counts.isEmpty()) return;
        b.append("<p class=\"muted\">JMH: ");
        b.append(counts.entrySet().stream().map(e -> escape(e.getKey()) + (counts.size() > 1 ? " (" + e.getValue() + " benchmarks)" : ""))
                .collect(Collectors.joining("; ")));
        b.append("</p>\n");
    }

    private static void table(StringBuilder b, List<Row> rows) {
        b.append("<table>\n<tr><th>workload</th>");
        for (Column c : Column.values()) b.append("<th>").append(escape(c.heading)).append("</th>");
        b.append("<th>ratio</th></tr>\n");
        for (Row r : rows) {
            b.append("<tr><td>").append(escape(r.workload().label())).append("</td>");
            for (Column c : Column.values()) {
                Double ms = r.millis().get(c);
                String cls = "num" + (c == r.workload().compared() ? " compared" : c == r.workload().reference() ? " reference" : "");
                b.append("<td class=\"").append(cls).append("\">").append(ms == null ? "" : Format.millis(ms)).append("</td>");
            }
            Double ratio = r.ratio();
            if (ratio == null) {
                b.append("<td class=\"muted\">").append(escape(r.workload().ratioMeaning())).append(": not both measured</td>");
            } else {
                b.append("<td class=\"num ").append(ratio >= 1 ? "ahead" : "behind").append("\" title=\"")
                 .append(escape(r.workload().ratioMeaning())).append("\">").append(ratioText(r, ratio)).append("</td>");
            }
            b.append("</tr>\n");
        }
        b.append("</table>\n");
    }

    /** {@code 1.37x ahead of torch.compile} or {@code 0.74x, behind torch.compile}, naming the compared column unless it is Ember compiled. */
    static String ratioText(Row r, double ratio) {
        Workload w = r.workload();
        String who = w.compared() == Column.EMBER_COMPILED ? "" : escape(w.compared().heading) + ": ";
        return who + Format.ratio(ratio) + (ratio >= 1 ? " ahead of " : " behind ") + escape(w.reference().heading);
    }

    private static void chart(StringBuilder b, Row r, double scale) {
        Workload w = r.workload();
        b.append("<div class=\"chart\"><div class=\"title\">").append(escape(w.label())).append(" <span class=\"muted\">(relative to ")
         .append(escape(w.reference().heading)).append(")</span></div>\n");
        if (!r.millis().containsKey(w.reference())) {
            b.append("<div class=\"name\" style=\"grid-column: 1 / -1\">").append(escape(w.reference().heading)).append(" was not measured</div>");
        } else {
            String one = percent(1 / scale);
            for (Column c : Column.values()) {
                Double ratio = r.ratioTo(c);
                if (ratio == null) continue;
                boolean ember = c.name().startsWith("EMBER_");
                b.append("<div class=\"name\">").append(escape(c.heading)).append("</div><div class=\"track\"><div class=\"bar")
                 .append(ember ? " ember" : "").append("\" style=\"width: ").append(percent(Math.min(ratio, scale) / scale))
                 .append("\"></div><div class=\"one\" style=\"left: ").append(one).append("\"></div></div><div class=\"value\">")
                 .append(Format.ratio(ratio)).append("</div>\n");
            }
        }
        b.append("</div>\n");
    }

    private static String percent(double fraction) {
        return String.format(java.util.Locale.ROOT, "%.1f%%", 100 * fraction);
    }

    private static void firstCalls(StringBuilder b, Dashboard d) {
        Map<String, Double> firsts = new LinkedHashMap<>();
        d.peer().results().forEach((workload, figures) -> {
            Double s = figures.get(Dashboard.FIRST_CALL_FIELD);
            if (s != null) firsts.put(workload, s);
        });
        if (firsts.isEmpty()) return;
        b.append("<h2>torch.compile: the first call</h2>\n<p>Seconds for the first compiled call, compilation included, with whatever "
                + "torch inductor cache the machine had (warm after the first run).</p>\n<table>\n<tr><th>peer workload</th><th>seconds</th></tr>\n");
        firsts.forEach((workload, s) -> b.append("<tr><td><code>").append(escape(workload)).append("</code></td><td class=\"num\">")
                .append(Format.millis(s)).append("</td></tr>\n"));
        b.append("</table>\n");
    }

    private static void unmatched(StringBuilder b, List<Unmatched> unmatched) {
        if (unmatched.isEmpty()) {
            b.append("<p class=\"muted\">Every result of this run is in the table.</p>\n");
            return;
        }
        b.append("<p>Results this run measured that no row of the table takes (the table is <code>dev.ember.bench.dashboard.Workloads</code>):</p>\n"
                + "<table>\n<tr><th>from</th><th>benchmark</th><th>figure</th><th>why not in the table</th></tr>\n");
        for (Unmatched u : unmatched) {
            b.append("<tr><td>").append(escape(u.source())).append("</td><td><code>").append(escape(u.name())).append("</code></td><td class=\"num\">")
             .append(escape(u.figure())).append("</td><td>").append(escape(u.reason())).append("</td></tr>\n");
        }
        b.append("</table>\n");
    }
}
