package dev.ember.logging;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * docs/logging.md's artifact table names every artifact {@code EMBER_LOGS} accepts, with its
 * component and whether it is off by default (the {@code *}), and nothing else: the page is where
 * users look the names up, so an artifact added in code without a row (or a row left behind) fails here.
 */
class LoggingDocsTableTest {
    private static final Path PAGE = Path.of("..", "docs", "logging.md");
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z_]+)`(\\*?) \\| ([a-z]+) \\|", Pattern.MULTILINE);

    @Test
    void theArtifactTableMatchesTheRegistry() throws IOException {
        Map<String, String> documented = new LinkedHashMap<>();
        Matcher m = ROW.matcher(Files.readString(PAGE));
        while (m.find()) documented.put(m.group(1), m.group(3) + (m.group(2).isEmpty() ? "" : " (off by default)"));
        Map<String, String> registered = new LinkedHashMap<>();
        for (Loggable l : LogRegistry.all()) {
            if (l.artifact()) registered.put(l.name(), l.component() + (l.offByDefault() ? " (off by default)" : ""));
        }
        assertEquals(registered, documented, "docs/logging.md's artifact table against LogRegistry");
    }
}
