package dev.ember.logging;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reads trace files back independently of the report's parser: envelope regex, JSON, MD5 of payloads. */
class TraceTest {
    private static final Pattern ENVELOPE = Pattern.compile("V(\\d{4}) (\\d{2}):(\\d{2}):(\\d{2})\\.(\\d{6}) (\\d+) ([^:\\s]+):(\\d+)\\] (\\{.*\\})");

    @TempDir
    Path tmp;

    @AfterEach
    void stop() {
        Trace.stop();
    }

    record Event(String caller, Map<String, Object> json, String payload) {}

    static List<Event> read(Path file) throws Exception {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<Event> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); ) {
            Matcher m = ENVELOPE.matcher(lines.get(i));
            assertTrue(m.matches(), "line " + (i + 1) + " is not an envelope: " + lines.get(i));
            assertEquals(ProcessHandle.current().pid(), Long.parseLong(m.group(6)));
            Map<String, Object> json = JsonReader.parseObject(m.group(9));
            i++;
            List<String> payload = new ArrayList<>();
            while (i < lines.size() && lines.get(i).startsWith("\t")) payload.add(lines.get(i++).substring(1));
            String text = payload.isEmpty() ? null : String.join("\n", payload);
            if (json.containsKey("has_payload")) {
                String md5 = HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8)));
                assertEquals(md5, json.get("has_payload"), "MD5 of the payload of line " + i);
            } else {
                assertNull(text, "payload without has_payload");
            }
            out.add(new Event(m.group(7) + ":" + m.group(8), json, text));
        }
        return out;
    }

    @Test
    void eventsHaveTheEnvelopeCompileIdAndPayloadChecksum() throws Exception {
        Path file = Trace.start(tmp);
        assertEquals(tmp.resolve("dedicated_log_ember_trace_" + ProcessHandle.current().pid() + ".log"), file);
        try (var c = CompileContext.enter(new CompileId(0, 1, 2))) {
            Trace.dynamoStart(List.of(new TraceFrame("dev/ember/examples/MyApp.java", 12, "MyApp.main", "f.apply(x, y);"),
                    new TraceFrame("dev/ember/examples/MyApp.java", 5, "MyApp.fn", null),
                    new TraceFrame("dev/ember/examples/Other.java", 3, "Other.g", null)));
            Map<String, List<Integer>> sizes = new LinkedHashMap<>();
            sizes.put("x", List.of(3, 4));
            sizes.put("relu", List.of(3, 4));
            Trace.outputGraph(sizes, () -> "graph(x: f32[3, 4]):\n    relu = aten.relu.default(x)\n    return (relu,)\n");
            Trace.guards(List.of("TENSOR_MATCH: L['x'] shape [3, 4]", "GLOBAL_STATE: grad mode on"));
            Trace.graphBreak("Graph break in user code at MyApp.java:7\r\nreason: \"print\"\ttab");
            Trace.recompileReasons(List.of("0/0: tensor 'x' size mismatch at index 0. expected 3, actual 5"));
            Trace.compilationMetrics(new CompilationMetrics().function("MyApp.fn", "dev/ember/examples/MyApp.java", 5)
                    .counts(2, 1, 3, 1).entireFrameCompileTime(Duration.ofMillis(4)).restartReason("graph break"));
        }
        Trace.event("outside", Map::of);
        List<Event> events = read(file);
        List<String> kinds = events.stream().map(e -> e.json.keySet().iterator().next()).toList();
        assertEquals(List.of("str", "str", "dynamo_start", "dynamo_output_graph", "dynamo_guards", "artifact", "artifact",
                "compilation_metrics", "outside"), kinds);

        assertEquals(List.of("dev/ember/examples/MyApp.java", 0L), events.get(0).json.get("str"));
        assertEquals(List.of("dev/ember/examples/Other.java", 1L), events.get(1).json.get("str"));
        assertFalse(events.get(0).json.containsKey("frame_id"), "str events carry no compile id");
        Map<?, ?> start = (Map<?, ?>) events.get(2).json.get("dynamo_start");
        List<?> stack = (List<?>) start.get("stack");
        assertEquals(Map.of("line", 12L, "name", "MyApp.main", "filename", 0L, "loc", "f.apply(x, y);"), stack.get(0));
        assertEquals(Map.of("line", 5L, "name", "MyApp.fn", "filename", 0L), stack.get(1), "file interned once");
        assertEquals(1L, ((Map<?, ?>) stack.get(2)).get("filename"));

        for (Event e : events.subList(2, 8)) {
            assertEquals(0L, e.json.get("frame_id"));
            assertEquals(1L, e.json.get("frame_compile_id"));
            assertEquals(2L, e.json.get("attempt"));
            assertEquals("TraceTest.java", e.caller.split(":")[0], "the caller, not the trace library");
        }
        assertFalse(events.get(8).json.containsKey("frame_id"), "outside a compilation");

        assertEquals(Map.of("sizes", Map.of("x", List.of(3L, 4L), "relu", List.of(3L, 4L))), events.get(3).json.get("dynamo_output_graph"));
        assertEquals("graph(x: f32[3, 4]):\n    relu = aten.relu.default(x)\n    return (relu,)\n", events.get(3).payload);
        assertEquals(List.of(Map.of("code", "TENSOR_MATCH: L['x'] shape [3, 4]"), Map.of("code", "GLOBAL_STATE: grad mode on")),
                JsonReader.parse(events.get(4).payload));
        assertEquals(Map.of("name", Trace.GRAPH_BREAK_REASON, "encoding", "string"), events.get(5).json.get("artifact"));
        assertEquals("Graph break in user code at MyApp.java:7\nreason: \"print\"\ttab", events.get(5).payload, "CRLF normalized");
        assertEquals(Map.of("name", Trace.RECOMPILE_REASONS, "encoding", "json"), events.get(6).json.get("artifact"));
        assertEquals(List.of("0/0: tensor 'x' size mismatch at index 0. expected 3, actual 5"), JsonReader.parse(events.get(6).payload));
        Map<?, ?> metrics = (Map<?, ?>) events.get(7).json.get("compilation_metrics");
        assertEquals("MyApp.fn", metrics.get("co_name"));
        assertEquals(2L, metrics.get("guard_count"));
        assertEquals(1L, metrics.get("graph_op_count"));
        assertEquals(0.004, metrics.get("entire_frame_compile_time_s"));
        assertEquals(List.of("graph break"), metrics.get("restart_reasons"));
    }

    @Test
    void concurrentWritersNeverInterleave() throws Exception {
        Path file = Trace.start(tmp);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int id = t;
            threads.add(Thread.ofPlatform().start(() -> {
                try (var c = CompileContext.enter(CompileId.of(id, 0))) {
                    for (int i = 0; i < 50; i++) {
                        int n = i;
                        Trace.artifact("a", () -> ("thread " + id + " event " + n + "\n").repeat(20));
                    }
                }
            }));
        }
        for (Thread t : threads) t.join();
        List<Event> events = read(file);
        assertEquals(400, events.size());
        for (Event e : events) {
            long frame = (Long) e.json.get("frame_id");
            assertTrue(e.payload.startsWith("thread " + frame + " event "), "payload of frame " + frame + ": " + e.payload);
        }
    }

    @Test
    void offMeansNoFileAndNoSupplierCalls() {
        assertFalse(Trace.isEnabled());
        AtomicInteger calls = new AtomicInteger();
        Trace.artifact("x", () -> "" + calls.incrementAndGet());
        Trace.event("y", () -> Map.of("n", calls.incrementAndGet()));
        assertEquals(0, calls.get());
        assertNull(Trace.file());
    }

    @Test
    void startTwiceInOneDirectoryUsesANewFileAndStopReturnsIt() throws Exception {
        Path first = Trace.start(tmp);
        Trace.event("one", Map::of);
        Path second = Trace.start(tmp);
        assertTrue(second.getFileName().toString().endsWith("_2.log"), second.toString());
        assertEquals(second, Trace.stop());
        assertEquals(1, read(first).size());
        assertFalse(Trace.isEnabled());
    }

    @Test
    void startOnAFileOrUnderAFileIsAClearError() throws Exception {
        Path file = Files.writeString(tmp.resolve("plain.txt"), "x");
        var e = assertThrows(IllegalArgumentException.class, () -> Trace.start(file));
        assertTrue(e.getMessage().contains(file + " is a file, not a directory"), e.getMessage());
        var under = assertThrows(IllegalArgumentException.class, () -> Trace.start(file.resolve("sub")));
        assertTrue(under.getMessage().contains("cannot create the trace directory"), under.getMessage());
        assertFalse(Trace.isEnabled());
    }
}
