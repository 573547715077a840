package dev.ember.report;

import dev.ember.logging.CompileId;
import dev.ember.logging.JsonReader;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a trace file (docs/trace-format.md) into events. Never throws on bad content: a line it cannot use
 * becomes a {@link TraceProblem} and reading goes on with the next event.
 */
final class TraceParser {
    private TraceParser() {}

    /** The envelope prefix, as glog writes it and tlparse reads it. */
    private static final Pattern GLOG = Pattern.compile(
            "([VIWEC])(\\d{4} \\d{2}:\\d{2}:\\d{2}\\.\\d{6}) (\\d+) ([^:]+):(\\d+)\\] (.*)");

    /** Envelope keys that are not the event name. */
    private static final Set<String> CONTEXT_KEYS = Set.of("rank", "compiled_autograd_id", "frame_id", "frame_compile_id",
            "attempt", "has_payload", "stack");

    record Result(List<TraceEvent> events, List<TraceProblem> problems) {}

    static Result parse(Path file) throws IOException {
        List<TraceEvent> events = new ArrayList<>();
        List<TraceProblem> problems = new ArrayList<>();
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file))).toString();
        } catch (CharacterCodingException e) {
            problems.add(new TraceProblem(file, 0, "not UTF-8 text: is this a trace file?"));
            return new Result(events, problems);
        }
        String[] lines = text.split("\r?\n", -1);
        Map<Long, String> strings = new HashMap<>();
        int i = 0;
        while (i < lines.length) {
            String line = lines[i];
            int lineNo = ++i;
            if (line.isEmpty()) continue;
            if (line.charAt(0) == '\t') {
                int orphans = 1;
                while (i < lines.length && !lines[i].isEmpty() && lines[i].charAt(0) == '\t') {
                    orphans++;
                    i++;
                }
                problems.add(new TraceProblem(file, lineNo, orphans + " payload line(s) with no event before them"));
                continue;
            }
            Matcher m = GLOG.matcher(line);
            if (!m.matches()) {
                problems.add(new TraceProblem(file, lineNo, "not a trace event line (expected 'V<MMDD> <time> <pid> <file>:<line>] {json}'): "
                        + abbreviate(line)));
                continue;
            }
            StringBuilder payload = null;
            int payloadLines = 0;
            while (i < lines.length && !lines[i].isEmpty() && lines[i].charAt(0) == '\t') {
                if (payload == null) payload = new StringBuilder();
                else payload.append('\n');
                payload.append(lines[i], 1, lines[i].length());
                payloadLines++;
                i++;
            }
            Map<String, Object> envelope;
            try {
                envelope = JsonReader.parseObject(m.group(6));
            } catch (IllegalArgumentException e) {
                problems.add(new TraceProblem(file, lineNo, "event is not valid JSON (" + e.getMessage() + "): " + abbreviate(m.group(6))));
                continue;
            }
            String kind = envelope.keySet().stream().filter(k -> !CONTEXT_KEYS.contains(k)).findFirst().orElse(null);
            if (kind == null) {
                problems.add(new TraceProblem(file, lineNo, "event has no name (only context keys): " + abbreviate(m.group(6))));
                continue;
            }
            Object meta = envelope.get(kind);
            if (kind.equals("str")) {
                if (meta instanceof List<?> l && l.size() == 2 && l.get(0) instanceof String s && l.get(1) instanceof Long id) {
                    strings.put(id, s);
                } else {
                    problems.add(new TraceProblem(file, lineNo, "'str' event is not [string, number]: " + abbreviate(m.group(6))));
                }
                continue;
            }
            String text0 = payload == null ? null : payload.toString();
            Object expected = envelope.get("has_payload");
            if (expected != null) {
                if (text0 == null) {
                    problems.add(new TraceProblem(file, lineNo, "event '" + kind + "' announces a payload but none follows"));
                } else if (!md5(text0).equalsIgnoreCase(String.valueOf(expected))) {
                    problems.add(new TraceProblem(file, lineNo, "payload of event '" + kind + "' (" + payloadLines
                            + " lines) does not match its MD5 " + expected + ": the file was cut or edited"));
                }
            } else if (text0 != null) {
                problems.add(new TraceProblem(file, lineNo + 1, "payload lines after event '" + kind + "', which announced none"));
                text0 = null;
            }
            CompileId id = compileId(envelope);
            resolveStack(meta, strings);
            events.add(new TraceEvent(file, lineNo, Long.parseLong(m.group(3)), m.group(2), kind, meta, envelope, id, text0));
        }
        return new Result(events, problems);
    }

    private static CompileId compileId(Map<String, Object> envelope) {
        if (envelope.get("frame_id") instanceof Long frame && envelope.get("frame_compile_id") instanceof Long compile) {
            long attempt = envelope.get("attempt") instanceof Long a ? a : 0;
            if (frame >= 0 && compile >= 0 && attempt >= 0) return new CompileId(frame.intValue(), compile.intValue(), (int) attempt);
        }
        return null;
    }

    /** Replaces interned file numbers in a {@code stack} by their names ({@code (unknown)} if never defined). */
    @SuppressWarnings("unchecked")
    private static void resolveStack(Object meta, Map<Long, String> strings) {
        if (!(meta instanceof Map<?, ?> m) || !(m.get("stack") instanceof List<?> stack)) return;
        for (Object f : stack) {
            if (f instanceof Map<?, ?> frame && frame.get("filename") instanceof Long id) {
                ((Map<String, Object>) frame).put("filename", strings.getOrDefault(id, "(unknown)"));
            }
        }
    }

    static String md5(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no MD5, which every Java SE platform must provide", e);
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 120 ? s : s.substring(0, 117) + "...";
    }
}
