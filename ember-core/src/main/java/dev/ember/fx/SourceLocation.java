package dev.ember.fx;

/**
 * Where in the user's program a node came from: the method being traced, the source line and the
 * bytecode index of the instruction. {@code fileName} and {@code sourceText} may be null when the
 * class was compiled without debug information or its source is not on hand.
 */
public record SourceLocation(String className, String methodName, String fileName, int line, int bci, String sourceText) {

    /** {@code MyApp.java:13}; the class name stands in for a missing file name. */
    public String fileAndLine() {
        String file = fileName != null ? fileName : className;
        return line > 0 ? file + ":" + line : file;
    }

    /** The same location with the text of its source line. */
    public SourceLocation withSourceText(String text) {
        return new SourceLocation(className, methodName, fileName, line, bci, text);
    }
}
