package dev.ember.inductor.cache;

import dev.ember.logging.Level;

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
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Compiled graphs on disk, one file per key, so a later process skips code generation. A file is
 * {@code magic, hash(payload), length, payload, mac}: {@link Hash128} tells a damaged entry from a
 * forged one, and the MAC ({@link HmacSha256} of every byte before it, keyed with this user's
 * {@link CacheKey}) proves the entry was written by this user's Ember — anyone else who can edit a
 * file can recompute a hash, not the MAC. The payload starts with its own key. A read checks all
 * of it; a truncated, corrupt, forged or misfiled entry is reported (a warning), deleted and treated
 * as a miss, never loaded. A write goes to a temporary file in the same folder and is renamed into
 * place atomically, so concurrent processes see an old entry, a new one, or none — never half of one.
 *
 * <p>The folder and key are checked on first use ({@link CacheFolder}, {@link CacheKey}); if either
 * cannot be trusted the cache is off for the life of this object, with one warning saying why.
 */
public final class ArtifactCache {
    private static final byte[] MAGIC = "EMBERIND3".getBytes(StandardCharsets.US_ASCII);

    private static final int HASH = 16;
    private static final int HEADER = MAGIC.length + HASH + 4;
    /** Folders the cache creates (it and any missing parents) are its owner's alone. */
    private static final FileAttribute<?> OWNER_ONLY_FOLDER = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

    /** What the cache reports: a warning when it refuses something, info when a read or write fails, debug for an unchecked folder. */
    public record Problem(Level level, String message) {}

    private final Path dir;
    private final Consumer<Problem> problems;
    /** Null until first use; then the MAC of this user's key, or empty when the cache is off. */
    private volatile Optional<HmacSha256> mac;

