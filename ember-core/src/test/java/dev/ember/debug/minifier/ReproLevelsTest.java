package dev.ember.debug.minifier;

import dev.ember.BackendCompilerFailed;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.debug.AccuracyError;
import dev.ember.fx.Backends;
import dev.ember.fx.CompileMode;
import dev.ember.logging.Logs;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** EMBER_REPRO_AFTER / EMBER_REPRO_LEVEL (through their system properties), BackendCompilerFailed and suppressErrors, end to end through Ember.compile. */
class ReproLevelsTest {
    @TempDir
    Path tmp;
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private PrintStream savedLog;

    static Tensor fn(Tensor x, Tensor y) {
        Tensor z = x.add(y).exp();
        return z.mul(2.0).tanh();
    }

    static Tensor softmaxFn(Tensor x, Tensor y) {
        return x.softmax(1).add(y).exp();
    }

    @BeforeEach
    void setUp() {
        Ember.reset();
        savedLog = Logs.output();
        Logs.setOutput(new PrintStream(log, true, StandardCharsets.UTF_8));
        System.setProperty("ember.repro.dir", tmp.toString());
        for (SeededBug bug : SeededBug.values()) Backends.register(backendName(bug), new SeededBugBackend(bug));
    }

    @AfterEach
    void tearDown() {
        Logs.setOutput(savedLog);
        for (String p : List.of("ember.repro.dir", "ember.repro.after", "ember.repro.level", "ember.suppress.errors")) System.clearProperty(p);
        Ember.reset();
    }

    private static String backendName(SeededBug bug) { return "seeded_" + bug.name().toLowerCase(); }

    private static Fn2<Tensor, Tensor, Tensor> compiled(SeededBug bug, Options extra) {
        return Ember.compile(ReproLevelsTest::fn, extra == null ? Options.backend(backendName(bug)) : extra);
    }

    private static Tensor[] inputs() {
        Tensor.manualSeed(7);
        return new Tensor[] {Tensor.randn(3, 4), Tensor.randn(3, 4)};
    }

    @Test
    void aBackendThatThrowsIsWrappedNamingBackendGraphLinesAndWhatToDo() {
        Tensor[] in = inputs();
        var e = assertThrows(BackendCompilerFailed.class, () -> compiled(SeededBug.CRASH_COMPILING, null).apply(in[0], in[1]));
        String m = e.getMessage();
        assertTrue(m.startsWith("backend 'seeded_crash_compiling' failed to compile ReproLevelsTest.fn ["), m);
        assertTrue(m.contains("(graph of 4 ops from ReproLevelsTest.java:"), m);
        assertTrue(m.contains("IllegalStateException: seeded bug: no lowering for aten.exp.default"), m);
        assertTrue(m.contains("EMBER_REPRO_AFTER=dynamo EMBER_REPRO_LEVEL=2"), m);
        assertTrue(m.contains("Options.suppressErrors(true) or EMBER_SUPPRESS_ERRORS=1"), m);
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertNull(e.repro());
    }

    @Test
    void anAssertionErrorFromTheBackendIsABackendFailureToo() {
        Backends.register("asserting", (gm, fakes) -> {
            throw new AssertionError("generated class Graph_0 does not verify");
        });
        Tensor[] in = inputs();
        var e = assertThrows(BackendCompilerFailed.class, () -> Ember.compile(ReproLevelsTest::fn, Options.backend("asserting")).apply(in[0], in[1]));
        assertInstanceOf(AssertionError.class, e.getCause());
        assertTrue(e.getMessage().contains("): AssertionError: generated class Graph_0 does not verify"), e.getMessage());
    }

    @Test
    void level2WritesALauncherOnACompileErrorThatMinifiesToTheFaultyOp() {
        System.setProperty("ember.repro.after", "dynamo");
        Tensor[] in = inputs();
        var e = assertThrows(BackendCompilerFailed.class, () -> compiled(SeededBug.CRASH_COMPILING, null).apply(in[0], in[1]));
        Path dir = e.repro();
        assertNotNull(dir, e.getMessage());
        assertTrue(e.getMessage().contains("repro: ./ember minify " + dir), e.getMessage());
        Launcher l = Launcher.read(dir);
        assertEquals("compile_error", l.failure().kind());
        assertTrue(l.sourceLines().startsWith("ReproLevelsTest.java:"), l.sourceLines());
        assertEquals(in[0].toDoubleArray()[0], ((Tensor) l.inputs().get(0)).toDoubleArray()[0], "the real inputs are kept");
        Minifier.Result r = Minifier.minify(dir, new PrintStream(new ByteArrayOutputStream()));
        assertEquals(1, r.ops(), r.minified().graph().code());
        assertTrue(r.minified().graph().code().contains("aten.exp.default"), r.minified().graph().code());
    }

