package dev.ember.dynamo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The text of a source line, when the .java file is found under a usual source root of the working directory. */
public final class SourceLines {
    private static final List<String> ROOTS = List.of("src/main/java", "src/test/java", "ember-core/src/main/java", "ember-core/src/test/java", "src", ".");
    private static final Map<String, Optional<List<String>>> FILES = new ConcurrentHashMap<>();

    private SourceLines() {}

    public static String line(Class<?> owner, String fileName, int line) {
        if (fileName == null || line <= 0) return null;
        String rel = owner.getPackageName().replace('.', '/') + (owner.getPackageName().isEmpty() ? "" : "/") + fileName;
        List<String> lines = FILES.computeIfAbsent(rel, SourceLines::read).orElse(null);
        return lines == null || line > lines.size() ? null : lines.get(line - 1).strip();
    }

    private static Optional<List<String>> read(String rel) {
        for (String root : ROOTS) {
            Path p = Path.of(root, rel);
            if (Files.isRegularFile(p)) {
                try {
                    return Optional.of(Files.readAllLines(p));
                } catch (IOException e) {
                    return Optional.empty();
                }
            }
        }
        return Optional.empty();
    }
}
