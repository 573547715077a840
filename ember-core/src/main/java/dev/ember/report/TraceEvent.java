package dev.ember.report;

import dev.ember.logging.CompileId;

import java.nio.file.Path;
import java.util.Map;

/**
 * One event read back from a trace file.
 *
 * @param file      the trace file it came from
 * @param line      the line of its envelope (1-based)
 * @param pid       the process that wrote it
 * @param time      its timestamp as written ({@code MMDD HH:MM:SS.micros})
 * @param kind      the event's key: {@code dynamo_start}, {@code artifact}, …
 * @param metadata  the value under that key (a map for most events)
 * @param envelope  the whole JSON object of the line
 * @param compileId the compilation it belongs to, or null
 * @param payload   the payload text, or null when the event has none
 */
public record TraceEvent(Path file, int line, long pid, String time, String kind, Object metadata, Map<String, Object> envelope,
                         CompileId compileId, String payload) {

    /** A string field of the metadata, or null. */
    public String metaString(String key) {
        return metadata instanceof Map<?, ?> m && m.get(key) instanceof String s ? s : null;
    }
}
