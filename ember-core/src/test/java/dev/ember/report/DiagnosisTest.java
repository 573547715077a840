package dev.ember.report;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.logging.Trace;
import dev.ember.report.Diagnosis.Finding;
import dev.ember.report.Diagnosis.Kind;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The run-time costs compiled code measures while tracing, the ranking ember doctor prints from them, and the trace's stacks and attempt ids. */
class DiagnosisTest {
    @TempDir
    Path tmp;

    @AfterEach
    void stop() {
        Trace.stop();
        Ember.reset();
    }

    /** Two JDK calls Ember cannot trace (GB0003), each run eagerly between graphs: 5 ms, then 15 ms a call. */
    static Tensor twoBreaks(Tensor x) {
        Tensor y = x.relu();
        LockSupport.parkNanos(5_000_000L);
        Tensor z = y.mul(2);
        LockSupport.parkNanos(15_000_000L);
        return z.add(1);
    }

    static Tensor scale(Tensor x) {
        return x.relu().mul(2);
    }

    @Test
    void eachBreakCostsItsOwnEagerTimeNotTheResumeMethodsAfterIt() throws IOException {
        Trace.start(tmp);
        var f = Ember.compile(DiagnosisTest::twoBreaks);
        for (int i = 0; i < 10; i++) f.apply(Tensor.randn(3));
        Trace.stop();

        Diagnosis d = Diagnosis.read(tmp);
        assertEquals(2, d.totals().graphBreaks());
        assertEquals(0, d.totals().recompiles());
        List<Finding> breaks = d.findings();
        assertEquals(List.of(Kind.GRAPH_BREAK, Kind.GRAPH_BREAK), breaks.stream().map(Finding::kind).toList());
        Finding second = breaks.get(0), first = breaks.get(1);
        assertEquals(List.of("GB0003", line("LockSupport.parkNanos(15_000_000L);"), 10L), List.of(second.gbId(), second.where(), second.count()));
        assertEquals(List.of("GB0003", line("LockSupport.parkNanos(5_000_000L);"), 10L), List.of(first.gbId(), first.where(), first.count()));
        assertTrue(first.why().startsWith("Unsupported function call: "), first.why());
        // parkNanos sleeps at least as long as asked (bar a rare early wake-up, hence 0.9); were the resume method
        // after the first break counted as its eager time, the first would hold the second's time and more
        assertTrue(first.cost() >= 0.9 * 0.050, "first break: " + first.cost() + " s");
        assertTrue(second.cost() >= 0.9 * 0.150, "second break: " + second.cost() + " s");
        assertTrue(first.cost() < second.cost(), "the first break's time holds none of the second's: " + first.cost() + " s, " + second.cost() + " s");
        assertTrue(d.totals().guardTime() > 0, "guards were checked and timed");
    }

    @Test
    void aRecompileCostsItsCompileTimeAndNamesTheGuardThatFailed() throws IOException {
        Trace.start(tmp);
        var f = Ember.compile(DiagnosisTest::scale);
        f.apply(Tensor.randn(3));
        f.apply(Tensor.randn(5));
        f.apply(Tensor.randn(7));
        Trace.stop();

        Diagnosis d = Diagnosis.read(tmp);
        assertEquals(1, d.totals().recompiles(), "the second size makes dim 0 a symbol: no third compile");
        Finding r = d.findings().getFirst();
        assertEquals(Kind.RECOMPILE, r.kind());
        assertEquals("DiagnosisTest.scale", r.function());
        assertEquals(line("return x.relu().mul(2);"), r.where());
        assertTrue(r.why().contains("tensor 'x' size mismatch at index 0. expected 3, actual 5"), r.why());
        assertEquals(1, r.compileIds().size());
        assertTrue(r.compileIds().getFirst().endsWith("/1"), "the method's second compile: " + r.compileIds());
        assertTrue(r.cost() > 0, "its compile time");
    }

    private static void callsIt() {
        Ember.compile(DiagnosisTest::scale).apply(Tensor.randn(3));
    }

    @Test
    void theStackTrieShowsWhoCalledTheCompiledFunction() throws IOException {
        Trace.start(tmp);
        callsIt();
        Trace.stop();
        ReportModel m = ReportModel.read(tmp);
        List<Frame> stack = m.compilations.values().iterator().next().stack;
        assertEquals("scale", stack.getLast().name().replaceAll(".*\\.", ""), "the compiled method last: " + stack);
        Frame caller = stack.get(stack.size() - 2);
        assertEquals(List.of("DiagnosisTest.callsIt", line("Ember.compile(DiagnosisTest::scale).apply(Tensor.randn(3));")),
                List.of(caller.name(), caller.file().replaceAll(".*/", "") + ":" + caller.line()));
        assertEquals("DiagnosisTest.theStackTrieShowsWhoCalledTheCompiledFunction", stack.get(stack.size() - 3).name());
    }

    /** A branch on an int made of a double input (Java's d2i saturates, a cast does not): the trace restarts with the double a guarded constant. */
    static Tensor branchOnDouble(Tensor x, double s) {
        if ((int) (s * 2) > 1) return x.mul(s);
        return x.neg();
    }

    /** A restart of the analysis gets an attempt id of its own ({@code [0/0_1]}), as PyTorch's trace and tlparse show it. */
    @Test
    void theRestartedAttemptAndTheNextAreTwoCompilations() throws IOException {
        Trace.start(tmp.resolve("trace"));
        Fn2<Tensor, Double, Tensor> f = Ember.compile(DiagnosisTest::branchOnDouble);
        f.apply(Tensor.randn(3), 0.9);
        Trace.stop();

        List<Compilation> cs = List.copyOf(ReportModel.read(tmp.resolve("trace")).compilations.values());
        assertEquals(2, cs.size(), "the attempt that restarted, and the one that compiled");
        Compilation restarted = cs.get(0), next = cs.get(1);
        assertEquals(List.of(0, 1), List.of(restarted.id.attempt(), next.id.attempt()));
        assertEquals(restarted.id.frameId() + "/0_1", next.id.toString());
        assertTrue(restarted.restartReasons().getFirst().startsWith("specializing "), restarted.restartReasons().toString());
        assertEquals(Status.COMPILED, next.status());
        assertNotNull(next.stack, "the new attempt has a dynamo_start of its own");

        Report.generate(tmp.resolve("trace"), tmp.resolve("out"));
        assertTrue(Files.isRegularFile(tmp.resolve("out").resolve(restarted.id.frameId() + "_0_1/index.html")));
        String failures = Files.readString(tmp.resolve("out").resolve("failures_and_restarts.html"));
        assertTrue(failures.contains("<td>Restart</td><td><pre>specializing "), failures);
    }

    /** {@code DiagnosisTest.java:42}: where {@code code} is in this file. */
    private static String line(String code) {
        try {
            List<String> lines = Files.readAllLines(Path.of("src/test/java/dev/ember/report/DiagnosisTest.java"));
            for (int i = 0; i < lines.size(); i++) if (lines.get(i).strip().equals(code)) return "DiagnosisTest.java:" + (i + 1);
            throw new AssertionError("not in this file: " + code);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
