package dev.ember.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
                "-cp", System.getProperty("java.class.path"), file.toString()));
        pb.redirectErrorStream(true);
        pb.environment().remove("EMBER_LOGS");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}
