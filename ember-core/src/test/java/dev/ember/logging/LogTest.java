package dev.ember.logging;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LogTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private PrintStream previous;

    @BeforeEach
    void capture() {
        previous = Logs.output();
        Logs.setOutput(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        Logs.install(LogSettings.DEFAULT);
        Logs.setOutput(previous);
    }

    private List<String> lines() {
        String s = bytes.toString(StandardCharsets.UTF_8);
        return s.isEmpty() ? List.of() : List.of(s.split("\n"));
    }

    @Test
    void lineCarriesLevelTimeCompileIdAndName() {
        Logs.install(LogSettings.parse("graph_breaks", "test"));
        try (var c = CompileContext.enter(CompileId.of(0, 1))) {
            Log.of("graph_breaks").info(() -> "Graph break in user code at MyApp.java:7");
        }
        List<String> out = lines();
        assertEquals(1, out.size());
        assertTrue(out.getFirst().matches("I\\d{4} \\d{2}:\\d{2}:\\d{2}\\.\\d{3} \\[0/1\\] \\[graph_breaks\\] Graph break in user code at MyApp\\.java:7"),
                out.getFirst());
    }

    @Test
    void attemptShowsAfterAnUnderscoreAndNoIdOutsideACompilation() {
        Logs.install(LogSettings.parse("+dynamo", "test"));
        try (var c = CompileContext.enter(new CompileId(3, 0, 2))) {
            Log.of("dynamo").debug("restarting analysis");
        }
        Log.of("dynamo").warning("outside");
        List<String> out = lines();
        assertTrue(out.get(0).matches("V\\d{4} [\\d:.]+ \\[3/0_2\\] \\[dynamo\\] restarting analysis"), out.get(0));
        assertTrue(out.get(1).matches("W\\d{4} [\\d:.]+ \\[dynamo\\] outside"), out.get(1));
    }

    @Test
    void everyLineOfAMultiLineMessageGetsThePrefix() {
        Logs.install(LogSettings.parse("graph_code", "test"));
        try (var c = CompileContext.enter(CompileId.of(1, 0))) {
            Log.artifact("graph_code", () -> "graph(x: f32[3]):\n    relu = aten.relu.default(x)\n    return (relu,)");
        }
        List<String> out = lines();
        assertEquals(3, out.size());
        for (String l : out) assertTrue(l.matches("I[\\d :.]+ \\[1/0\\] \\[graph_code\\] .*"), l);
        assertTrue(out.get(1).endsWith("[graph_code]     relu = aten.relu.default(x)"), out.get(1));
    }

    @Test
    void artifactsAreOffByDefaultAndOnWhenNamed() {
        AtomicInteger built = new AtomicInteger();
        Log.artifact("graph_code", () -> "graph " + built.incrementAndGet());
        Log.of("guards").info(() -> "guard " + built.incrementAndGet());
        assertEquals(0, built.get(), "nothing is built when off");
        assertTrue(lines().isEmpty());
        assertFalse(Log.of("graph_code").isEnabled(Level.INFO));

        Logs.install(LogSettings.parse("guards", "test"));
        Log.artifact("graph_code", () -> "graph " + built.incrementAndGet());
        Log.of("guards").info(() -> "guard " + built.incrementAndGet());
        assertEquals(1, built.get());
        assertEquals(1, lines().size());
        assertTrue(lines().getFirst().endsWith("[guards] guard 1"));
    }

    @Test
    void warningsShowByDefaultAndMinusHidesThem() {
        Log.of("dynamo").warning("recompile limit (8) reached for MyApp.fn");
        Log.of("dynamo").info("not shown");
        assertEquals(1, lines().size());
        Logs.install(LogSettings.parse("-dynamo", "test"));
        Log.of("dynamo").warning("hidden");
        Log.of("dynamo").error("shown");
        assertEquals(2, lines().size());
        assertTrue(lines().get(1).startsWith("E"));
    }

    @Test
    void isEnabledByNameMatchesTheSettings() {
        Logs.install(LogSettings.parse("+inductor,recompiles", "test"));
        assertTrue(Logs.isEnabled("inductor", Level.DEBUG));
        assertTrue(Logs.isEnabled("post_grad_graphs", Level.INFO));
        assertFalse(Logs.isEnabled("output_code", Level.INFO), "off by default");
        assertTrue(Logs.isEnabled("recompiles", Level.INFO));
        assertFalse(Logs.isEnabled("recompiles_verbose", Level.INFO));
        assertFalse(Logs.isEnabled("dynamo", Level.INFO));
    }

    @Test
    void setWorksWhenEmberLogsIsUnsetAndRejectsUnknownNames() {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv(Logs.ENV) == null, "EMBER_LOGS is set: it wins over set()");
        Logs.set("recompiles");
        assertTrue(Logs.isEnabled("recompiles", Level.INFO));
        var e = assertThrows(IllegalArgumentException.class, () -> Logs.set("recompile"));
        assertTrue(e.getMessage().contains("Did you mean 'recompiles'?"), e.getMessage());
        assertTrue(Logs.isEnabled("recompiles", Level.INFO), "a bad call leaves the settings as they were");
    }

    @Test
    void helpIsPrintedWhenAskedFor() {
        Logs.install(LogSettings.parse("help", "test"));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("EMBER_LOGS (like TORCH_LOGS)"));
        assertTrue(out.contains("recompiles_verbose*"));
    }

    @Test
    void unknownLogAndArtifactOfAComponentAreErrors() {
        var e = assertThrows(IllegalArgumentException.class, () -> Log.of("graph_brakes"));
        assertTrue(e.getMessage().contains("Did you mean 'graph_breaks'?"), e.getMessage());
        var c = assertThrows(IllegalArgumentException.class, () -> Log.artifact("dynamo", () -> "x"));
        assertTrue(c.getMessage().contains("'dynamo' is a component log, not an artifact"), c.getMessage());
    }
}
