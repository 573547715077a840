package dev.ember.cli;

import dev.ember.logging.Trace;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * A program run as a child process with the structured trace on ({@code EMBER_TRACE=<trace>}), its
 * output passed through as it comes, and what {@code ember doctor --verify} needs later saved next to
 * the trace ({@value #FILE}: the command, its exit code and wall time).
 *
 * @param trace    the trace folder
 * @param command  the command as given
 * @param exitCode the program's exit code
 * @param wallTime seconds from start to exit
 */
record TracedRun(Path trace, String command, int exitCode, double wallTime) {
    static final String FILE = "doctor_run.properties";

    /**
     * Runs {@code command} tracing into {@code trace} (an empty folder, created if missing).
     *
     * @throws IllegalArgumentException when the trace folder already holds a trace, or the command cannot start
     */
    static TracedRun run(List<String> command, Path trace, PrintStream out) throws IOException, InterruptedException {
        Files.createDirectories(trace);
        try (Stream<Path> files = Files.list(trace)) {
            if (files.anyMatch(f -> f.getFileName().toString().endsWith(".log"))) {
                throw new IllegalArgumentException(trace + " holds a trace already; name an empty folder (or a new one) for this run's trace");
            }
        }
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put(Trace.ENV, trace.toAbsolutePath().toString());
        long start = System.nanoTime();
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            String why = (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()).strip();
            throw new IllegalArgumentException("cannot start '" + command.getFirst() + "': " + why
                    + ". Give the command that runs your program, e.g. ember doctor -- java -cp app.jar com.example.Main");
        }
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) out.println(line);
        }
        int code = p.waitFor();
        TracedRun run = new TracedRun(trace, String.join(" ", command), code, (System.nanoTime() - start) / 1e9);
        run.save();
        return run;
    }

    private void save() throws IOException {
        Properties p = new Properties();
        p.setProperty("command", command);
        p.setProperty("exit_code", Integer.toString(exitCode));
        p.setProperty("wall_time_s", Double.toString(wallTime));
        try (Writer w = Files.newBufferedWriter(trace.resolve(FILE), StandardCharsets.UTF_8)) {
            p.store(w, "ember doctor: the run whose trace is in this folder");
        }
    }

    /** The run saved in {@code trace}, or null when doctor did not make that trace (one written with EMBER_TRACE directly). */
    static TracedRun saved(Path trace) {
        Path file = trace.resolve(FILE);
        if (!Files.isRegularFile(file)) return null;
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
            return new TracedRun(trace, p.getProperty("command", "?"), Integer.parseInt(p.getProperty("exit_code", "0")),
                    Double.parseDouble(p.getProperty("wall_time_s", "NaN")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(file + " is damaged (" + e.getMessage() + "); run ember doctor again to make a new one");
        }
    }
}
