package dev.ember.bench.dashboard;

import dev.ember.logging.JsonReader;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reading an input file as JSON, with errors that name the file and what it should have been. */
final class InputFiles {
    private InputFiles() {}

    /** The parsed JSON of {@code file}; {@code what} names the file's role in errors ("JMH results"). */
    static Object readJson(Path file, String what, String howToMake) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new DashboardInputException(what + " not found: " + file + " (" + howToMake + ")");
        } catch (IOException e) {
            throw new DashboardInputException("cannot read " + what + " " + file + ": " + e, e);
        }
        if (text.isBlank()) throw new DashboardInputException(what + " " + file + " is empty (" + howToMake + ")");
        try {
            return JsonReader.parse(text);
        } catch (IllegalArgumentException e) {
            throw new DashboardInputException(what + " " + file + " is not valid JSON: " + withLine(e.getMessage(), text), e);
        }
    }

    private static final Pattern COLUMN = Pattern.compile("at column (\\d+)");

    /** JsonReader counts columns over the whole text; a JMH file has thousands of lines, so say the line too. */
    static String withLine(String message, String text) {
        Matcher m = COLUMN.matcher(message);
        if (!m.find()) return message;
        int offset = Math.min(Integer.parseInt(m.group(1)) - 1, text.length());
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < offset; i++) {
            if (text.charAt(i) == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        return m.replaceFirst("at line " + line + ", column " + (offset - lineStart + 1));
    }
}
