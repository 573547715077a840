package dev.ember.debug.minifier;

import dev.ember.testing.ChildJvm.Run;
import dev.ember.testing.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** EMBER_REPRO_AFTER, EMBER_REPRO_LEVEL, EMBER_REPRO_DIR and EMBER_SUPPRESS_ERRORS as a user sets them: in a fresh JVM. */
class ReproEnvironmentTest {
    @TempDir
    Path tmp;

    private Run run(Map<String, String> env) throws Exception {
        return ChildJvm.main(ReproEnvironmentProbe.class).env(env).dir(tmp).run();
    }

    @Test
    void reproAfterWritesALauncherUnderTheReproDir() throws Exception {
        Path dir = tmp.resolve("repros");
        Run r = run(Map.of("EMBER_REPRO_AFTER", "dynamo", "EMBER_REPRO_DIR", dir.toString()));
        assertEquals(1, r.exit(), r.toString());
        Path launcher = dir.resolve("ReproLevelsTest.fn__0_0").toAbsolutePath();
        assertEquals("failed; repro: " + launcher + "\n", r.out());
        assertEquals("compile_error", Launcher.read(launcher).failure().kind());
    }

    @Test
    void withoutAReproDirLaunchersGoToEmberMinifier() throws Exception {
        Run r = run(Map.of("EMBER_REPRO_LEVEL", "2"));
        assertEquals(1, r.exit(), r.toString());
        assertTrue(Files.isRegularFile(tmp.resolve("ember_minifier/ReproLevelsTest.fn__0_0/repro.properties")), r.toString());
    }

    @Test
    void suppressErrorsRunsEagerlyWithOneWarning() throws Exception {
        Run r = run(Map.of("EMBER_SUPPRESS_ERRORS", "1"));
        assertEquals(0, r.exit(), r.toString());
        assertEquals("ran: Tensor f32[3, 4]\n", r.out());
        assertEquals(1, r.err().split("suppressErrors is on", -1).length - 1, r.err());
    }

    @Test
    void anUnknownStageIsAnErrorNamingTheVariable() throws Exception {
        Run r = run(Map.of("EMBER_REPRO_AFTER", "lowering"));
        assertEquals(3, r.exit(), r.toString());
        assertTrue(r.out().startsWith("error: EMBER_REPRO_AFTER=lowering: unknown stage; expected dynamo"), r.out());
    }
}
