package dev.ember.report;

import java.nio.file.Path;

/**
 * Something in a trace file the report could not use: a line that is not an event, bad JSON, a payload whose
 * MD5 does not match. The report shows each, with where it was; the rest of the trace is still reported.
 *
 * @param file    the trace file
 * @param line    1-based line number, or 0 for the file as a whole
 * @param message what is wrong, in words
 */
public record TraceProblem(Path file, int line, String message) {
    @Override
    public String toString() {
        return file.getFileName() + (line > 0 ? ":" + line : "") + ": " + message;
    }
}
