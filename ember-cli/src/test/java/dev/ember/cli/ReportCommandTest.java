package dev.ember.cli;

import dev.ember.logging.CompilationMetrics;
import dev.ember.logging.CompileContext;
import dev.ember.logging.CompileId;
import dev.ember.logging.Trace;
import dev.ember.logging.TraceFrame;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReportCommandTest {
    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();

    private int ember(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() { return out.toString(StandardCharsets.UTF_8); }

    private String err() { return err.toString(StandardCharsets.UTF_8); }

    /** One method compiled with a graph break, written through the trace API as the compiler does. */
    private Path writeTrace() {
        Path dir = tmp.resolve("trace");
        Trace.start(dir);
        try (var c = CompileContext.enter(CompileId.of(0, 0))) {
            Trace.dynamoStart(List.of(new TraceFrame("dev/ember/examples/MyApp.java", 5, "MyApp.fn", null)));
            Trace.graphBreak("Graph break in user code at MyApp.java:7\nGraph Break Reason: Print or logging call (GB0005)");
            Trace.outputGraph(java.util.Map.of("x", List.of(3)), () -> "graph(x: f32[3]):\n    return (x,)");
            Trace.compilationMetrics(new CompilationMetrics().function("MyApp.fn", "dev/ember/examples/MyApp.java", 5).counts(1, 0, 2, 1));
        } finally {
            Trace.stop();
        }
        return dir;
    }

    @Test
    void writesTheReportAndSaysWhereToOpenIt() throws Exception {
        Path trace = writeTrace();
        Path report = tmp.resolve("html");
        assertEquals(0, ember("report", trace.toString(), "-o", report.toString()), err());
        assertTrue(out().startsWith("ember report: 1 compilation(s), 1 graph break(s)\n"), out());
        assertTrue(out().contains("open " + report.resolve("index.html").toAbsolutePath().toUri()), out());
        assertTrue(Files.readString(report.resolve("0_0_0/index.html")).contains("Graph break in user code at MyApp.java:7"));
        assertTrue(Files.isRegularFile(report.resolve("failures_and_restarts.html")));
    }

    @Test
    void defaultOutputIsInsideTheTraceDirectory() {
        Path trace = writeTrace();
        assertEquals(0, ember("report", trace.toString()), err());
        assertTrue(Files.isRegularFile(trace.resolve("report/index.html")));
    }

    @Test
    void badInputGivesAMessageAndNoStackTrace() throws Exception {
        assertEquals(2, ember("report", tmp.resolve("missing").toString()));
        assertEquals("ember report: trace directory " + tmp.resolve("missing") + " does not exist. Run the program with EMBER_TRACE="
                + tmp.resolve("missing") + " to write a trace there.\n", err());
        assertFalse(err().contains("\tat "), "no stack trace");

        err.reset();
        assertEquals(2, ember("report"));
        assertEquals("ember report: which trace? usage: ember report <trace dir> [-o <out dir>]\n", err());

        err.reset();
        Files.createDirectories(tmp.resolve("empty"));
        assertEquals(2, ember("report", tmp.resolve("empty").toString()));
        assertTrue(err().startsWith("ember report: no trace files (*.log) in " + tmp.resolve("empty")), err());

        err.reset();
        Path notATrace = Files.createDirectories(tmp.resolve("build-logs"));
        Files.writeString(notATrace.resolve("build.log"), "[INFO] BUILD SUCCESS\n[INFO] Total time: 3 s\n");
        assertEquals(2, ember("report", notATrace.toString()));
        assertTrue(err().startsWith("ember report: " + notATrace + " is not a trace: no line of [build.log] is a trace event (build.log:1: not a trace event line"), err());
        assertTrue(err().contains("Name the directory a program wrote with EMBER_TRACE=<dir>."), err());

        err.reset();
        assertEquals(2, ember("report", writeTrace().toString(), "--frobnicate"));
        assertTrue(err().startsWith("ember report: unknown option --frobnicate"), err());
    }

    @Test
    void aCorruptTraceStillGivesAReportAndAWarning() throws Exception {
        Path trace = writeTrace();
        try (var files = Files.list(trace)) {
            Path log = files.filter(p -> p.toString().endsWith(".log")).findFirst().orElseThrow();
            Files.writeString(log, "garbage line\n" + Files.readString(log));
        }
        assertEquals(0, ember("report", trace.toString()), err());
        assertTrue(out().contains("warning: 1 problem(s) reading the trace"), out());
        assertTrue(out().contains(":1: not a trace event line"), out());
    }

    @Test
    void helpListsTheReportCommand() {
        assertEquals(0, ember("--help"));
        assertTrue(out().contains("ember report <trace dir> [-o <out dir>]"), out());
        out.reset();
        assertEquals(0, ember("report", "--help"));
        assertTrue(out().startsWith("usage: ember report"), out());
    }
}