    @Test
    void withCompileDebugOnLaunchersGoToTheDebugRunFolder() {
        System.clearProperty("ember.repro.dir");
        System.setProperty("ember.repro.after", "dynamo");
        dev.ember.debug.CompileDebug.enable(tmp.resolve("debug"));
        try {
            Tensor[] in = inputs();
            var e = assertThrows(BackendCompilerFailed.class, () -> compiled(SeededBug.CRASH_COMPILING, null).apply(in[0], in[1]));
            assertEquals(dev.ember.debug.CompileDebug.runDirectory().resolve("minifier"), e.repro().getParent());
        } finally {
            dev.ember.debug.CompileDebug.disable();
        }
    }

    @Test
    void level1WritesARunnableRepro() throws Exception {
        System.setProperty("ember.repro.level", "1");
        Tensor[] in = inputs();
        var e = assertThrows(BackendCompilerFailed.class, () -> compiled(SeededBug.CRASH_COMPILING, null).apply(in[0], in[1]));
        assertTrue(e.repro().toString().endsWith("repro.java"), e.getMessage());
        String source = Files.readString(e.repro());
        assertTrue(source.contains("aten.exp.default") && source.contains("seeded_crash_compiling"), source);
    }

    @Test
    void level3WritesALauncherForAGraphThatCompiles() {
        System.setProperty("ember.repro.level", "3");
        Tensor[] in = inputs();
        Tensor out = compiled(null, Options.backend("eager")).apply(in[0], in[1]);
        assertEquals(fn(in[0], in[1]).toDoubleArray()[0], out.toDoubleArray()[0], 1e-6);
        try (var dirs = Files.list(tmp)) {
            Path dir = dirs.findFirst().orElseThrow();
            Launcher l = Launcher.read(dir);
            assertEquals("none", l.failure().kind());
            assertFalse(FailureCheck.check(l.graph(), l.inputs(), Backends.get("eager"), CompileMode.DEFAULT, l.tolerance()).failed());
        } catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    @Test
    void level4ThrowsOnAnInaccurateGraphWithAReportAndALauncher() {
        System.setProperty("ember.repro.level", "4");
        Tensor[] in = inputs();
        var e = assertThrows(AccuracyError.class, () -> compiled(SeededBug.WRONG_ADD, null).apply(in[0], in[1]));
        String m = e.getMessage();
        assertTrue(m.startsWith("accuracy failed for ReproLevelsTest.fn [") && m.contains("(ReproLevelsTest.java:"), m);
        assertTrue(m.contains("accuracy failed at output 0, element ") && m.contains("abs diff"), m);
        assertTrue(m.contains("tolerance 0.001") && m.contains("launcher: ./ember minify " + e.launcher()), m);
        Minifier.Result r = Minifier.minify(e.launcher(), new PrintStream(new ByteArrayOutputStream()));
        assertEquals(1, r.ops(), r.minified().graph().code());
        assertTrue(r.minified().graph().code().contains("aten.add.Tensor"), r.minified().graph().code());
    }

    @Test
    void level4PassesAnAccurateGraphAndUsesTheTolerance() {
        System.setProperty("ember.repro.level", "4");
        Tensor[] in = inputs();
        Tensor out = compiled(null, Options.backend("inductor")).apply(in[0], in[1]);
        assertEquals(fn(in[0], in[1]).toDoubleArray()[3], out.toDoubleArray()[3], 1e-5);
        // mul by a wrong scalar fails the default tolerance, and passes an absurd one
        Ember.reset();
        var e = assertThrows(AccuracyError.class, () -> compiled(SeededBug.WRONG_SCALAR, null).apply(in[0], in[1]));
        assertTrue(e.getMessage().contains("accuracy failed at output 0"), e.getMessage());
        Ember.reset();
        compiled(null, Options.backend(backendName(SeededBug.WRONG_SCALAR)).reproTolerance(10)).apply(in[0], in[1]);
    }

    @Test
    void level4AfterAotChecksThePostAotGraph() {
        System.setProperty("ember.repro.level", "4");
        System.setProperty("ember.repro.after", "aot");
        Tensor[] in = inputs();
        var e = assertThrows(AccuracyError.class,
                () -> Ember.compile(ReproLevelsTest::softmaxFn, Options.backend(backendName(SeededBug.WRONG_ADD))).apply(in[0], in[1]));
        assertTrue(e.getMessage().contains("graph after aot"), e.getMessage());
        Launcher l = Launcher.read(e.launcher());
        assertEquals(ReproStage.AOT, l.after());
        assertTrue(l.graph().code().contains("aten.amax.default"), "the decomposed softmax:\n" + l.graph().code());
    }

    @Test
    void level4WritesALauncherWhenTheFirstCallThrowsAndRethrows() throws Exception {
        System.setProperty("ember.repro.level", "4");
        Tensor[] in = inputs();
        var e = assertThrows(ArrayIndexOutOfBoundsException.class, () -> compiled(SeededBug.CRASH_RUNNING, null).apply(in[0], in[1]));
        assertTrue(e.getMessage().startsWith("seeded bug: the tanh kernel"), e.getMessage());
        Path dir;
        try (var dirs = Files.list(tmp)) {
            dir = dirs.findFirst().orElseThrow();
        }
        assertEquals("runtime_error", Launcher.read(dir).failure().kind());
        assertTrue(log.toString(StandardCharsets.UTF_8).contains("launcher: ./ember minify " + dir), log.toString(StandardCharsets.UTF_8));
        Minifier.Result r = Minifier.minify(dir, new PrintStream(new ByteArrayOutputStream()));
        assertTrue(r.ops() == 1 && r.minified().graph().code().contains("aten.tanh.default"), r.minified().graph().code());
    }

    @Test
    void afterAotKeepsTheDecomposedGraph() throws Exception {
        System.setProperty("ember.repro.after", "aot");
        Tensor[] in = inputs();
        var e = assertThrows(BackendCompilerFailed.class,
                () -> Ember.compile(ReproLevelsTest::softmaxFn, Options.backend(backendName(SeededBug.CRASH_COMPILING))).apply(in[0], in[1]));
        Launcher l = Launcher.read(e.repro());
        assertEquals(ReproStage.AOT, l.after());
        String graph = Files.readString(e.repro().resolve("graph.txt"));
        assertFalse(graph.contains("aten._softmax"), "softmax is decomposed after AOT:\n" + graph);
        Minifier.Result r = Minifier.minify(e.repro(), new PrintStream(new ByteArrayOutputStream()));
        assertEquals(1, r.ops(), r.minified().graph().code());
    }

    @Test
    void suppressErrorsRunsTheGraphEagerlyWithOneWarning() {
        Tensor[] in = inputs();
        var f = compiled(null, Options.backend(backendName(SeededBug.CRASH_COMPILING)).suppressErrors(true));
        Tensor first = f.apply(in[0], in[1]);
        Tensor second = f.apply(in[0], in[1]);
        assertEquals(fn(in[0], in[1]).toDoubleArray()[5], first.toDoubleArray()[5], 1e-6);
        assertEquals(first.toDoubleArray()[5], second.toDoubleArray()[5]);
        String text = log.toString(StandardCharsets.UTF_8);
        assertEquals(1, text.split("suppressErrors is on", -1).length - 1, text);
        assertTrue(text.contains("backend 'seeded_crash_compiling' failed to compile ReproLevelsTest.fn"), text);
    }

    @Test
    void theEnvironmentSwitchSuppressesToo() {
        System.setProperty("ember.suppress.errors", "1");
        Tensor[] in = inputs();
        Tensor out = compiled(SeededBug.CRASH_COMPILING, null).apply(in[0], in[1]);
        assertEquals(fn(in[0], in[1]).toDoubleArray()[0], out.toDoubleArray()[0], 1e-6);
        System.setProperty("ember.suppress.errors", "yes");
        Ember.reset();
        var e = assertThrows(IllegalArgumentException.class, () -> compiled(SeededBug.CRASH_COMPILING, null).apply(in[0], in[1]));
        assertTrue(e.getMessage().contains("EMBER_SUPPRESS_ERRORS=yes"), e.getMessage());
    }

    @Test
    void anUnknownStageOrLevelIsAClearError() {
        Tensor[] in = inputs();
        System.setProperty("ember.repro.after", "inductor");
        var e = assertThrows(IllegalArgumentException.class, () -> compiled(SeededBug.WRONG_ADD, null).apply(in[0], in[1]));
        assertTrue(e.getMessage().startsWith("EMBER_REPRO_AFTER=inductor: unknown stage; expected dynamo"), e.getMessage());
        System.setProperty("ember.repro.after", "dynamo");
        System.setProperty("ember.repro.level", "7");
        Ember.reset();
        e = assertThrows(IllegalArgumentException.class, () -> compiled(SeededBug.WRONG_ADD, null).apply(in[0], in[1]));
        assertTrue(e.getMessage().startsWith("EMBER_REPRO_LEVEL=7: expected 1"), e.getMessage());
    }
}
