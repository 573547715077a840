package dev.ember.debug;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BuildIdentityTest {

    /** The build under test was made from this checkout, so it carries this checkout's describe (or says why not). */
    @Test
    void theClassesSayWhichSourceTheyWereBuiltFrom() throws Exception {
        String expected = gitDescribe(Path.of(System.getProperty("user.dir")));
        String actual = BuildIdentity.describe();
        if (expected == null) {
            assertTrue(actual.startsWith("unknown ("), actual);   // not a checkout, or no git: the reason, not a blank
        } else {
            assertEquals(expected, actual);
            assertTrue(BuildIdentity.line().contains(expected), BuildIdentity.line());
            assertEquals(expected.endsWith("-dirty"), BuildIdentity.line().contains("uncommitted changes"));
        }
    }

    private static String gitDescribe(Path dir) throws InterruptedException {
        try {
            Process p = new ProcessBuilder("git", "describe", "--always", "--dirty", "--abbrev=12").directory(dir.toFile()).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.waitFor() == 0 && !out.isEmpty() ? out : null;
        } catch (IOException noGit) {
            return null;
        }
    }
}
