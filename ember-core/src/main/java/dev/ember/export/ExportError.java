package dev.ember.export;

/**
 * Why a function cannot be exported, or an exported program cannot run on the given inputs: the
 * first line says what and where (the graph break with its reason and source line, the input and
 * dimension); for a graph break the rest of the message is the break's own report.
 */
public final class ExportError extends RuntimeException {
    public ExportError(String message) { super(message); }

    public ExportError(String message, Throwable cause) { super(message, cause); }
}
