package dev.ember.debug.minifier;

import java.util.Locale;

/**
 * What happened when a graph was compiled with its backend and run against eager: it passed, the
 * backend threw while compiling, the compiled graph threw while running, or its outputs were not
 * as accurate as eager's ({@link dev.ember.debug.Accuracy}'s rule). {@link Invalid} is a graph the
 * minifier made that eager itself cannot run: never a failure worth keeping.
 */
public sealed interface Outcome {
    /** A line for people: {@code compile error: IllegalStateException: no lowering for aten.exp.default}. */
    String describe();

    /** The name saved in a launcher's properties ({@code compile_error}, …). */
    String kind();

    /** Whether this is a failure: anything but {@link Passed} and {@link Invalid}. */
    default boolean failed() { return !(this instanceof Passed) && !(this instanceof Invalid); }

    record Passed(String summary) implements Outcome {
        public String describe() { return "passed: " + summary; }
        public String kind() { return "none"; }
    }

    record CompileError(String exceptionClass, String message) implements Outcome {
        public String describe() { return "compile error: " + simple(exceptionClass) + ": " + firstLine(message); }
        public String kind() { return "compile_error"; }
    }

    record RuntimeError(String exceptionClass, String message) implements Outcome {
        public String describe() { return "runtime error: " + simple(exceptionClass) + ": " + firstLine(message); }
        public String kind() { return "runtime_error"; }
    }

    record Inaccurate(String report) implements Outcome {
        /** The verdict's own words, {@code accuracy failed at output 0, element 5: …}. */
        public String describe() { return report; }
        public String kind() { return "accuracy"; }
    }

    record Invalid(String why) implements Outcome {
        public String describe() { return "not a valid graph: " + why; }
        public String kind() { return "invalid"; }
    }

    /**
     * Whether {@code other} is the same failure as this one, so that a reduction keeps chasing one
     * bug: the same kind; for an exception also the same class and the same start of its first line
     * (digits aside, since shapes and node numbers change as the graph shrinks). Any two accuracy
     * failures match: which element is worst changes with every reduction.
     */
    default boolean sameFailureAs(Outcome other) {
        return switch (this) {
            case CompileError(String c, String m) -> other instanceof CompileError(String c2, String m2) && c.equals(c2) && gist(m).equals(gist(m2));
            case RuntimeError(String c, String m) -> other instanceof RuntimeError(String c2, String m2) && c.equals(c2) && gist(m).equals(gist(m2));
            case Inaccurate _ -> other instanceof Inaccurate;
            case Passed _, Invalid _ -> false;
        };
    }

    private static String gist(String message) {
        String s = firstLine(message).replaceAll("\\d+", "#");
        // 24 characters: enough to tell "no lowering for aten.exp" from "index out of bounds", short of the node names after.
        return s.substring(0, Math.min(24, s.length())).toLowerCase(Locale.ROOT);
    }

    private static String firstLine(String message) {
        if (message == null) return "";
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }

    private static String simple(String className) { return className.substring(className.lastIndexOf('.') + 1); }
}
