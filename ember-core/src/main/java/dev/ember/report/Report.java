package dev.ember.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Builds the static HTML report of a structured trace ({@code EMBER_TRACE}), like tlparse does for TORCH_TRACE:
 * {@code index.html} with the stack trie of all compilations coloured by status, {@code failures_and_restarts.html},
 * and a folder per compile id ({@code 0_1_0/}) with its break reason, metrics, graph, guards, bytecode and every
 * artifact on its own page. Pages use relative links and inline styles only: they open from disk, offline.
 */
public final class Report {
    private Report() {}

    /**
     * What was made.
     *
     * @param index        the report's front page
     * @param compilations compilations found
     * @param graphBreaks  graph breaks found
     * @param problems     lines of the trace that could not be used (also listed on the front page)
     */
    public record Result(Path index, int compilations, int graphBreaks, List<TraceProblem> problems) {}

    /**
     * Reads the trace files in {@code trace} (a directory of {@code *.log} files, or one file) and writes the report
     * into {@code outDir}, created if needed; pages already there are replaced.
     *
     * @throws IllegalArgumentException when the trace is missing or has no trace file, or outDir is a file
     * @throws IOException              when a trace file cannot be read or a page cannot be written
     */
    public static Result generate(Path trace, Path outDir) throws IOException {
        if (Files.exists(outDir) && !Files.isDirectory(outDir)) {
            throw new IllegalArgumentException("output " + outDir + " is a file; name a directory for the report");
        }
        ReportModel model = ReportModel.read(trace);
        new ReportWriter(model, outDir).write();
        int breaks = model.compilations.values().stream().mapToInt(c -> c.breakReasons.size()).sum();
        return new Result(outDir.resolve("index.html"), model.compilations.size(), breaks, List.copyOf(model.problems));
    }
}
