package dev.ember.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Runs a single-file program as a user does ({@code java Prog.java}), with Ember on the class path: the
 * program is loaded by a class loader and in a module of its own, which is what such tests check.
 */
public final class SourcePrograms {
    private SourcePrograms() {}

    /** Writes {@code source} to {@code dir/fileName}, runs it (EMBER_LOGS unset), asserts it exits with 0 and returns what it printed. */
    public static String run(Path dir, String fileName, String source) throws IOException, InterruptedException {
        Path file = dir.resolve(fileName);
        Files.writeString(file, source);
        ChildJvm.Run r = ChildJvm.sourceFile(file).run();
        assertEquals(0, r.exit(), r.said());
        return r.said();
    }
}
