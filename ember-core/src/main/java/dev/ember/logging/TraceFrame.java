package dev.ember.logging;

/**
 * One frame of a user stack in the structured trace ({@code dynamo_start}'s {@code stack}).
 *
 * @param filename the source file, as a path from the source root: {@code dev/ember/examples/MyApp.java}
 * @param line     the line number, or -1 when unknown
 * @param name     the method, with its class: {@code MyApp.fn}
 * @param loc      the source text of that line, or null when not available
 */
public record TraceFrame(String filename, int line, String name, String loc) {

    /** The frame of a stack trace element; its source text is unknown. */
    public static TraceFrame of(StackTraceElement e) {
        String cls = e.getClassName();
        int dot = cls.lastIndexOf('.');
        String pkg = dot < 0 ? "" : cls.substring(0, dot + 1).replace('.', '/');
        String simple = cls.substring(dot + 1);
        String file = e.getFileName() != null ? e.getFileName() : simple.replaceAll("\\$.*", "") + ".java";
        return new TraceFrame(pkg + file, e.getLineNumber(), simple + "." + e.getMethodName(), null);
    }
}
