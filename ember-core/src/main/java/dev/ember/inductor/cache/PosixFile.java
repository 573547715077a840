package dev.ember.inductor.cache;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Set;

/** A file's owner and mode as the cache's trust checks need them (POSIX file systems only). */
record PosixFile(Path path, UserPrincipal owner, Set<PosixFilePermission> permissions, boolean sticky, boolean regular, boolean directory) {

    static boolean supported(Path p) {
        return p.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    /** The file itself, not what a symbolic link points to. */
    static PosixFile of(Path p) throws IOException {
        PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return new PosixFile(p, a.owner(), a.permissions(), sticky(p), a.isRegularFile(), a.isDirectory());
    }

    /**
     * The sticky bit (only owners may rename or delete what a folder holds, as in {@code /tmp}), which
     * {@link PosixFileAttributes} does not show; read through the JDK's {@code unix} view where it has one.
     */
    private static boolean sticky(Path p) throws IOException {
        if (!p.getFileSystem().supportedFileAttributeViews().contains("unix")) return false;
        return ((Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 01000) != 0;
    }

    /** The user this process runs as, as file owners are named. */
    static UserPrincipal currentUser(Path onFileSystem) throws IOException {
        return onFileSystem.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(System.getProperty("user.name"));
    }

    boolean othersCanWrite() {
        return permissions.contains(PosixFilePermission.GROUP_WRITE) || permissions.contains(PosixFilePermission.OTHERS_WRITE);
    }

    /** {@code drwxrwxrwt}-like, as {@code ls -l} prints it. */
    String mode() {
        String rwx = PosixFilePermissions.toString(permissions);
        if (sticky) rwx = rwx.substring(0, 8) + (permissions.contains(PosixFilePermission.OTHERS_EXECUTE) ? 't' : 'T');
        return (directory ? "d" : regular ? "-" : "?") + rwx;
    }
}
