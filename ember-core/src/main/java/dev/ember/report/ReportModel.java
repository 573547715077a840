package dev.ember.report;

import dev.ember.logging.CompileId;
import dev.ember.logging.JsonReader;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** A trace read and grouped: its files, its compilations in the order they began, and what could not be read. */
final class ReportModel {
    record Key(long pid, CompileId id) {}

    final List<Path> files;
    final List<TraceProblem> problems = new ArrayList<>();
    final Map<Key, Compilation> compilations = new LinkedHashMap<>();
    /** Payload events with no compile id, kept on a page of their own. */
    final Compilation outside;
    final List<Object> chromiumEvents = new ArrayList<>();
    final List<Long> pids;
    int eventCount;

    private ReportModel(List<Path> files, List<TraceEvent> events) {
        this.files = files;
        this.pids = events.stream().filter(e -> e.compileId() != null).map(TraceEvent::pid).distinct().toList();
        this.outside = new Compilation(-1, null, "no_compile_id", "(no compile id)");
        this.eventCount = events.size();
        for (TraceEvent e : events) {
            if (e.kind().equals("chromium_event")) {
                chromium(e);
            } else if (e.compileId() == null) {
                if (e.payload() != null) outside.add(e);
            } else {
                compilations.computeIfAbsent(new Key(e.pid(), e.compileId()), k -> newCompilation(k)).add(e);
            }
        }
    }

    private Compilation newCompilation(Key k) {
        boolean several = pids.size() > 1;
        String folder = (several ? "p" + k.pid + "-" : "") + k.id.directoryName();
        String label = "[" + k.id + "]" + (several ? " pid " + k.pid : "");
        return new Compilation(k.pid, k.id, folder, label);
    }

    private void chromium(TraceEvent e) {
        if (e.payload() == null) return;
        try {
            chromiumEvents.add(JsonReader.parse(e.payload()));
        } catch (IllegalArgumentException bad) {
            problems.add(new TraceProblem(e.file(), e.line(), "chromium_event payload is not JSON: " + bad.getMessage()));
        }
    }

    /**
     * Reads the trace files of {@code input}: every {@code *.log} file of a directory, or one file.
     *
     * @throws IllegalArgumentException when the input does not exist, holds no trace file, or none of its lines is an event
     */
    static ReportModel read(Path input) throws IOException {
        List<Path> files = traceFiles(input);
        List<TraceEvent> events = new ArrayList<>();
        List<TraceProblem> problems = new ArrayList<>();
        for (Path f : files) {
            TraceParser.Result r = TraceParser.parse(f);
            events.addAll(r.events());
            problems.addAll(r.problems());
        }
        if (events.isEmpty() && !problems.isEmpty()) {
            throw new IllegalArgumentException(input + " is not a trace: no line of " + files.stream().map(f -> f.getFileName().toString()).toList()
                    + " is a trace event (" + problems.getFirst() + "). Name the directory a program wrote with EMBER_TRACE=<dir>.");
        }
        ReportModel m = new ReportModel(files, events);
        m.problems.addAll(0, problems);
        if (events.isEmpty()) {
            m.problems.add(new TraceProblem(files.getFirst(), 0, "no events: the program wrote no trace (did it compile anything?)"));
        }
        return m;
    }

    private static List<Path> traceFiles(Path input) throws IOException {
        if (!Files.exists(input)) {
            throw new IllegalArgumentException("trace directory " + input + " does not exist. Run the program with EMBER_TRACE="
                    + input + " to write a trace there.");
        }
        if (Files.isRegularFile(input)) {
            if (!Files.isReadable(input)) throw new IllegalArgumentException("cannot read the trace file " + input);
            return List.of(input);
        }
        List<Path> files;
        try (Stream<Path> s = Files.list(input)) {
            files = s.filter(p -> Files.isRegularFile(p) && p.getFileName().toString().endsWith(".log")).sorted().toList();
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException("no trace files (*.log) in " + input + ". Run the program with EMBER_TRACE=" + input
                    + " to write one, then run ember report again.");
        }
        for (Path f : files) {
            if (!Files.isReadable(f)) throw new IllegalArgumentException("cannot read the trace file " + f);
        }
        return files;
    }
}
