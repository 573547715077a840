package dev.ember.inductor.cache;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;

/**
 * Whether the cache folder can be trusted: whoever can write to it, or to a folder above it, could
 * put a class there that Ember loads and runs as this user (the MAC stops a forged entry, but not
 * a swapped key file or folder). So the folder must belong to this user and be writable by no one
 * else, unless it has the sticky bit (others may add files, never rename or delete this user's);
 * each folder above it must be writable by no one but its owner, or sticky (like {@code /tmp}).
 * Owners of the folders above are not checked: {@code /home} belongs to root, and a project
 * folder may belong to someone else without letting them write into this user's folder.
 */
final class CacheFolder {
    private CacheFolder() {}

    private static final String FIX = "point EMBER_CACHE_DIR at a folder only you can write";

    /** Why {@code dir} (which exists) cannot hold the cache, or null when it can. */
    static String refusal(Path dir, UserPrincipal me) throws IOException {
        Path real = dir.toRealPath();
        PosixFile folder = PosixFile.of(real);
        if (!folder.owner().equals(me)) {
            return "the cache folder " + real + " belongs to user " + folder.owner().getName() + ", not to you (" + me.getName()
                    + "), who could put code there that Ember would run as you; " + FIX;
        }
        if (folder.othersCanWrite() && !folder.sticky()) {
            return "the cache folder " + real + " can be written by other users (" + folder.mode()
                    + "), who could put code there that Ember would run as you; run `chmod go-w " + real + "`, or " + FIX;
        }
        for (Path p = real.getParent(); p != null; p = p.getParent()) {
            PosixFile above = PosixFile.of(p);
            if (above.othersCanWrite() && !above.sticky()) {
                return "the folder " + p + ", which holds the cache folder " + real + ", can be written by other users (" + above.mode()
                        + "), who could replace the cache folder with their own; run `chmod go-w " + p + "`, or " + FIX;
            }
        }
        return null;
    }
}
