package dev.ember.logging;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * The shape of a log line: {@code I1122 03:14:15.123 [0/1] [graph_breaks] Graph break in user code at MyApp.java:7}.
 * Level letter and local time as glog (and so TORCH_LOGS) writes them, then the compile id when inside a
 * compilation, then the log name. A message of several lines gets the prefix on each, so grep finds them all.
 */
final class LogFormat {
    private LogFormat() {}

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("MMdd HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

    static String prefix(Level level, Instant time, CompileId id, String name) {
        StringBuilder sb = new StringBuilder(48).append(level.tag()).append(TIME.format(time)).append(' ');
        if (id != null) sb.append('[').append(id).append("] ");
        return sb.append('[').append(name).append("] ").toString();
    }

    static String format(Level level, Instant time, CompileId id, String name, String message) {
        String prefix = prefix(level, time, id, name);
        StringBuilder sb = new StringBuilder(prefix.length() + message.length() + 16);
        for (String line : message.split("\n", -1)) sb.append(prefix).append(line).append('\n');
        return sb.toString();
    }
}
