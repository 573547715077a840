package dev.ember.tensor;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Files written whole or not at all: into a temporary file next to the target, then moved over it. */
public final class AtomicFiles {
    private AtomicFiles() {}

    /** Replaces {@code target} by the finished file {@code tmp}: atomically where the file system can, so no reader sees half a file. */
    public static void moveIntoPlace(Path tmp, Path target) throws IOException {
        try {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
