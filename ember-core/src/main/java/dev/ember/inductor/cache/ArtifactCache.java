package dev.ember.inductor.cache;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.function.Consumer;

/**
 * Compiled graphs on disk, one file per key, so a later process skips code generation. A file is
 * {@code magic, hash(payload), length, payload} ({@link Hash128}); the payload starts with its own key. A read
 * checks all of it — a truncated, corrupt, tampered or misfiled entry is reported (through
 * {@code problems}) and treated as a miss, never loaded. A write goes to a temporary file in the
 * same folder and is renamed into place atomically, so concurrent processes see an old entry, a
 * new one, or none — never half of one.
 */
public final class ArtifactCache {
    private static final byte[] MAGIC = "EMBERIND2".getBytes(StandardCharsets.US_ASCII);

    private static final int HASH = 16;

    private final Path dir;
    private final Consumer<String> problems;

    public ArtifactCache(Path dir, Consumer<String> problems) {
        this.dir = dir;
        this.problems = problems;
    }

    /** {@code EMBER_CACHE_DIR}, else {@code ~/.cache/ember/inductor}. */
    public static Path defaultDir() {
        String env = System.getProperty("ember.cache.dir", System.getenv("EMBER_CACHE_DIR"));
        if (env != null && !env.isBlank()) return Path.of(env);
        return Path.of(System.getProperty("user.home"), ".cache", "ember", "inductor");
    }

    public Path dir() { return dir; }

    /** A key from the things that decide the generated code. */
    public static String key(String... parts) {
        StringBuilder sb = new StringBuilder();
        for (String p : parts) sb.append(p).append('\0');
        byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
        return HexFormat.of().formatHex(Hash128.of(bytes, 0, bytes.length));
    }

    public Path path(String key) { return dir.resolve(key + ".emberc"); }

    /** The payload stored under {@code key}, or null on a miss (including a rejected entry). */
    public byte[] get(String key) {
        Path p = path(key);
        byte[] file;
        try {
            if (!Files.exists(p)) return null;
            file = Files.readAllBytes(p);
        } catch (IOException e) {
            problems.accept("cannot read cache entry " + p + ": " + e.getMessage());
            return null;
        }
        String bad = check(key, file);
        if (bad != null) {
            problems.accept("rejected cache entry " + p + " (" + bad + "); rebuilding it");
            return null;
        }
        byte[] payload = Arrays.copyOfRange(file, MAGIC.length + HASH + 4, file.length);
        return Arrays.copyOfRange(payload, 2 + key.getBytes(StandardCharsets.UTF_8).length, payload.length);
    }

    private static String check(String key, byte[] file) {
        int header = MAGIC.length + HASH + 4;
        if (file.length < header) return "truncated: " + file.length + " bytes";
        if (!Arrays.equals(file, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) return "not an Ember cache file";
        int len = ByteBuffer.wrap(file, MAGIC.length + HASH, 4).getInt();
        if (len != file.length - header) return "truncated or padded: payload of " + (file.length - header) + " bytes, header says " + len;
        byte[] hash = Hash128.of(file, header, file.length);
        if (!Arrays.equals(hash, 0, HASH, file, MAGIC.length, MAGIC.length + HASH)) return "content hash mismatch";
        try {
            String stored = new DataInputStream(new ByteArrayInputStream(file, header, len)).readUTF();
            if (!stored.equals(key)) return "entry is for key " + stored;
        } catch (IOException e) {
            return "unreadable key";
        }
        return null;
    }

    /** Stores {@code data} under {@code key} (write to a temporary file, then rename). Failures are reported, not thrown. */
    public void put(String key, byte[] data) {
        try {
            Files.createDirectories(dir);
            ByteArrayOutputStream payload = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(payload);
            out.writeUTF(key);
            out.write(data);
            byte[] body = payload.toByteArray();
            ByteBuffer file = ByteBuffer.allocate(MAGIC.length + HASH + 4 + body.length);
            file.put(MAGIC).put(Hash128.of(body, 0, body.length)).putInt(body.length).put(body);
            Path tmp = Files.createTempFile(dir, key, ".tmp");
            try {
                Files.write(tmp, file.array());
                try {
                    Files.move(tmp, path(key), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, path(key), StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            problems.accept("cannot write cache entry " + path(key) + ": " + e.getMessage());
        }
    }
}
