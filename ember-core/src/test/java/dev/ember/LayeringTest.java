package dev.ember;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * DESIGN.md's rule: a lower stage never imports a higher one (capture does not know the inductor;
 * fx does not know capture). Read from the sources, so a new upward import fails here with its file.
 */
class LayeringTest {
    /** For each stage, the stages above it that it must not import. */
    private static final Map<String, Set<String>> FORBIDDEN = Map.of(
            "jvm", Set.of("tensor", "ops", "nn", "fx", "dynamo", "aot", "inductor", "debug", "report"),
            "tensor", Set.of("nn", "fx", "dynamo", "aot", "inductor", "debug", "report"),
            "ops", Set.of("nn", "fx", "dynamo", "aot", "inductor", "debug", "report"),
            "nn", Set.of("fx", "dynamo", "aot", "inductor", "debug", "report"),
            "fx", Set.of("dynamo", "aot", "inductor", "debug", "report"),
            "dynamo", Set.of("aot", "inductor", "report"),
            "aot", Set.of("dynamo", "inductor", "debug", "report"),
            "inductor", Set.of("dynamo", "debug", "report"));

    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?dev\\.ember\\.([a-z]+)\\.", Pattern.MULTILINE);

    /** Hand-written sources, and the templates the dtype kernels are generated from. */
    private static final List<Path> ROOTS = List.of(Path.of("src/main/java/dev/ember"), Path.of("src/main/templates/dev/ember"));

    @Test
    void noStageImportsAStageAboveIt() throws IOException {
        assertTrue(Files.isDirectory(ROOTS.getFirst().resolve("inductor")), "run from ember-core: " + ROOTS.getFirst().toAbsolutePath());
        List<String> violations = new ArrayList<>();
        for (Path root : ROOTS) {
            for (var e : FORBIDDEN.entrySet()) {
                if (!Files.isDirectory(root.resolve(e.getKey()))) continue;
                try (Stream<Path> files = Files.walk(root.resolve(e.getKey()))) {
                    for (Path f : files.filter(p -> p.toString().endsWith(".java") || p.toString().endsWith(".java.template")).toList()) {
                        Matcher m = IMPORT.matcher(Files.readString(f));
                        while (m.find()) if (e.getValue().contains(m.group(1))) violations.add(root.relativize(f) + " imports dev.ember." + m.group(1));
                    }
                }
            }
        }
        assertEquals(List.of(), violations);
    }
}
