package dev.ember.debug.minifier;

import dev.ember.BackendCompilerFailed;
import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.debug.AccuracyError;
import dev.ember.fx.Backend;
import dev.ember.fx.Backends;
import dev.ember.logging.Logs;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The examples of docs/minifier.md, as written there. */
class MinifierDocsExampleTest {
    @TempDir
    Path tmp;
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private PrintStream savedLog;

    static Tensor fn(Tensor x, Tensor y) {
        Tensor z = x.add(y).exp();
        return z.mul(2.0).tanh();
    }

    @BeforeEach
    void setUp() {
        Ember.reset();
        savedLog = Logs.output();
        Logs.setOutput(new PrintStream(log, true, StandardCharsets.UTF_8));
        System.setProperty("ember.repro.dir", tmp.toString());
    }

    @AfterEach
    void tearDown() {
        Logs.setOutput(savedLog);
        for (String p : List.of("ember.repro.dir", "ember.repro.after", "ember.repro.level")) System.clearProperty(p);
        Ember.reset();
    }

    /** Registers the docs' buggy backends. */
    static void registerBackends() {
        // docs: a backend with a bug
        Backend noExp = (gm, inputs) -> {
            if (gm.code().contains("aten.exp.default")) throw new IllegalStateException("no lowering for aten.exp.default");
            return Backends.EAGER.compile(gm, inputs);
        };
        Backends.register("no_exp", noExp);
        // docs: a backend with a wrong answer
        Backend badTanh = (gm, inputs) -> {
            var compiled = Backends.EAGER.compile(gm, inputs);
            return args -> {
                Object[] out = compiled.run(args);
                out[0] = ((Tensor) out[0]).mul(1.01);     // 1% off
                return out;
            };
        };
        Backends.register("bad_tanh", badTanh);
    }

    @Test
    void backendCompilerFailedAndSuppressErrors() {
        registerBackends();
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(3, 4);
        // docs: BackendCompilerFailed
        var f = Ember.compile(MinifierDocsExampleTest::fn, Options.backend("no_exp"));
        var e = assertThrows(BackendCompilerFailed.class, () -> f.apply(x, y));
        String[] lines = e.getMessage().split("\n");
        assertTrue(lines[0].matches("backend 'no_exp' failed to compile MinifierDocsExampleTest\\.fn \\[\\d+/0] \\(graph of 4 ops from"
                + " MinifierDocsExampleTest\\.java:34-35\\): IllegalStateException: no lowering for aten\\.exp\\.default"), lines[0]);
        assertEquals("  to write a repro, run again with EMBER_REPRO_AFTER=dynamo EMBER_REPRO_LEVEL=2 (then ./ember minify <the folder it names>)", lines[1]);
        assertEquals("  to run the graph eagerly instead: Options.suppressErrors(true) or EMBER_SUPPRESS_ERRORS=1", lines[2]);

        // docs: suppressErrors
        var g = Ember.compile(MinifierDocsExampleTest::fn, Options.backend("no_exp").suppressErrors(true));
        Tensor out = g.apply(x, y);                 // one warning, then the graph runs eagerly
        assertEquals(fn(x, y).toDoubleArray()[0], out.toDoubleArray()[0], 1e-6);
        String warning = log.toString(StandardCharsets.UTF_8);
        assertTrue(warning.contains("suppressErrors is on: this graph runs eagerly (op by op) from now on"), warning);
    }

    @Test
    void level2LauncherThenMinify() {
        registerBackends();
        System.setProperty("ember.repro.after", "dynamo");      // as EMBER_REPRO_AFTER=dynamo (level 2 by default)
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(3, 4);
        var e = assertThrows(BackendCompilerFailed.class, () -> Ember.compile(MinifierDocsExampleTest::fn, Options.backend("no_exp")).apply(x, y));
        assertTrue(e.getMessage().contains("\n  repro: ./ember minify " + e.repro() + "   (replay once: ./ember minify " + e.repro() + " run)"), e.getMessage());
        // docs: minify from Java
        Minifier.Result r = Minifier.minify(e.repro(), System.out);
        System.out.println(r.minified().graph().code());
        assertEquals(1, r.ops());
        assertTrue(r.minified().graph().code().contains("Tensor exp = aten.exp.default(add);"), r.minified().graph().code());
    }

    @Test
    void level4AccuracyError() {
        registerBackends();
        System.setProperty("ember.repro.level", "4");           // as EMBER_REPRO_LEVEL=4
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(3, 4);
        var e = assertThrows(AccuracyError.class, () -> Ember.compile(MinifierDocsExampleTest::fn, Options.backend("bad_tanh")).apply(x, y));
        System.out.println(e.getMessage());
        assertTrue(e.getMessage().matches("(?s)accuracy failed for MinifierDocsExampleTest\\.fn \\[\\d+/0] \\(MinifierDocsExampleTest\\.java:34-35\\), "
                + "backend 'bad_tanh', graph after dynamo, tolerance 0\\.001:\n  accuracy failed at output 0, element \\d+: .*"), e.getMessage());
    }
}
