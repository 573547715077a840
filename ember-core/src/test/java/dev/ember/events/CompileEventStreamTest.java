package dev.ember.events;

import dev.ember.BackendCompilerFailed;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.dynamo.Unsupported;
import dev.ember.events.CompileEvent.BackendErrorSuppressed;
import dev.ember.events.CompileEvent.Bytecode;
import dev.ember.events.CompileEvent.CacheHit;
import dev.ember.events.CompileEvent.CacheMiss;
import dev.ember.events.CompileEvent.EagerFallback;
import dev.ember.events.CompileEvent.FrameCompiled;
import dev.ember.events.CompileEvent.FrameFailed;
import dev.ember.events.CompileEvent.FrameStarted;
import dev.ember.events.CompileEvent.GraphBreak;
import dev.ember.events.CompileEvent.GraphCaptured;
import dev.ember.events.CompileEvent.GraphCompiled;
import dev.ember.events.CompileEvent.PhaseEnded;
import dev.ember.events.CompileEvent.PhaseStarted;
import dev.ember.events.CompileEvent.Recompile;
import dev.ember.events.CompileEvent.RecompileLimitHit;
import dev.ember.events.CompileEvent.Restart;
import dev.ember.fx.Backend;
import dev.ember.logging.Logs;
import dev.ember.logging.Trace;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a compile publishes, in order, and that each thing is published once. */
class CompileEventStreamTest {
    private static final String T = "CompileEventStreamTest.";

    static Tensor oneBreak(Tensor x) {
        Tensor y = x.add(1.0).relu();
        double s = y.select(0, 0).select(0, 0).item();
        return y.mul((int) s > 0 ? 2.0 : 3.0);   // an int made of s decides: the resume trace restarts with s a constant
    }

    static Tensor twice(Tensor x) { return x.t().t(); }

    static Tensor scaledTanh(Tensor x) { return x.mul(2.0).tanh(); }

    static Tensor runaway(Tensor x) {
        long n = 0;
        for (int i = 0; i < 10_000_000; i++) n += i;
        return n > 0 ? x.t() : x;
    }

    static Tensor sine(Tensor x) { return x.sin(); }

    @AfterEach
    void reset() { Ember.reset(); }

    /** The events this thread publishes while {@code body} runs, each shown in a line. */
    private static List<String> recorded(Runnable body) {
        return recordedEvents(body).stream().map(CompileEventStreamTest::show).toList();
    }

    /** Runs {@code body} with log lines (the warnings some of these compiles give) kept off the test's output. */
    private static void quietly(Runnable body) {
        PrintStream stderr = Logs.output();
        Logs.setOutput(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            Logs.setOutput(stderr);
        }
    }

    private static List<CompileEvent> recordedEvents(Runnable body) {
        List<CompileEvent> events = new ArrayList<>();
        Thread me = Thread.currentThread();
        try (var s = Ember.events().subscribe(e -> {
            if (Thread.currentThread() == me) events.add(e);
        })) {
            body.run();
        }
        return events;
    }

    private static String show(CompileEvent e) {
        return switch (e) {
            case Recompile r -> "Recompile " + r.function() + " " + r.failedGuards();
            case FrameStarted f -> "FrameStarted " + f.function() + " compile " + f.id().frameCompileId();
            case Restart r -> "Restart " + r.function() + " after attempt " + r.restarted().attempt();
            case PhaseStarted p -> "PhaseStarted " + p.phase();
            case PhaseEnded p -> "PhaseEnded " + p.phase();
            case GraphBreak b -> "GraphBreak " + b.gbId() + " at " + b.userFrame();
            case Bytecode b -> "Bytecode " + (b.generated() == null ? "none generated" : "generated after " + b.breakAt());
            case GraphCaptured g -> "GraphCaptured " + g.function();
            case GraphCompiled g -> "GraphCompiled " + g.function() + " ops=" + g.ops();
            case EagerFallback f -> "EagerFallback " + f.function() + " " + f.gbId();
            case BackendErrorSuppressed s -> "BackendErrorSuppressed " + s.function();
            case FrameCompiled f -> "FrameCompiled " + f.function() + " graphs=" + f.graphs() + " compiles=" + f.compiles() + " breaks=" + f.breaks()
                    + " ops=" + f.ops();
            case FrameFailed f -> "FrameFailed " + f.function() + " " + f.error().getClass().getSimpleName() + " " + f.reason().lines().findFirst().orElse("");
            case RecompileLimitHit h -> "RecompileLimitHit " + h.function() + " " + h.limit();
            case CacheHit h -> "CacheHit";
            case CacheMiss m -> "CacheMiss";
        };
    }

