package dev.ember.debug;

import dev.ember.testing.ChildJvm.Run;
import dev.ember.testing.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** EMBER_COMPILE_DEBUG, EMBER_COMPILE_DEBUG_DIR and EMBER_COMPILE_PROFILER as a user sets them: in a fresh JVM that compiles. */
class DebugEnvironmentTest {
    @TempDir
    Path tmp;

    private Run run(Map<String, String> env) throws Exception {
        return ChildJvm.main(DebugEnvironmentProbe.class).env(env).run();
    }

    @Test
    void compileDebugWritesTheFolderUnderTheGivenDir() throws Exception {
        Path base = tmp.resolve("debug");
        Run r = run(Map.of("EMBER_COMPILE_DEBUG", "1", "EMBER_COMPILE_DEBUG_DIR", base.toString()));
        assertEquals(0, r.exit(), r.toString());
        Path run;
        try (Stream<Path> s = Files.list(base)) {
            run = s.findFirst().orElseThrow();
        }
        assertTrue(r.err().contains("ember: EMBER_COMPILE_DEBUG: writing compile artifacts to " + run), r.err());
        Path folder = run.resolve("ember/model__0_0");
        for (String f : new String[] {"fx_graph_readable.txt", "fx_graph_transformed.txt", "fx_graph_runnable.java", "guards.txt",
                "bytecode_original.txt", "bytecode_transformed.txt"}) {
            assertTrue(Files.isRegularFile(folder.resolve(f)), f + " in " + folder);
        }
    }

    @Test
    void compileDebugWithABadValueNamesTheVariable() throws Exception {
        Run r = run(Map.of("EMBER_COMPILE_DEBUG", "maybe"));
        assertEquals(3, r.exit(), r.toString());
        assertEquals("error: EMBER_COMPILE_DEBUG=maybe: expected 1 (write the debug folder) or 0 (do not);"
                + " the folder's place is set by EMBER_COMPILE_DEBUG_DIR\n", r.out());
    }

    @Test
    void compileDebugDirThatCannotBeCreatedNamesTheVariable() throws Exception {
        Path file = Files.writeString(tmp.resolve("plain.txt"), "x");
        Run r = run(Map.of("EMBER_COMPILE_DEBUG", "1", "EMBER_COMPILE_DEBUG_DIR", file.resolve("sub").toString()));
        assertEquals(3, r.exit(), r.toString());
        assertTrue(r.out().startsWith("error: EMBER_COMPILE_DEBUG_DIR=" + file.resolve("sub") + ": cannot create the debug folder "), r.out());
        assertTrue(r.out().contains("set EMBER_COMPILE_DEBUG_DIR to a writable folder"), r.out());
        Run blank = run(Map.of("EMBER_COMPILE_DEBUG", "1", "EMBER_COMPILE_DEBUG_DIR", " "));
        assertEquals(3, blank.exit(), blank.toString());
        assertTrue(blank.out().startsWith("error: EMBER_COMPILE_DEBUG_DIR= : not a valid folder path"), blank.out());
    }

    @Test
    void compileProfilerPrintsARealPerFunctionTable() throws Exception {
        Run r = run(Map.of("EMBER_COMPILE_PROFILER", "1"));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.err().contains("Compile time per traced function (ms):\n"), r.err());
        assertTrue(r.err().lines().anyMatch(l -> l.matches("DebugPrograms\\.scaleShift\\s+1(\\s+[\\d.]+)+")), r.err());
        assertTrue(r.err().contains("tracing") && r.err().contains("backend"), r.err());
    }
}
