package dev.ember.debug;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** EMBER_COMPILE_DEBUG, EMBER_COMPILE_DEBUG_DIR and EMBER_COMPILE_PROFILER as a user sets them: in a fresh JVM that compiles. */
class DebugEnvironmentTest {
    @TempDir
    Path tmp;

    record Run(int exit, String stdout, String stderr) {}

    private Run run(Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
                "-cp", System.getProperty("java.class.path"), DebugEnvironmentProbe.class.getName());
        pb.environment().keySet().removeIf(k -> k.startsWith("EMBER_"));
        pb.environment().putAll(env);
        pb.directory(Path.of("").toAbsolutePath().toFile());
        Path out = tmp.resolve("out.txt"), err = tmp.resolve("err.txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "probe JVM did not finish");
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    @Test
    void compileDebugWritesTheFolderUnderTheGivenDir() throws Exception {
        Path base = tmp.resolve("debug");
        Run r = run(Map.of("EMBER_COMPILE_DEBUG", "1", "EMBER_COMPILE_DEBUG_DIR", base.toString()));
        assertEquals(0, r.exit, r.toString());
        Path run;
        try (Stream<Path> s = Files.list(base)) {
            run = s.findFirst().orElseThrow();
        }
        assertTrue(r.stderr.contains("ember: EMBER_COMPILE_DEBUG: writing compile artifacts to " + run), r.stderr);
        Path folder = run.resolve("ember/model__0_0");
        for (String f : new String[] {"fx_graph_readable.txt", "fx_graph_transformed.txt", "fx_graph_runnable.java", "guards.txt",
                "bytecode_original.txt", "bytecode_transformed.txt"}) {
            assertTrue(Files.isRegularFile(folder.resolve(f)), f + " in " + folder);
        }
    }

    @Test
    void compileDebugWithABadValueNamesTheVariable() throws Exception {
        Run r = run(Map.of("EMBER_COMPILE_DEBUG", "maybe"));
        assertEquals(3, r.exit, r.toString());
        assertEquals("error: EMBER_COMPILE_DEBUG=maybe: expected 1 (write the debug folder) or 0 (do not);"
                + " the folder's place is set by EMBER_COMPILE_DEBUG_DIR\n", r.stdout);
    }

    @Test
    void compileDebugDirThatCannotBeCreatedNamesTheVariable() throws Exception {
        Path file = Files.writeString(tmp.resolve("plain.txt"), "x");
        Run r = run(Map.of("EMBER_COMPILE_DEBUG", "1", "EMBER_COMPILE_DEBUG_DIR", file.resolve("sub").toString()));
        assertEquals(3, r.exit, r.toString());
        assertTrue(r.stdout.startsWith("error: EMBER_COMPILE_DEBUG_DIR=" + file.resolve("sub") + ": cannot create the debug folder "), r.stdout);
        assertTrue(r.stdout.contains("set EMBER_COMPILE_DEBUG_DIR to a writable folder"), r.stdout);
        Run blank = run(Map.of("EMBER_COMPILE_DEBUG", "1", "EMBER_COMPILE_DEBUG_DIR", " "));
        assertEquals(3, blank.exit, blank.toString());
        assertTrue(blank.stdout.startsWith("error: EMBER_COMPILE_DEBUG_DIR= : not a valid folder path"), blank.stdout);
    }

    @Test
    void compileProfilerPrintsARealPerFunctionTable() throws Exception {
        Run r = run(Map.of("EMBER_COMPILE_PROFILER", "1"));
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.stderr.contains("Compile time per traced function (ms):\n"), r.stderr);
        assertTrue(r.stderr.lines().anyMatch(l -> l.matches("DebugPrograms\\.scaleShift\\s+1(\\s+[\\d.]+)+")), r.stderr);
        assertTrue(r.stderr.contains("tracing") && r.stderr.contains("backend"), r.stderr);
    }
}
