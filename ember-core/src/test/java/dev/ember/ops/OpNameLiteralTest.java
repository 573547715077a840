package dev.ember.ops;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Library code names ops by their constants ({@code PointwiseOps.SIGMOID}), never by a string: a
 * mistyped string compiles and then fails at run time, or, in a table keyed by name, silently
 * never matches. Ops are declared by their schema ({@code "sigmoid(Tensor self) -> Tensor"}), so
 * no {@code "aten.} literal is needed anywhere; {@link OpRegistry#get} stays for users and parsers.
 */
class OpNameLiteralTest {
    private static final List<Path> LIBRARY_SOURCES = List.of(Path.of("src/main/java"), Path.of("../ember-cli/src/main/java"));

    @Test
    void libraryCodeNamesNoOpByString() throws IOException {
        assertTrue(Files.isDirectory(LIBRARY_SOURCES.getFirst()), "run from ember-core: " + LIBRARY_SOURCES.getFirst().toAbsolutePath());
        List<String> found = new ArrayList<>();
        for (Path root : LIBRARY_SOURCES) {
            if (!Files.isDirectory(root)) continue;
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    List<String> lines = Files.readAllLines(f);
                    for (int i = 0; i < lines.size(); i++) {
                        if (lines.get(i).contains("\"aten.")) found.add(root.relativize(f) + ":" + (i + 1) + ": " + lines.get(i).strip());
                    }
                }
            }
        }
        assertEquals(List.of(), found, "name these ops by their constants (PointwiseOps.SIGMOID, …)");
    }
}
