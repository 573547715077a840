package dev.ember.dynamo.comptime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Where a line of code is in a test's own source file, as messages name it: {@code ComptimeTest.java:42}. */
public final class SourceLine {
    private SourceLine() {}

    /** {@code File.java:N} of the {@code nth} line of {@code cls}'s source that is {@code code} (stripped). */
    public static String of(Class<?> cls, String code, int nth) { return cls.getSimpleName() + ".java:" + number(cls, code, nth); }

    public static String of(Class<?> cls, String code) { return of(cls, code, 1); }

    /** The line number of the {@code nth} line of {@code cls}'s source that is {@code code} (stripped). */
    public static int number(Class<?> cls, String code, int nth) {
        Path file = Path.of("src/test/java", cls.getPackageName().replace('.', '/'), cls.getSimpleName() + ".java");
        try {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0, seen = 0; i < lines.size(); i++) if (lines.get(i).strip().equals(code) && ++seen == nth) return i + 1;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalArgumentException("no line '" + code + "' (" + nth + ") in " + file);
    }

    public static int number(Class<?> cls, String code) { return number(cls, code, 1); }
}
