package dev.ember.report;

import java.util.Map;

/**
 * A user stack frame of a {@code dynamo_start} event.
 *
 * @param file source file path
 * @param line line number (-1 if unknown)
 * @param name method name
 * @param loc  the source text of the line, or null
 */
record Frame(String file, int line, String name, String loc) {

    static Frame of(Map<?, ?> m) {
        return new Frame(m.get("filename") instanceof String f ? f : "(unknown)",
                m.get("line") instanceof Long l ? l.intValue() : -1,
                m.get("name") instanceof String n ? n : "(unknown)",
                m.get("loc") instanceof String s && !s.isBlank() ? s : null);
    }
}
