package dev.ember.fx;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The compiler's switchable steps, numbered in the order a run takes them, for {@code ember bisect}:
 * each decomposition of a node, each lowering of a node, each fusion decision. Each subsystem asks
 * {@link #apply} before a step; normally every step applies and nothing is counted.
 *
 * <p>{@code EMBER_BISECT_LIMIT=<subsystem>:<n>} (e.g. {@code lowering:12}; system property
 * {@code ember.bisect.limit}) applies only the first {@code n} steps of that subsystem and skips the
 * rest: a decomposition skipped leaves its op in the graph, a lowering skipped runs the op's eager
 * kernel (an extern call), a fusion skipped leaves the stage in a kernel of its own. With
 * {@code EMBER_BISECT_REPORT=<file>} (property {@code ember.bisect.report}) every step is appended to
 * the file as it is taken, one line each: {@code lowering<TAB>12<TAB>applied<TAB>aten.tanh.default
 * (node tanh_1 at Model.java:12)}. While either is set the inductor bypasses its artifact cache, so
 * that every step is really taken.
 */
public final class CompilerSteps {
    private CompilerSteps() {}

    public static final String LIMIT_ENV = "EMBER_BISECT_LIMIT";
    public static final String LIMIT_PROPERTY = "ember.bisect.limit";
    public static final String REPORT_ENV = "EMBER_BISECT_REPORT";
    public static final String REPORT_PROPERTY = "ember.bisect.report";

    /** A subsystem whose steps can be switched off one by one, in pipeline order. */
    public enum Kind {
        DECOMPOSITION, LOWERING, FUSION;

        /** {@code lowering}: how limits and reports name it. */
        public String text() { return name().toLowerCase(Locale.ROOT); }

        public static Kind parse(String text) {
            for (Kind k : values()) if (k.text().equals(text)) return k;
            throw new IllegalArgumentException("unknown subsystem '" + text + "'; use decomposition, lowering or fusion");
        }
    }

    /** One step: the {@code number}th of its kind in this run (from 1), whether it was applied, and what it was. */
    public record Step(Kind kind, int number, boolean applied, String what) {
        /** {@code lowering #12 aten.tanh.default (node tanh_1 at Model.java:12)}. */
        @Override
        public String toString() { return kind.text() + " #" + number + " " + what; }

        String line() { return kind.text() + "\t" + number + "\t" + (applied ? "applied" : "skipped") + "\t" + what; }

        /** Parses a line of the report file. */
        public static Step parse(String line) {
            String[] f = line.split("\t", 4);
            if (f.length != 4) throw new IllegalArgumentException("not a step line: " + line);
            return new Step(Kind.parse(f[0]), Integer.parseInt(f[1]), f[2].equals("applied"), f[3]);
        }
    }

    /** Apply the first {@code n} steps of {@code kind}, skip the others. */
    public record Limit(Kind kind, int n) {
        /** Parses {@code lowering:12}; {@code origin} names the setting in errors. */
        public static Limit parse(String text, String origin) {
            int colon = text.indexOf(':');
            try {
                if (colon < 0) throw new IllegalArgumentException("no ':'");
                int n = Integer.parseInt(text.substring(colon + 1).strip());
                if (n < 0) throw new IllegalArgumentException("a negative count");
                return new Limit(Kind.parse(text.substring(0, colon).strip()), n);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(origin + "=" + text + ": expected <subsystem>:<count>, e.g. lowering:12, with subsystem "
                        + "decomposition, lowering or fusion (" + e.getMessage() + ")");
            }
        }

        /** {@code lowering:12}, as {@link #parse} reads it. */
        @Override
        public String toString() { return kind.text() + ":" + n; }
    }

    private static final Map<Kind, Integer> COUNTS = new EnumMap<>(Kind.class);
    private static final List<Step> STEPS = new ArrayList<>();

    /**
     * Whether the next step of {@code kind} is taken. {@code what} (called only while counting) says
     * which step it is: {@code aten.tanh.default (node tanh_1 at Model.java:12)}.
     *
     * @throws IllegalArgumentException when EMBER_BISECT_LIMIT holds a bad value
     */
    public static synchronized boolean apply(Kind kind, Supplier<String> what) {
        Limit limit = limit();
        Path report = report();
        if (limit == null && report == null) return true;
        int n = COUNTS.merge(kind, 1, Integer::sum);
        Step step = new Step(kind, n, limit == null || limit.kind() != kind || n <= limit.n(), what.get());
        STEPS.add(step);
        if (report != null) {
            try {
                Files.writeString(report, step.line() + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(REPORT_ENV + "=" + report + ": cannot append to the step report (" + e.getMessage() + ")", e);
            }
        }
        return step.applied();
    }

    /** Whether steps are being counted (a limit or a report is set): the inductor then bypasses its cache. */
    public static boolean counting() { return limit() != null || report() != null; }

    /** The steps counted in this process so far, in order. */
    public static synchronized List<Step> steps() { return List.copyOf(STEPS); }

    /** Forgets the steps counted: the next one of each kind is #1 again (a bisect run in this process). */
    public static synchronized void reset() {
        COUNTS.clear();
        STEPS.clear();
    }

    /** The limit in force, or null. */
    public static Limit limit() {
        String property = System.getProperty(LIMIT_PROPERTY);
        String value = property != null ? property : System.getenv(LIMIT_ENV);
        if (value == null || value.isBlank()) return null;
        return Limit.parse(value.strip(), property != null ? "-D" + LIMIT_PROPERTY : LIMIT_ENV);
    }

    private static Path report() {
        String value = System.getProperty(REPORT_PROPERTY, System.getenv(REPORT_ENV));
        return value == null || value.isBlank() ? null : Path.of(value);
    }

    /** {@code aten.tanh.default (node tanh_1 at Model.java:12)}: a step on a node, as reports name it. */
    public static String describe(Node n) {
        SourceLocation loc = n.sourceLocation();
        String target = n.target() instanceof dev.ember.ops.OpOverload op ? op.name() : String.valueOf(n.target());
        return target + " (node " + n.name() + (loc == null ? "" : " at " + loc.fileAndLine()) + ")";
    }
}
