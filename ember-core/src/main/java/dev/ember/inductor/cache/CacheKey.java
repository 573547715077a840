package dev.ember.inductor.cache;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Set;

/**
 * The per-user secret that authenticates cache entries: 32 random bytes in {@code hmac.key} inside
 * the cache folder, readable and writable by its owner only. Kept in the folder it protects, so
 * that {@code rm -r} of the folder clears both, and a key never outlives the entries it signed.
 * Created as a temporary file with mode {@code rw-------} from the start (never widened and then
 * narrowed), then hard-linked into place, which fails if another process got there first: both
 * then use the first key, so neither rejects the other's entries.
 */
final class CacheKey {
    private CacheKey() {}

    static final String FILE = "hmac.key";
    static final int LENGTH = 32;

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    /** A key file that cannot be used; the message says why and what to do. */
    static final class Refused extends Exception {
        Refused(String message) { super(message); }
    }

    /** The key in {@code folder}, made on first use. {@code me} is null on a file system without POSIX permissions. */
    static byte[] loadOrCreate(Path folder, UserPrincipal me) throws IOException, Refused {
        Path file = folder.resolve(FILE);
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) create(file);
        String fix = "; delete the cache folder (`rm -r " + folder + "`, Ember makes a new key and rebuilds it) or point EMBER_CACHE_DIR elsewhere";
        if (me != null) {
            PosixFile key = PosixFile.of(file);
            if (!key.regular()) throw new Refused("the cache key " + file + " is not a regular file (" + key.mode() + ")" + fix);
            if (!key.owner().equals(me)) {
                throw new Refused("the cache key " + file + " belongs to user " + key.owner().getName() + ", not to you (" + me.getName()
                        + "), who could sign entries that Ember would run as you" + fix);
            }
            if (!OWNER_ONLY.containsAll(key.permissions())) {
                throw new Refused("the cache key " + file + " can be read or written by other users (" + key.mode()
                        + "), who could sign entries that Ember would run as you; `chmod 600` is not enough, as it may have been read" + fix);
            }
        }
        long size = Files.size(file);
        if (size != LENGTH) throw new Refused("the cache key " + file + " holds " + size + " bytes, not a " + LENGTH + "-byte key" + fix);
        return Files.readAllBytes(file);
    }

    private static void create(Path file) throws IOException {
        byte[] key = TempFiles.randomBytes(LENGTH);
        Path tmp = TempFiles.create(file.getParent(), FILE, ".tmp");   // owner-only where there are permissions
        try {
            Files.write(tmp, key);
            try {
                Files.createLink(file, tmp);
            } catch (FileAlreadyExistsException raced) {
                // another process made the key first: use theirs
            } catch (UnsupportedOperationException noHardLinks) {
                try {
                    Files.move(tmp, file);
                } catch (FileAlreadyExistsException raced) {
                    // as above
                }
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