    public ArtifactCache(Path dir, Consumer<Problem> problems) {
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

    /** Whether the folder and key passed their checks (made on first use), so entries are read and written. */
    public boolean enabled() { return mac().isPresent(); }

    private Optional<HmacSha256> mac() {
        Optional<HmacSha256> m = mac;
        if (m != null) return m;
        synchronized (this) {
            if (mac == null) mac = open();
            return mac;
        }
    }

    private Optional<HmacSha256> open() {
        try {
            boolean posix = PosixFile.supported(dir);
            Files.createDirectories(dir, posix ? new FileAttribute<?>[] {OWNER_ONLY_FOLDER} : new FileAttribute<?>[0]);
            UserPrincipal me = null;
            if (posix) {
                me = PosixFile.currentUser(dir);
                String why = CacheFolder.refusal(dir, me);
                if (why != null) return off(why);
            } else {
                problems.accept(new Problem(Level.DEBUG, "the cache folder " + dir + " is on a file system without POSIX permissions;"
                        + " who may write to it and to its key is not checked"));
            }
            return Optional.of(new HmacSha256(CacheKey.loadOrCreate(dir, me)));
        } catch (CacheKey.Refused e) {
            return off(e.getMessage());
        } catch (IOException e) {
            problems.accept(new Problem(Level.INFO, "cannot use the cache folder " + dir + " (" + e + "); compiling without the disk cache"));
            return Optional.empty();
        }
    }

    private Optional<HmacSha256> off(String why) {
        problems.accept(new Problem(Level.WARNING, "not using the compiled-code cache: " + why
                + ". Ember compiles as usual, without the disk cache, for the rest of this process."));
        return Optional.empty();
    }

    /** The payload stored under {@code key}, or null on a miss (including a rejected entry, which is deleted). */
    public byte[] get(String key) {
        HmacSha256 m = mac().orElse(null);
        if (m == null) return null;
        BackgroundWrites.await(path(key));
        Path p = path(key);
        byte[] file;
        try {
            if (!Files.exists(p)) return null;
            file = Files.readAllBytes(p);
        } catch (IOException e) {
            problems.accept(new Problem(Level.INFO, "cannot read cache entry " + p + ": " + e.getMessage()));
            return null;
        }
        String bad = check(m, key, file);
        if (bad != null) {
            reject(key, bad);
            return null;
        }
        return Arrays.copyOfRange(file, HEADER + 2 + key.getBytes(StandardCharsets.UTF_8).length, file.length - HmacSha256.LENGTH);
    }

    /** Reports the entry under {@code key} as unusable ({@code why}), and deletes it so that it is rebuilt. */
    public void reject(String key, String why) {
        problems.accept(new Problem(Level.WARNING, "rejected cache entry " + path(key) + " (" + why + "); deleted it, the graph is compiled again"));
        evict(key);
    }

    /** Deletes the entry under {@code key}, if any. */
    public void evict(String key) {
        BackgroundWrites.await(path(key));
        try {
            Files.deleteIfExists(path(key));
        } catch (IOException e) {
            problems.accept(new Problem(Level.WARNING, "cannot delete cache entry " + path(key) + " (" + e + "); delete it by hand"));
        }
    }

    private String check(HmacSha256 mac, String key, byte[] file) {
        if (file.length < HEADER + HmacSha256.LENGTH) return "truncated: " + file.length + " bytes";
        if (!Arrays.equals(file, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) return "not an Ember cache file of this version";
        int len = ByteBuffer.wrap(file, MAGIC.length + HASH, 4).getInt();
        int payloadEnd = file.length - HmacSha256.LENGTH;
        if (len != payloadEnd - HEADER) return "truncated or padded: payload of " + (payloadEnd - HEADER) + " bytes, header says " + len;
        byte[] hash = Hash128.of(file, HEADER, payloadEnd);
        if (!Arrays.equals(hash, 0, HASH, file, MAGIC.length, MAGIC.length + HASH)) return "content hash mismatch";
        if (!MessageDigest.isEqual(mac.of(file, 0, payloadEnd), Arrays.copyOfRange(file, payloadEnd, file.length))) {
            return "not authenticated: its MAC does not match your key " + dir.resolve(CacheKey.FILE)
                    + ", so it was written with another key or edited since";
        }
        try {
            String stored = new DataInputStream(new ByteArrayInputStream(file, HEADER, len)).readUTF();
            if (!stored.equals(key)) return "entry is for key " + stored;
        } catch (IOException e) {
            return "unreadable key";
        }
        return null;
    }

    /** Stores {@code data} under {@code key} (write to a temporary file, then rename). Failures are reported, not thrown. */
    public void put(String key, byte[] data) {
        HmacSha256 m = mac().orElse(null);
        if (m == null) return;
        try {
            ByteArrayOutputStream payload = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(payload);
            out.writeUTF(key);
            out.write(data);
            byte[] body = payload.toByteArray();
            ByteBuffer file = ByteBuffer.allocate(HEADER + body.length + HmacSha256.LENGTH);
            file.put(MAGIC).put(Hash128.of(body, 0, body.length)).putInt(body.length).put(body);
            file.put(m.of(file.array(), 0, file.position()));
            Path tmp = TempFiles.create(dir, key, ".tmp");
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
            problems.accept(new Problem(Level.INFO, "cannot write cache entry " + path(key) + ": " + e.getMessage()));
        }
    }

    /**
     * Stores {@code data.get()} under {@code key} as {@link #put} does, on the process's one
     * cache-writer thread: encoding an entry, printing its source and computing its MAC run as
     * interpreted code in a fresh JVM (about 75 ms of the encoder's first training step, JFR), and
     * the compile that called this has no use for the file. A later {@link #get} or {@link #evict}
     * of the same entry in this process waits for its write, and the JVM's exit waits for all (for at
     * most {@value BackgroundWrites#EXIT_WAIT_SECONDS} s), so an entry is where {@code put} would have
     * left it. A failure is reported as {@code put}'s are.
     */
    public void putLater(String key, Supplier<byte[]> data) {
        if (!enabled()) return;
        BackgroundWrites.submit(path(key), () -> {
            byte[] bytes;
            try {
                bytes = data.get();
            } catch (RuntimeException e) {
                problems.accept(new Problem(Level.INFO, "cannot write cache entry " + path(key) + ": " + e));
                return;
            }
            put(key, bytes);
        });
    }

    /** Waits until every entry this process handed to {@link #putLater} is written (or has failed). */
    public static void awaitWrites() { BackgroundWrites.await(null); }

    /** The process's cache-writer thread and the entries handed to it and not yet written, counted by file. */
    private static final class BackgroundWrites {
        static final int EXIT_WAIT_SECONDS = 30;
        private static ExecutorService writer;
        private static final Map<Path, Integer> pending = new HashMap<>();

        static synchronized void submit(Path entry, Runnable write) {
            if (writer == null) {
                try {
                    Runtime.getRuntime().addShutdownHook(new Thread(BackgroundWrites::awaitAtExit, "ember-cache-writes-at-exit"));
                } catch (IllegalStateException shuttingDown) {
                    write.run();
                    return;
                }
                writer = Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, "ember-cache-writer");
                    t.setDaemon(true);
                    return t;
                });
            }
            pending.merge(entry, 1, Integer::sum);
            writer.execute(() -> {
                try {
                    write.run();
                } finally {
                    done(entry);
                }
            });
        }

        private static synchronized void done(Path entry) {
            pending.computeIfPresent(entry, (p, n) -> n == 1 ? null : n - 1);
            BackgroundWrites.class.notifyAll();
        }

        /** Waits for the pending writes of {@code entry}, or of every entry when it is null. */
        static synchronized void await(Path entry) {
            boolean interrupted = false;
            while (entry == null ? !pending.isEmpty() : pending.containsKey(entry)) {
                try {
                    BackgroundWrites.class.wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
        }

        private static synchronized void awaitAtExit() {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(EXIT_WAIT_SECONDS);
            try {
                for (long left; !pending.isEmpty() && (left = end - System.nanoTime()) > 0; ) TimeUnit.NANOSECONDS.timedWait(BackgroundWrites.class, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
