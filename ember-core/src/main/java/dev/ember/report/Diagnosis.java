package dev.ember.report;

import dev.ember.logging.CompilationMetrics;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A traced run's graph breaks and recompiles, ranked by what they cost, read from the trace with
 * the report's parser ({@code ember doctor} prints it). A graph break costs the time its code ran
 * eagerly between graphs; a recompile costs its compile time plus the time spent checking its cache
 * entry's guards. Both are measured while the program ran ({@code ember_runtime_cost} and
 * {@code compilation_metrics} events). Breaks at one line, and recompiles of one method for one
 * reason, are one finding: the fix is the same.
 *
 * @param totals   the run in numbers
 * @param findings most costly first
 * @param problems lines of the trace that could not be used
 */
public record Diagnosis(Totals totals, List<Finding> findings, List<TraceProblem> problems) {

    /**
     * The run in numbers; times in seconds.
     *
     * @param compilations compilations (compile ids)
     * @param graphs       graphs compiled (compilations whose graph has ops)
     * @param graphBreaks  graph breaks
     * @param recompiles   compiles of a method after its first
     * @param compileTime  time compiling
     * @param eagerTime    time run eagerly at graph breaks, measured
     * @param guardTime    time checking guards, measured
     */
    public record Totals(int compilations, int graphs, int graphBreaks, int recompiles, double compileTime, double eagerTime, double guardTime) {}

    public enum Kind {
        GRAPH_BREAK("graph break"), RECOMPILE("recompile");

        private final String text;

        Kind(String text) { this.text = text; }

        public String text() { return text; }
    }

    /**
     * One graph break (at one line) or recompile (of one method, for one reason).
     *
     * @param gbId       the graph-break type's id ({@code GB0005}); null for a recompile
     * @param function   the compiled method, {@code Prog.f}
     * @param where      {@code Prog.java:12}: the break's line, or the recompiled method's first line
     * @param why        one line: the break's type and reason, or the guard that failed
     * @param cost       measured, in seconds: eager time for a break, compile and guard time for a recompile
     * @param count      calls that ran through the break, or recompiles
     * @param compileIds the compilations it comes from, {@code 0/1}
     */
    public record Finding(Kind kind, String gbId, String function, String where, String why, double cost, long count, List<String> compileIds) {
        /** The cost per call (break) or per recompile; 0 when there was none. */
        public double perCount() { return count == 0 ? 0 : cost / count; }
    }

    private static final Pattern GB_ID = Pattern.compile("\\((GB\\d{4})\\)");
    private static final Pattern BREAK_AT = Pattern.compile("Graph break in user code at (\\S+:\\d+)");
    private static final Pattern REASON = Pattern.compile("Reason: (.*)");

    /**
     * Reads the trace in {@code trace} (a directory of {@code *.log} files, or one file).
     *
     * @throws IllegalArgumentException when it does not exist or holds no trace file
     */
    public static Diagnosis read(Path trace) throws IOException {
        return of(ReportModel.read(trace));
    }

    static Diagnosis of(ReportModel model) {
        Map<String, Finding> byKey = new LinkedHashMap<>();
        int graphs = 0, breaks = 0, recompiles = 0;
        double compile = 0, eager = 0, guards = 0;
        for (Compilation c : model.compilations.values()) {
            Number ops = c.metric(CompilationMetrics.GRAPH_OP_COUNT);
            if (ops != null && ops.longValue() > 0) graphs++;
            Number t = c.metric(CompilationMetrics.ENTIRE_FRAME_COMPILE_TIME);
            double compileTime = t == null ? 0 : t.doubleValue();
            compile += compileTime;
            RuntimeCost rc = c.runtimeCost == null ? new RuntimeCost(0, 0, 0, 0, 0) : c.runtimeCost;
            eager += rc.eagerTime();
            guards += rc.guardTime();
            for (String message : c.breakReasons) {
                breaks++;
                Finding f = breakFinding(c, message, rc);
                byKey.merge("break " + f.gbId() + " " + f.where(), f, Diagnosis::merge);
            }
            if (c.isRecompile() && !c.recompileReasons.isEmpty()) {
                recompiles++;
                String why = c.recompileReasons.getFirst();
                Finding f = new Finding(Kind.RECOMPILE, null, c.method(), c.location() == null ? "(unknown)" : c.location(), why, compileTime + rc.guardTime(), 1,
                        List.of(c.id.toString()));
                byKey.merge("recompile " + c.method() + " " + sameKind(why), f, Diagnosis::merge);
            }
        }
        List<Finding> ranked = new ArrayList<>(byKey.values());
        ranked.sort(Comparator.comparingDouble(Finding::cost).reversed());
        return new Diagnosis(new Totals(model.compilations.size(), graphs, breaks, recompiles, compile, eager, guards), List.copyOf(ranked),
                List.copyOf(model.problems));
    }

    private static Finding breakFinding(Compilation c, String message, RuntimeCost rc) {
        Map<?, ?> meta = c.breakMeta;
        String gbId = meta != null ? String.valueOf(meta.get("gb_id")) : find(GB_ID, message, "GB????");
        String where = meta != null && meta.get("filename") != null
                ? meta.get("filename") + (meta.get("lineno") instanceof Number n ? ":" + n : "")
                : find(BREAK_AT, message, String.valueOf(c.location()));
        String why = meta != null ? meta.get("type") + ": " + meta.get("reason") : find(REASON, message, message.lines().findFirst().orElse(""));
        return new Finding(Kind.GRAPH_BREAK, gbId, c.method(), where, why, rc.eagerTime(), rc.calls(), List.of(c.id.toString()));
    }

    /** The failed guard without the values it saw: recompiles for {@code x}'s size 3, then 5, then 7 are one kind. */
    static String sameKind(String failedGuard) {
        return failedGuard.replaceAll("(\\. expected| == ).*$", "$1");
    }

    private static Finding merge(Finding a, Finding b) {
        List<String> ids = new ArrayList<>(a.compileIds());
        ids.addAll(b.compileIds());
        return new Finding(a.kind(), a.gbId(), a.function(), a.where(), a.why(), a.cost() + b.cost(), a.count() + b.count(), List.copyOf(ids));
    }

    private static String find(Pattern p, String text, String otherwise) {
        Matcher m = p.matcher(text);
        return m.find() ? m.group(1) : otherwise;
    }
}
