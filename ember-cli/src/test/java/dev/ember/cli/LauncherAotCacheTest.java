package dev.ember.cli;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher's AOT cache ({@code ember-aot.bash}, which {@code ./ember} sources): built on first
 * use by a training run, reused after, rebuilt when a jar changes, and when it cannot be built the
 * launcher says so once and starts the JVM without it. Each test runs the script's
 * {@code aot_cache_flags} in bash against a small program jar made here, with a training class of
 * its own, and starts JVMs with the flag it prints.
 */
class LauncherAotCacheTest {
    private static final Path SCRIPT = Path.of("..", "ember-aot.bash").toAbsolutePath().normalize();
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    @TempDir
    Path tmp;
    private Path jar;
    private Path cacheDir;

    private record Result(String out, String err) {}

    @BeforeEach
    void makeProgramJar() throws IOException {
        jar = programJar("hello");
        cacheDir = tmp.resolve("target").resolve("aot");
    }

    /** A jar with {@code Hello}, whose main prints {@code greeting} through a few JDK classes (so the cache has something to hold). */
    private Path programJar(String greeting) throws IOException {
        Path src = Files.createDirectories(tmp.resolve("src-" + greeting)), classes = Files.createDirectories(tmp.resolve("classes-" + greeting));
        Files.writeString(src.resolve("Hello.java"), """
                public class Hello {
                    public static void main(String[] args) {
                        var words = new java.util.TreeMap<String, Integer>();
                        for (String w : "%s".split(" ")) words.merge(w, 1, Integer::sum);
                        System.out.println(String.join(" ", words.keySet()));
                    }
                }
                """.formatted(greeting));
        tool("javac", "-d", classes.toString(), src.resolve("Hello.java").toString());
        Path out = tmp.resolve("app.jar");
        Files.deleteIfExists(out);
        tool("jar", "--create", "--file", out.toString(), "-C", classes.toString(), ".");
        return out;
    }

    private static void tool(String name, String... args) {
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(said, true, StandardCharsets.UTF_8);
        int code = ToolProvider.findFirst(name).orElseThrow().run(ps, ps, args);
        assertEquals(0, code, name + " failed: " + said.toString(StandardCharsets.UTF_8));
    }

    /** {@code aot_cache_flags <cacheDir> app <classpath>} in bash, with the given training class and environment. */
    private Result aotCacheFlags(String classpath, String training, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c",
                "set -euo pipefail; JVM_FLAGS=(-XX:+UseSerialGC); source \"$1\"; aot_cache_flags \"$2\" app \"$3\"",
                "test", SCRIPT.toString(), cacheDir.toString(), classpath);
        pb.environment().keySet().removeIf(k -> k.startsWith("EMBER_") || k.startsWith("JAVA_TOOL"));
        pb.environment().put("PATH", Path.of(JAVA).getParent() + File.pathSeparator + System.getenv("PATH"));
        pb.environment().put("EMBER_AOT_TRAINING", training);
        pb.environment().putAll(env);
        Path out = tmp.resolve("out.txt"), err = tmp.resolve("err.txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "aot_cache_flags did not finish");
        Result r = new Result(Files.readString(out).strip(), Files.readString(err).strip());
        assertEquals(0, p.exitValue(), "aot_cache_flags failed: " + r);
        return r;
    }

    private Result aotCacheFlags() throws Exception { return aotCacheFlags(jar.toString(), "Hello", Map.of()); }

    /** What the program prints when started with these flags; -XX:AOTMode=on fails the start when the cache cannot be used. */
    private String runWith(String... flags) throws Exception { return runOn(jar.toString(), flags); }

