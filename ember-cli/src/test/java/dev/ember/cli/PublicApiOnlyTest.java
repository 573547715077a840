package dev.ember.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The CLI is a user of Ember like any other: it goes through the public API, never into the eager kernels. */
class PublicApiOnlyTest {
    @Test
    void theCliImportsNoKernel() throws IOException {
        Path root = Path.of("src/main/java");
        assertTrue(Files.isDirectory(root), "run from ember-cli: " + root.toAbsolutePath());
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                for (String line : Files.readAllLines(f)) {
                    if (line.contains("dev.ember.ops.eager") || line.contains("dev.ember.kernels")) found.add(root.relativize(f) + ": " + line.strip());
                }
            }
        }
        assertEquals(List.of(), found);
    }
}
