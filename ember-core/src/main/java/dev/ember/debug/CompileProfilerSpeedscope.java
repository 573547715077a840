package dev.ember.debug;

import dev.ember.logging.JsonWriter;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes {@link CompileProfiler}'s scopes in speedscope's file format: shared frames, and one evented profile
 * per thread whose events open ({@code O}) and close ({@code C}) frames at nanosecond offsets. Scopes still open
 * when written are closed at the profile's end, as the format needs balanced events.
 */
final class CompileProfilerSpeedscope {
    private CompileProfilerSpeedscope() {}

    record Event(long threadId, String threadName, String frame, boolean open, long nanos) {}

    static String write(List<Event> events) {
        Map<String, Integer> frameIndex = new LinkedHashMap<>();
        Map<Long, List<Event>> byThread = new LinkedHashMap<>();
        long origin = Long.MAX_VALUE;
        for (Event e : events) {
            frameIndex.computeIfAbsent(e.frame, k -> frameIndex.size());
            byThread.computeIfAbsent(e.threadId, k -> new ArrayList<>()).add(e);
            origin = Math.min(origin, e.nanos);
        }
        List<Object> frames = new ArrayList<>();
        for (String f : frameIndex.keySet()) frames.add(Map.of("name", f));

        List<Object> profiles = new ArrayList<>();
        for (List<Event> thread : byThread.values()) {
            List<Object> out = new ArrayList<>();
            Deque<Integer> open = new ArrayDeque<>();
            long first = thread.getFirst().nanos - origin, last = first;
            for (Event e : thread) {
                long at = e.nanos - origin;
                int frame = frameIndex.get(e.frame);
                if (e.open) {
                    open.push(frame);
                } else if (!open.isEmpty() && open.peek() == frame) {
                    open.pop();
                } else {
                    continue; // the close of a scope opened before a reset()
                }
                out.add(event(e.open ? "O" : "C", frame, at));
                last = at;
            }
            while (!open.isEmpty()) out.add(event("C", open.pop(), last));
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("type", "evented");
            p.put("name", "compile (" + thread.getFirst().threadName + ")");
            p.put("unit", "nanoseconds");
            p.put("startValue", first);
            p.put("endValue", last);
            p.put("events", out);
            profiles.add(p);
        }
        Map<String, Object> file = new LinkedHashMap<>();
        file.put("$schema", "https://www.speedscope.app/file-format-schema.json");
        file.put("shared", Map.of("frames", frames));
        file.put("profiles", profiles);
        file.put("name", "Ember compile profile");
        file.put("activeProfileIndex", 0);
        file.put("exporter", "ember CompileProfiler");
        return JsonWriter.write(file) + "\n";
    }

    private static Map<String, Object> event(String type, int frame, long at) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", type);
        m.put("frame", frame);
        m.put("at", at);
        return m;
    }
}