    private String runOn(String classpath, String... flags) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(JAVA, "-XX:+UseSerialGC"));
        cmd.addAll(List.of(flags));
        cmd.addAll(List.of("-cp", classpath, "Hello"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), "the JVM failed with " + flags.length + " flags: " + said);
        return said.strip();
    }

    private List<String> cacheFiles() throws IOException {
        if (!Files.isDirectory(cacheDir)) return List.of();
        try (Stream<Path> files = Files.list(cacheDir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void builtOnFirstUseThenReusedAndTheJvmStartsFromIt() throws Exception {
        Result first = aotCacheFlags();
        assertTrue(first.out().matches("-XX:AOTCache=\\Q" + cacheDir + "\\E/app-[0-9a-f]{16}\\.aot"), first.toString());
        assertTrue(first.err().contains("building the JVM's AOT cache"), "the first use says it builds the cache: " + first.err());
        Path cache = Path.of(first.out().substring("-XX:AOTCache=".length()));
        assertTrue(Files.size(cache) > 0);
        FileTime built = Files.getLastModifiedTime(cache);

        Result second = aotCacheFlags();
        assertEquals(first.out(), second.out());
        assertEquals("", second.err(), "a cache that fits is used without a word");
        assertEquals(built, Files.getLastModifiedTime(cache), "the cache was built again");

        assertEquals("hello", runWith("-XX:AOTMode=on", second.out()));
    }

    @Test
    void aFolderOfJarsIsReadAsJavaExpandsIt() throws Exception {
        // ./ember's CLI classpath ends in ember-cli/target/lib/*
        String classpath = tmp + File.separator + "*";
        Result r = aotCacheFlags(classpath, "Hello", Map.of());
        assertTrue(r.out().startsWith("-XX:AOTCache="), r.toString());
        assertEquals("hello", runOn(classpath, "-XX:AOTMode=on", r.out()));
    }

    @Test
    void aRebuiltJarGetsANewCacheAndTheOldOneIsDeleted() throws Exception {
        String old = aotCacheFlags().out();
        jar = programJar("hello again");
        Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() + 5_000));
        Result rebuilt = aotCacheFlags();
        assertNotEquals(old, rebuilt.out());
        assertTrue(rebuilt.err().contains("building the JVM's AOT cache"), rebuilt.err());
        String cacheName = Path.of(rebuilt.out().substring("-XX:AOTCache=".length())).getFileName().toString();
        assertEquals(List.of(cacheName, cacheName.replace(".aot", ".log")), cacheFiles(), "only the new cache and its training log are left");
        assertEquals("again hello", runWith("-XX:AOTMode=on", rebuilt.out()));
    }

    @Test
    void aCacheThatCannotBeBuiltIsSaidOnceAndTheJvmStartsWithout() throws Exception {
        Result failed = aotCacheFlags(jar.toString(), "NoSuchTrainingClass", Map.of());
        assertEquals("", failed.out(), "no flag: the launcher starts the JVM without a cache");
        assertTrue(failed.err().contains("could not build the JVM's AOT cache") && failed.err().contains("starting without it"), failed.err());
        String log = failed.err().replaceAll("(?s).*\\(see (\\S+)\\).*", "$1");
        assertTrue(Files.readString(Path.of(log)).contains("NoSuchTrainingClass"), "the log holds the training run's own error");
        assertFalse(cacheFiles().stream().anyMatch(f -> f.endsWith(".aot") || f.endsWith(".tmp")), "no cache or half-written file is left: " + cacheFiles());

        Result again = aotCacheFlags(jar.toString(), "NoSuchTrainingClass", Map.of());
        assertEquals(new Result("", ""), again, "a failed build is not retried (nor reported again) until the jars change");
        assertEquals("hello", runWith());
    }

    @Test
    void offWhenAskedAndForAClasspathThatIsNotAllJars() throws Exception {
        assertEquals(new Result("", ""), aotCacheFlags(jar.toString(), "Hello", Map.of("EMBER_AOT", "0")));
        assertEquals(List.of(), cacheFiles());

        Result folder = aotCacheFlags(jar + File.pathSeparator + tmp.resolve("classes-hello"), "Hello", Map.of());
        assertEquals("", folder.out());
        assertTrue(folder.err().contains("not all jars"), folder.err());
        assertEquals(List.of(), cacheFiles());
    }
}
