package dev.ember.logging;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One structured-trace file, in TORCH_TRACE's format: per event one line
 * {@code V1122 03:14:15.123456 <pid> <File.java>:<line>] {json}}, then the payload (if any), each of its lines
 * prefixed by a tab; {@code has_payload} in the JSON is the MD5 of the payload. Each event is written whole and
 * flushed, under a lock, so threads never interleave and a crash loses at most the event being written.
 */
final class TraceWriter implements Closeable {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("MMdd HH:mm:ss.SSSSSS").withZone(ZoneId.systemDefault());
    private static final long PID = ProcessHandle.current().pid();

    private final Path file;
    private final BufferedWriter out;
    private final Map<String, Integer> interned = new HashMap<>();

    private TraceWriter(Path file, BufferedWriter out) {
        this.file = file;
        this.out = out;
    }

    /** Creates a new trace file in {@code dir}: {@code dedicated_log_ember_trace_<pid>.log}, or _2, _3… if taken. */
    static TraceWriter create(Path dir) throws IOException {
        for (int n = 1; ; n++) {
            Path file = dir.resolve("dedicated_log_ember_trace_" + PID + (n == 1 ? "" : "_" + n) + ".log");
            try {
                return new TraceWriter(file, Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE));
            } catch (FileAlreadyExistsException taken) {
                // another trace of this process already wrote here: take the next number
            }
        }
    }

    Path file() {
        return file;
    }

    /**
     * Writes one event.
     *
     * @param name     the event's key: {@code dynamo_start}, {@code artifact}, …
     * @param metadata the value under that key (a map, or a list for {@code str}); may intern strings
     * @param id       the compile id to record, or null for none
     * @param payload  the payload text, or null
     * @param caller   {@code File.java:line} of the code that logged the event
     */
    synchronized void write(String name, Supplier<?> metadata, CompileId id, String payload, String caller) {
        Object meta = metadata.get();
        StringBuilder sb = new StringBuilder(256);
        sb.append('V').append(TIME.format(Instant.now())).append(' ').append(PID).append(' ').append(caller).append("] {");
        JsonWriter.string(sb, name);
        sb.append(": ");
        JsonWriter.write(sb, meta);
        if (id != null) {
            sb.append(", \"frame_id\": ").append(id.frameId())
              .append(", \"frame_compile_id\": ").append(id.frameCompileId())
              .append(", \"attempt\": ").append(id.attempt());
        }
        if (payload != null) sb.append(", \"has_payload\": \"").append(md5(payload)).append('"');
        sb.append("}\n");
        if (payload != null) {
            for (String line : payload.split("\n", -1)) sb.append('\t').append(line).append('\n');
        }
        try {
            out.write(sb.toString());
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("EMBER_TRACE: cannot write to " + file + ": " + e.getMessage(), e);
        }
    }

    /** The number standing for {@code s} in stacks; the first use writes a {@code str} event defining it. */
    synchronized int intern(String s, String caller) {
        Integer known = interned.get(s);
        if (known != null) return known;
        int id = interned.size();
        interned.put(s, id);
        write("str", () -> List.of(s, id), null, null, caller);
        return id;
    }

    static String md5(String payload) {
        try {
            MessageDigest md = MessageDigest.getInstance("MD5");
            return HexFormat.of().formatHex(md.digest(payload.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no MD5, which every Java SE platform must provide", e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