    private static int lineOf(String marker) {
        try {
            List<String> lines = Files.readAllLines(Path.of("src/test/java/dev/ember/events/CompileEventStreamTest.java"));
            for (int i = 0; i < lines.size(); i++) if (lines.get(i).contains(marker)) return i + 1;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("no line holds " + marker);
    }

    @Test
    void aGraphBreakThenItsResumeMethod() {
        var f = Ember.compile(CompileEventStreamTest::oneBreak, Options.backend("eager"));
        int item = lineOf(".item();");
        String at = "CompileEventStreamTest.java:" + item + " in " + T + "oneBreak";
        String resume = T + "resume_in_oneBreak_at_" + item;
        assertEquals(List.of(
                "FrameStarted " + T + "oneBreak compile 0",
                "PhaseStarted TRACING",
                "PhaseEnded TRACING",
                "GraphBreak GB0001 at " + at,
                "PhaseStarted RESUME_CODEGEN",
                "PhaseEnded RESUME_CODEGEN",
                "Bytecode generated after " + at,
                "GraphCaptured " + T + "oneBreak",
                "PhaseStarted BACKEND",
                "PhaseEnded BACKEND",
                "GraphCompiled " + T + "oneBreak ops=4",
                "FrameCompiled " + T + "oneBreak graphs=1 compiles=1 breaks=1 ops=4",
                "FrameStarted " + resume + " compile 0",
                "PhaseStarted TRACING",
                "Restart " + resume + " after attempt 0",   // s * 2 > 0 needs the double s, a graph input: traced again with s a constant
                "PhaseEnded TRACING",
                "Bytecode none generated",
                "GraphCaptured " + resume,
                "PhaseStarted BACKEND",
                "PhaseEnded BACKEND",
                "GraphCompiled " + resume + " ops=1",
                "FrameCompiled " + resume + " graphs=1 compiles=1 breaks=0 ops=1"), recorded(() -> f.apply(Tensor.randn(3, 4))));
    }

    @Test
    void aNewShapeRecompilesNamingTheFailedGuard() {
        var f = Ember.compile(CompileEventStreamTest::twice, Options.backend("eager"));
        f.apply(Tensor.randn(2, 3));
        List<CompileEvent> events = recordedEvents(() -> f.apply(Tensor.randn(5, 3)));
        assertEquals(List.of(
                "Recompile " + T + "twice [tensor 'x' size mismatch at index 0. expected 2, actual 5]",
                "FrameStarted " + T + "twice compile 1",
                "PhaseStarted TRACING",
                "PhaseEnded TRACING",
                "Bytecode none generated",
                "GraphCaptured " + T + "twice",
                "PhaseStarted BACKEND",
                "PhaseEnded BACKEND",
                "GraphCompiled " + T + "twice ops=2",
                "FrameCompiled " + T + "twice graphs=2 compiles=2 breaks=0 ops=4"), events.stream().map(CompileEventStreamTest::show).toList());
        Recompile r = assertInstanceOf(Recompile.class, events.getFirst());
        assertEquals("CompileEventStreamTest.java:" + lineOf("static Tensor twice("), r.where());
        assertEquals(1, r.failuresPerEntry().size());
        assertTrue(r.failuresPerEntry().getFirst().contains("tensor 'x' size mismatch at index 0. expected 2, actual 5"), r.toString());
        FrameStarted started = assertInstanceOf(FrameStarted.class, events.get(1));
        assertEquals(1, started.cacheSize());
        assertTrue(started.bytecode().get().contains("static Tensor twice(Tensor)\n     bci  instruction\n"), "the method's bytecode, read when asked for: " + started.bytecode().get());
    }

    @Test
    void theSecondCompileOfAGraphLoadsItFromTheInductorCache(@TempDir Path cache) {
        String before = System.getProperty("ember.cache.dir");
        System.setProperty("ember.cache.dir", cache.toString());
        try {
            Supplier<List<CompileEvent>> compileAndRun = () -> recordedEvents(
                    () -> Ember.compile(CompileEventStreamTest::scaledTanh, Options.backend("inductor")).apply(Tensor.randn(4, 5)));
            List<CompileEvent> cold = compileAndRun.get();
            Ember.reset();
            List<CompileEvent> warm = compileAndRun.get();
            List<String> around = List.of("FrameStarted " + T + "scaledTanh compile 0", "PhaseStarted TRACING", "PhaseEnded TRACING",
                    "Bytecode none generated", "GraphCaptured " + T + "scaledTanh", "PhaseStarted BACKEND", "%s", "PhaseEnded BACKEND",
                    "GraphCompiled " + T + "scaledTanh ops=2", "FrameCompiled " + T + "scaledTanh graphs=1 compiles=1 breaks=0 ops=2");
            assertEquals(around.stream().map(l -> l.formatted("CacheMiss")).toList(), cold.stream().map(CompileEventStreamTest::show).toList());
            assertEquals(around.stream().map(l -> l.formatted("CacheHit")).toList(), warm.stream().map(CompileEventStreamTest::show).toList());
            String key = cold.stream().filter(e -> e instanceof CacheMiss).map(e -> ((CacheMiss) e).key()).findFirst().orElseThrow();
            CacheHit hit = warm.stream().filter(e -> e instanceof CacheHit).map(CacheHit.class::cast).findFirst().orElseThrow();
            assertEquals(key, hit.key());
            assertTrue(hit.file().startsWith(cache.toRealPath()) || hit.file().startsWith(cache), hit.file().toString());
        } catch (IOException e) {
            throw new AssertionError(e);
        } finally {
            if (before == null) System.clearProperty("ember.cache.dir");
            else System.setProperty("ember.cache.dir", before);
        }
    }

    /** One break, one event: the logs, the trace, the debug folder and explain all hear of it from that event. */
    @Test
    void eachGraphBreakIsPublishedOnce(@TempDir Path dir) throws IOException {
        PrintStream stderr = Logs.output();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Logs.setOutput(new PrintStream(log, true, StandardCharsets.UTF_8));
        Ember.setLogs("graph_breaks");
        Path trace = Trace.start(dir);
        List<CompileEvent> events;
        int explained;
        try {
            events = recordedEvents(() -> {
                Ember.compile(CompileEventStreamTest::oneBreak, Options.backend("eager")).apply(Tensor.randn(3, 4));
            });
            explained = Ember.explain(CompileEventStreamTest::oneBreak).with(Tensor.randn(3, 4)).graphBreakCount();
        } finally {
            Trace.stop();
            Ember.setLogs("");
            Logs.setOutput(stderr);
        }
        assertEquals(1, events.stream().filter(e -> e instanceof GraphBreak).count(), events.toString());
        assertEquals(1, explained);
        String text = log.toString(StandardCharsets.UTF_8);
        // Two compiles of oneBreak (compile, then explain's own cache): one report each, in the log and in the trace.
        assertEquals(2, text.split("Graph break in user code at ", -1).length - 1, text);
        assertEquals(2, Files.readString(trace).split("\"dynamo_graph_break_reason\"", -1).length - 1);
    }

    @Test
    void aBreakUnderFullgraphFailsTheFrame() {
        var f = Ember.compile(CompileEventStreamTest::oneBreak, Options.backend("eager").fullgraph(true));
        List<String> events = new ArrayList<>();
        Thread me = Thread.currentThread();
        try (var s = Ember.events().subscribe(e -> {
            if (Thread.currentThread() == me) events.add(show(e));
        })) {
            assertThrows(Unsupported.class, () -> f.apply(Tensor.randn(3, 4)));
        }
        assertEquals(List.of("FrameStarted " + T + "oneBreak compile 0", "PhaseStarted TRACING", "PhaseEnded TRACING",
                "GraphBreak GB0001 at CompileEventStreamTest.java:" + lineOf(".item();") + " in " + T + "oneBreak",
                "FrameFailed " + T + "oneBreak Unsupported GB0001: Tensor.item() on a tensor (Tensor f32[]) reads tensor data"), events);
    }

    @Test
    void aBreakWithNoResumeFallsBackToEager() {
        var f = Ember.compile(CompileEventStreamTest::runaway, Options.backend("eager"));
        List<String> events = recorded(() -> f.apply(Tensor.randn(3, 4)));
        assertEquals("GraphBreak GB0010", events.get(3).substring(0, "GraphBreak GB0010".length()), events.toString());
        assertEquals(List.of("Bytecode none generated", "EagerFallback " + T + "runaway GB0010",
                "FrameCompiled " + T + "runaway graphs=0 compiles=1 breaks=1 ops=0"), events.subList(4, events.size()));
    }

    @Test
    void theRecompileLimitIsPublishedOnce() {
        var f = Ember.compile(CompileEventStreamTest::twice, Options.backend("eager").recompileLimit(1));
        f.apply(Tensor.randn(2, 3));
        List<String> events = recorded(() -> quietly(() -> {
            f.apply(Tensor.randn(3, 3));
            f.apply(Tensor.randn(4, 3));
        }));
        assertEquals(List.of("RecompileLimitHit " + T + "twice 1"), events);
    }

    /** A backend that fails: its compile ends with FrameFailed, and (new) its compilation metrics say why. */
    @Test
    void aFailingBackendFailsTheFrameAndTheTraceSaysWhy(@TempDir Path dir) throws IOException {
        Backend broken = (gm, in) -> { throw new IllegalStateException("no kernel"); };
        var f = Ember.compile(CompileEventStreamTest::sine, Options.backend(broken));
        Path trace = Trace.start(dir);
        List<String> events = new ArrayList<>();
        Thread me = Thread.currentThread();
        try (var s = Ember.events().subscribe(e -> {
            if (Thread.currentThread() == me) events.add(show(e));
        })) {
            assertThrows(BackendCompilerFailed.class, () -> f.apply(Tensor.randn(3)));
        } finally {
            Trace.stop();
        }
        assertTrue(events.getLast().startsWith("FrameFailed " + T + "sine BackendCompilerFailed "), events.toString());
        assertEquals("PhaseEnded BACKEND", events.get(events.size() - 2));
        assertTrue(Files.readString(trace).contains("\"fail_type\": \"BackendCompilerFailed\""));
        List<String> suppressed = recorded(() -> quietly(
                () -> Ember.compile(CompileEventStreamTest::sine, Options.backend(broken).suppressErrors(true)).apply(Tensor.randn(3))));
        assertTrue(suppressed.contains("BackendErrorSuppressed " + T + "sine"), suppressed.toString());
        assertEquals("FrameCompiled " + T + "sine graphs=1 compiles=1 breaks=0 ops=1", suppressed.getLast());
    }
}
