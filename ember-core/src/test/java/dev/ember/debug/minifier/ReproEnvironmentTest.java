package dev.ember.debug.minifier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** EMBER_REPRO_AFTER, EMBER_REPRO_LEVEL, EMBER_REPRO_DIR and EMBER_SUPPRESS_ERRORS as a user sets them: in a fresh JVM. */
class ReproEnvironmentTest {
    @TempDir
    Path tmp;

    record Run(int exit, String stdout, String stderr) {}

    private Run run(Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
                "-cp", System.getProperty("java.class.path"), ReproEnvironmentProbe.class.getName());
        pb.environment().keySet().removeIf(k -> k.startsWith("EMBER_"));
        pb.environment().putAll(env);
        pb.directory(tmp.toFile());
        Path out = tmp.resolve("out.txt"), err = tmp.resolve("err.txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "probe JVM did not finish");
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    @Test
    void reproAfterWritesALauncherUnderTheReproDir() throws Exception {
        Path dir = tmp.resolve("repros");
        Run r = run(Map.of("EMBER_REPRO_AFTER", "dynamo", "EMBER_REPRO_DIR", dir.toString()));
        assertEquals(1, r.exit, r.toString());
        Path launcher = dir.resolve("ReproLevelsTest.fn__0_0").toAbsolutePath();
        assertEquals("failed; repro: " + launcher + "\n", r.stdout);
        assertEquals("compile_error", Launcher.read(launcher).failure().kind());
    }

    @Test
    void withoutAReproDirLaunchersGoToEmberMinifier() throws Exception {
        Run r = run(Map.of("EMBER_REPRO_LEVEL", "2"));
        assertEquals(1, r.exit, r.toString());
        assertTrue(Files.isRegularFile(tmp.resolve("ember_minifier/ReproLevelsTest.fn__0_0/repro.properties")), r.toString());
    }

    @Test
    void suppressErrorsRunsEagerlyWithOneWarning() throws Exception {
        Run r = run(Map.of("EMBER_SUPPRESS_ERRORS", "1"));
        assertEquals(0, r.exit, r.toString());
        assertEquals("ran: Tensor f32[3, 4]\n", r.stdout);
        assertEquals(1, r.stderr.split("suppressErrors is on", -1).length - 1, r.stderr);
    }

    @Test
    void anUnknownStageIsAnErrorNamingTheVariable() throws Exception {
        Run r = run(Map.of("EMBER_REPRO_AFTER", "lowering"));
        assertEquals(3, r.exit, r.toString());
        assertTrue(r.stdout.startsWith("error: EMBER_REPRO_AFTER=lowering: unknown stage; expected dynamo"), r.stdout);
    }
}
