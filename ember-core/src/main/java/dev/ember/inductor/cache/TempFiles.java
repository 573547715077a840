package dev.ember.inductor.cache;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cache's temporary files and its key's random bytes, without {@code java.security}: both
 * {@link Files#createTempFile} (its names) and {@code new SecureRandom()} initialise the security
 * providers, ~50 ms of a fresh JVM's first compile (more on a loaded machine), for a temporary
 * file's name. A temporary file here is made as {@code createTempFile} makes one (a new file, never
 * an existing one, readable and writable by its owner alone where permissions exist), named by
 * process, thread and a counter; the key's bytes come from the kernel's random source, which is
 * what {@code SecureRandom} reads on Linux and macOS, and from {@code SecureRandom} elsewhere.
 */
final class TempFiles {
    private TempFiles() {}

    private static final AtomicLong NEXT = new AtomicLong();
    private static final Path URANDOM = Path.of("/dev/urandom");

    /** A new empty file {@code prefix + "." + unique + suffix} in {@code dir}, owner-only where the file system has POSIX permissions. */
    static Path create(Path dir, String prefix, String suffix) throws IOException {
        FileAttribute<?>[] ownerOnly = PosixFile.supported(dir)
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
        String unique = ProcessHandle.current().pid() + "-" + Thread.currentThread().threadId() + "-";
        for (int attempt = 0; ; attempt++) {
            Path p = dir.resolve(prefix + "." + unique + NEXT.getAndIncrement() + suffix);
            try {
                return Files.createFile(p, ownerOnly);   // CREATE_NEW: a file left by a dead process of the same pid is skipped
            } catch (FileAlreadyExistsException e) {
                if (attempt >= 1000) throw e;
            }
        }
    }

    /** {@code n} random bytes for a key. */
    static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        if (Files.isReadable(URANDOM)) {
            try (InputStream in = Files.newInputStream(URANDOM)) {
                if (in.readNBytes(b, 0, n) == n) return b;
            } catch (IOException e) {
                // fall back to SecureRandom below
            }
        }
        new SecureRandom().nextBytes(b);
        return b;
    }
}
