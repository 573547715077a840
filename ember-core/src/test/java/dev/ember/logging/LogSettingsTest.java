package dev.ember.logging;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LogSettingsTest {
    private static Loggable entry(String name) {
        return LogRegistry.find(name).orElseThrow();
    }

    @Test
    void plainNameIsInfoPlusIsDebugMinusIsError() {
        LogSettings s = LogSettings.parse("dynamo, +aot ,-inductor", "EMBER_LOGS");
        assertEquals(Map.of("dynamo", Level.INFO, "aot", Level.DEBUG, "inductor", Level.ERROR), s.levels());
        assertEquals(Level.WARNING, s.levelOf("dynamic"), "unnamed components stay at WARNING");
        assertTrue(s.isEnabled(entry("dynamo"), Level.INFO));
        assertFalse(s.isEnabled(entry("dynamo"), Level.DEBUG));
        assertTrue(s.isEnabled(entry("aot"), Level.DEBUG));
        assertFalse(s.isEnabled(entry("inductor"), Level.WARNING), "-inductor hides its warnings");
        assertTrue(s.isEnabled(entry("inductor"), Level.ERROR));
        assertTrue(s.isEnabled(entry("dynamic"), Level.WARNING));
        assertFalse(s.isEnabled(entry("dynamic"), Level.INFO));
    }

    @Test
    void allSetsEveryComponent() {
        LogSettings s = LogSettings.parse("+all", "EMBER_LOGS");
        for (String c : new String[] {"dynamo", "aot", "inductor", "dynamic"}) assertEquals(Level.DEBUG, s.levelOf(c), c);
        assertTrue(s.artifacts().isEmpty(), "all names components, not artifacts");
        assertEquals(Level.INFO, LogSettings.parse("all", "x").levelOf("inductor"));
        assertEquals(Level.DEBUG, LogSettings.parse("all,+dynamo", "x").levelOf("dynamo"), "a later name overrides all");
    }

    @Test
    void artifactsAreOffByDefaultAndOnWhenNamed() {
        Loggable graphCode = entry("graph_code");
        assertFalse(LogSettings.DEFAULT.isEnabled(graphCode, Level.INFO));
        assertFalse(LogSettings.parse("dynamo", "x").isEnabled(graphCode, Level.INFO), "dynamo at INFO does not show artifacts");
        LogSettings named = LogSettings.parse("graph_code", "x");
        assertEquals(Set.of("graph_code"), named.artifacts());
        assertTrue(named.isEnabled(graphCode, Level.DEBUG));
        assertFalse(named.isEnabled(entry("guards"), Level.INFO), "naming one artifact leaves the others off");
        assertFalse(named.isEnabled(entry("dynamo"), Level.INFO), "naming an artifact leaves its component at WARNING");
    }

    @Test
    void debugComponentShowsItsArtifactsExceptTheOffByDefaultOnes() {
        LogSettings s = LogSettings.parse("+dynamo", "x");
        assertTrue(s.isEnabled(entry("graph_code"), Level.INFO));
        assertTrue(s.isEnabled(entry("guards"), Level.DEBUG));
        assertFalse(s.isEnabled(entry("bytecode"), Level.INFO), "bytecode is off by default");
        assertFalse(s.isEnabled(entry("recompiles_verbose"), Level.INFO));
        assertFalse(s.isEnabled(entry("aot_graphs"), Level.INFO), "another component's artifact");
        assertTrue(LogSettings.parse("+dynamo,bytecode", "x").isEnabled(entry("bytecode"), Level.INFO));
    }

    @Test
    void helpAndBlanksAreAccepted() {
        LogSettings s = LogSettings.parse(" help , ,graph_breaks,", "EMBER_LOGS");
        assertTrue(s.help());
        assertEquals(Set.of("graph_breaks"), s.artifacts());
        assertEquals(LogSettings.DEFAULT, LogSettings.parse("", "EMBER_LOGS"));
    }

    @Test
    void unknownNameIsAnErrorListingTheValidNamesAndTheNearest() {
        var e = assertThrows(IllegalArgumentException.class, () -> LogSettings.parse("graph_break,+dynamo", "EMBER_LOGS"));
        String m = e.getMessage();
        assertTrue(m.startsWith("EMBER_LOGS=\"graph_break,+dynamo\": unknown log name 'graph_break'. Did you mean 'graph_breaks'?"), m);
        for (String name : new String[] {"all", "dynamo", "graph_breaks", "graph_code", "graph_sizes", "guards", "recompiles",
                "recompiles_verbose", "bytecode", "pre_grad_graphs", "post_grad_graphs", "aot_graphs", "output_code", "schedule",
                "fusion", "perf_hints", "dynamic", "trace_source"}) {
            assertTrue(m.contains(" " + name + ",") || m.contains(" " + name + "."), "lists " + name + ": " + m);
        }
        var far = assertThrows(IllegalArgumentException.class, () -> LogSettings.parse("+zzzzzzzzzz", "Ember.setLogs"));
        assertTrue(far.getMessage().startsWith("Ember.setLogs=\"+zzzzzzzzzz\": unknown log name 'zzzzzzzzzz'. Valid names:"),
                far.getMessage());
    }

    @Test
    void helpTextNamesEveryEntryAndMarksOffByDefaultOnes() {
        String help = LogRegistry.help();
        for (Loggable l : LogRegistry.all()) assertTrue(help.contains(l.name()), l.name());
        assertTrue(help.contains("bytecode*"));
        assertTrue(help.contains("+name   a component at DEBUG"));
    }
}
