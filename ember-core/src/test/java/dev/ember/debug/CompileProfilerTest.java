package dev.ember.debug;

import dev.ember.logging.JsonReader;
import dev.ember.logging.Trace;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CompileProfilerTest {
    @TempDir
    Path tmp;

    @AfterEach
    void off() {
        CompileProfiler.disable();
        CompileProfiler.reset();
        Trace.stop();
    }

    private static void busy(long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        while (System.nanoTime() < end) Thread.onSpinWait();
    }

    private static void compile(String fn, long tracing, long passes, long backend) {
        try (var f = CompileProfiler.function(fn)) {
            try (var t = CompileProfiler.phase("tracing")) {
                busy(tracing);
                try (var inner = CompileProfiler.phase("fake_tensor_prop")) { busy(1); }
            }
            try (var t = CompileProfiler.phase("passes")) { busy(passes); }
            try (var t = CompileProfiler.phase("backend")) { busy(backend); }
        }
    }

    /** The table's cells of a function's row, in milliseconds, by column name. */
    private static Map<String, Double> row(String table, String fn) {
        List<String> lines = table.lines().toList();
        List<String> header = List.of(lines.get(1).trim().split("\\s{2,}"));
        String line = lines.stream().filter(l -> l.startsWith(fn + " ")).findFirst().orElseThrow(() -> new AssertionError(table));
        String[] cells = line.substring(fn.length()).trim().split("\\s+");
        var m = new java.util.LinkedHashMap<String, Double>();
        for (int i = 1; i < header.size(); i++) m.put(header.get(i), Double.parseDouble(cells[i - 1].replace("-", "0")));
        return m;
    }

    @Test
    void tableHasAPhaseColumnsRowPerFunction() {
        CompileProfiler.enable();
        compile("MyApp.fn", 6, 2, 4);
        compile("MyApp.fn", 6, 2, 4);
        compile("Model.forward", 1, 1, 8);
        String table = CompileProfiler.table();
        assertTrue(table.lines().toList().get(1).matches("function\\s+compiles\\s+tracing\\s+passes\\s+backend\\s+other\\s+total"), table);
        Map<String, Double> fn = row(table, "MyApp.fn");
        assertEquals(2.0, fn.get("compiles"));
        assertTrue(fn.get("tracing") >= 14, "two compiles of >= 7 ms tracing (nested phase included): " + table);
        assertTrue(fn.get("backend") >= 8, table);
        double sum = fn.get("tracing") + fn.get("passes") + fn.get("backend") + fn.get("other");
        assertEquals(fn.get("total"), sum, 0.01, "phases and other add up to the total: " + table);
        Map<String, Double> fwd = row(table, "Model.forward");
        assertTrue(fwd.get("backend") > fwd.get("tracing"), table);
        Map<String, Double> total = row(table, "total");
        assertEquals(3.0, total.get("compiles"));
        assertEquals(fn.get("total") + fwd.get("total"), total.get("total"), 0.01);
        assertFalse(table.contains("fake_tensor_prop"), "nested phases are inside their parent's column");
    }

    @Test
    void speedscopeProfileIsBalancedAndNested() throws Exception {
        CompileProfiler.enable();
        compile("MyApp.fn", 1, 1, 1);
        Path file = tmp.resolve("profile.json");
        CompileProfiler.writeSpeedscope(file);
        Map<String, Object> json = JsonReader.parseObject(Files.readString(file));
        assertEquals("https://www.speedscope.app/file-format-schema.json", json.get("$schema"));
        List<?> frames = (List<?>) ((Map<?, ?>) json.get("shared")).get("frames");
        List<String> names = frames.stream().map(f -> (String) ((Map<?, ?>) f).get("name")).toList();
        assertEquals(List.of("MyApp.fn", "tracing", "fake_tensor_prop", "passes", "backend"), names);
        Map<?, ?> profile = (Map<?, ?>) ((List<?>) json.get("profiles")).getFirst();
        assertEquals("evented", profile.get("type"));
        assertEquals("nanoseconds", profile.get("unit"));
        List<?> events = (List<?>) profile.get("events");
        assertEquals(10, events.size());
        Deque<Long> open = new ArrayDeque<>();
        long at = -1;
        for (Object o : events) {
            Map<?, ?> e = (Map<?, ?>) o;
            long t = (Long) e.get("at");
            assertTrue(t >= at, "events in time order");
            at = t;
            if (e.get("type").equals("O")) open.push((Long) e.get("frame"));
            else assertEquals(open.pop(), e.get("frame"), "closes the innermost open frame");
        }
        assertTrue(open.isEmpty());
        assertEquals(at, profile.get("endValue"));
    }

    @Test
    void offIsASharedNoOpThatRecordsNothing() {
        assertFalse(CompileProfiler.isEnabled());
        var a = CompileProfiler.phase("tracing");
        var b = CompileProfiler.function("f");
        assertSame(a, b, "one shared no-op scope");
        a.close();
        b.close();
        assertFalse(CompileProfiler.table().contains("tracing"));
        assertFalse(CompileProfiler.speedscopeJson().contains("tracing"));
    }

    @Test
    void scopesBecomeChromiumEventsInTheTrace() throws Exception {
        Path file = Trace.start(tmp);
        compile("MyApp.fn", 0, 0, 0);
        Trace.stop();
        List<String> payloads = Files.readAllLines(file).stream().filter(l -> l.startsWith("\t")).toList();
        assertEquals(10, payloads.size());
        Map<String, Object> first = JsonReader.parseObject(payloads.getFirst().substring(1));
        assertEquals("MyApp.fn", first.get("name"));
        assertEquals("B", first.get("ph"));
        assertEquals("E", JsonReader.parseObject(payloads.getLast().substring(1)).get("ph"));
    }

    @Test
    void anExceptionInsideClosesTheInnerScopesFirst() {
        CompileProfiler.enable();
        try (var f = CompileProfiler.function("g")) {
            var leaked = CompileProfiler.phase("tracing"); // never closed by its owner
            busy(1);
        }
        String json = CompileProfiler.speedscopeJson();
        Map<?, ?> profile = (Map<?, ?>) ((List<?>) JsonReader.parseObject(json).get("profiles")).getFirst();
        List<?> events = (List<?>) profile.get("events");
        assertEquals(List.of("O", "O", "C", "C"), events.stream().map(e -> ((Map<?, ?>) e).get("type")).toList());
        assertTrue(row(CompileProfiler.table(), "g").get("tracing") >= 1);
    }
}
