package dev.ember.logging;

import dev.ember.testing.ChildJvm.Run;
import dev.ember.testing.ChildJvm;
import dev.ember.debug.CompileProfiler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each variable, good and bad, as a user sets it: in the environment of a fresh JVM. */
class EnvironmentVariablesTest {
    @TempDir
    Path tmp;

    private Run run(Map<String, String> env) throws Exception {
        String cp = location(EnvironmentProbe.class) + File.pathSeparator + location(Log.class) + File.pathSeparator
                + location(CompileProfiler.class);
        return ChildJvm.main(EnvironmentProbe.class).withoutModuleFlags().classPath(cp).env(env).timeoutSeconds(60).run();
    }

    private static String location(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    @Test
    void emberLogsNamesTurnLogsOn() throws Exception {
        Run r = run(Map.of("EMBER_LOGS", "graph_breaks"));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.err().matches("(?s)I\\d{4} [\\d:.]+ \\[0/0\\] \\[graph_breaks\\] Graph break in user code at Probe.java:7\n"), r.err());
    }

    @Test
    void emberLogsWithAnUnknownNameIsAClearError() throws Exception {
        Run r = run(Map.of("EMBER_LOGS", "bogus"));
        assertEquals(3, r.exit(), r.toString());
        assertTrue(r.out().startsWith("error: EMBER_LOGS=\"bogus\": unknown log name 'bogus'."), r.out());
        assertTrue(r.out().contains("Valid names: all, help, dynamo"), r.out());
    }

    @Test
    void emberLogsHelpPrintsTheNames() throws Exception {
        Run r = run(Map.of("EMBER_LOGS", "help"));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.err().contains("recompiles_verbose*"), r.err());
    }

    @Test
    void emberTraceWritesATraceFile() throws Exception {
        Path dir = tmp.resolve("trace");
        Run r = run(Map.of("EMBER_TRACE", dir.toString()));
        assertEquals(0, r.exit(), r.toString());
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.toList();
        }
        assertEquals(1, files.size());
        assertTrue(files.getFirst().getFileName().toString().matches("dedicated_log_ember_trace_\\d+\\.log"));
        String text = Files.readString(files.getFirst());
        assertTrue(text.contains("\"dynamo_start\": {\"stack\": [{\"line\": 3, \"name\": \"Probe.fn\", \"filename\": 0}]}"), text);
        assertTrue(text.contains("EnvironmentProbe.java:"), "caller location: " + text);
    }

    @Test
    void emberTraceOnAFileOrUnderAFileIsAClearError() throws Exception {
        Path file = Files.writeString(tmp.resolve("plain.txt"), "x");
        Run r = run(Map.of("EMBER_TRACE", file.toString()));
        assertEquals(3, r.exit(), r.toString());
        assertEquals("error: EMBER_TRACE=" + file + ": " + file + " is a file, not a directory; name a directory for the trace\n", r.out());
        Run under = run(Map.of("EMBER_TRACE", file.resolve("sub").toString()));
        assertEquals(3, under.exit(), under.toString());
        assertTrue(under.out().startsWith("error: EMBER_TRACE=" + file.resolve("sub") + ": cannot create the trace directory"), under.out());
    }

    @Test
    void compileProfilerOnePrintsTheTableAtExit() throws Exception {
        Run r = run(Map.of("EMBER_COMPILE_PROFILER", "1"));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.err().startsWith("Compile time per traced function (ms):\n"), r.err());
        assertTrue(r.err().lines().anyMatch(l -> l.matches("Probe\\.fn\\s+1\\s+[\\d.]+\\s+[\\d.]+\\s+[\\d.]+")), r.err());
    }

    @Test
    void compileProfilerFileGetsASpeedscopeProfile() throws Exception {
        Path file = tmp.resolve("profiles/compile.speedscope.json");
        Run r = run(Map.of("EMBER_COMPILE_PROFILER", file.toString()));
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> json = JsonReader.parseObject(Files.readString(file));
        assertEquals("ember CompileProfiler", json.get("exporter"));
        assertTrue(r.err().contains("compile profile written to " + file), r.err());
    }

    @Test
    void compileProfilerOnADirectoryOrUnwritablePlaceIsAClearError() throws Exception {
        Run dir = run(Map.of("EMBER_COMPILE_PROFILER", tmp.toString()));
        assertEquals(3, dir.exit(), dir.toString());
        assertTrue(dir.out().startsWith("error: EMBER_COMPILE_PROFILER=" + tmp + ": " + tmp + " is a directory; name a file"), dir.out());
        Path file = Files.writeString(tmp.resolve("plain.txt"), "x");
        Run under = run(Map.of("EMBER_COMPILE_PROFILER", file.resolve("p.json").toString()));
        assertEquals(3, under.exit(), under.toString());
        assertTrue(under.out().startsWith("error: EMBER_COMPILE_PROFILER=" + file.resolve("p.json") + ": cannot create the folder"),
                under.out());
    }
}
