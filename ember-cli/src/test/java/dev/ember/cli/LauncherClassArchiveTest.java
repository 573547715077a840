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
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher's class data archive ({@code ember-cds.bash}, which {@code ./ember} sources): built on first
 * use by a training run, reused after, rebuilt when a jar changes, and when it cannot be built the
 * launcher says so once and starts the JVM without it. Each test runs the script's
 * {@code class_archive_flags} in bash against a small program jar made here, with a training class of
 * its own, and starts JVMs with the flag it prints.
 */
class LauncherClassArchiveTest {
    private static final Path SCRIPT = Path.of("..", "ember-cds.bash").toAbsolutePath().normalize();
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    /** The JVM flags of every start here: like ./ember's, an incubator module in the boot layer. */
    private static final List<String> FLAGS = List.of("--add-modules", "jdk.incubator.vector", "-XX:+UseSerialGC");

    @TempDir
    Path tmp;
    private Path jar;
    private Path archiveDir;

    private record Result(String out, String err) {}

    @BeforeEach
    void makeProgramJar() throws IOException {
        jar = programJar("hello");
        archiveDir = tmp.resolve("target").resolve("cds");
    }

    /** A jar with {@code Hello}, whose main prints {@code greeting} through a few JDK classes (so the archive has something to hold; {@code Integer::sum} is a lambda class). */
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

    /** {@code class_archive_flags <archiveDir> app <classpath>} in bash, with the given training class and environment. */
    private Result archiveFlags(String classpath, String training, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c",
                "set -euo pipefail; JVM_FLAGS=(" + String.join(" ", FLAGS) + "); source \"$1\"; class_archive_flags \"$2\" app \"$3\"",
                "test", SCRIPT.toString(), archiveDir.toString(), classpath);
        pb.environment().keySet().removeIf(k -> k.startsWith("EMBER_") || k.startsWith("JAVA_TOOL"));
        pb.environment().put("PATH", Path.of(JAVA).getParent() + File.pathSeparator + System.getenv("PATH"));
        pb.environment().put("EMBER_CDS_TRAINING", training);
        pb.environment().putAll(env);
        Path out = tmp.resolve("out.txt"), err = tmp.resolve("err.txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "class_archive_flags did not finish");
        Result r = new Result(Files.readString(out).strip(), Files.readString(err).strip());
        assertEquals(0, p.exitValue(), "class_archive_flags failed: " + r);
        return r;
    }

    private Result archiveFlags() throws Exception { return archiveFlags(jar.toString(), "Hello", Map.of()); }

    /** What the program prints when started with these flags; -Xshare:on fails the start when the archive cannot be used. */
    private String runWith(String... flags) throws Exception { return runOn(jar.toString(), flags); }

    private String runOn(String classpath, String... flags) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(JAVA));
        cmd.addAll(FLAGS);
        cmd.addAll(List.of(flags));
        cmd.addAll(List.of("-cp", classpath, "Hello"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), "the JVM failed with " + flags.length + " flags: " + said);
        // the JVM's own notice of the incubator module is not the program's output
        return said.lines().filter(l -> !l.startsWith("WARNING: Using incubator modules")).collect(Collectors.joining("\n")).strip();
    }

    private List<String> archiveFiles() throws IOException {
        if (!Files.isDirectory(archiveDir)) return List.of();
        try (Stream<Path> files = Files.list(archiveDir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void builtOnFirstUseThenReusedAndTheJvmStartsFromIt() throws Exception {
        Result first = archiveFlags();
        assertTrue(first.out().matches("-XX:SharedArchiveFile=\\Q" + archiveDir + "\\E/app-[0-9a-f]{16}\\.jsa"), first.toString());
        assertTrue(first.err().contains("building the JVM's class data archive"), "the first use says it builds the archive: " + first.err());
        Path archive = Path.of(first.out().substring("-XX:SharedArchiveFile=".length()));
        assertTrue(Files.size(archive) > 0);
        FileTime built = Files.getLastModifiedTime(archive);

        Result second = archiveFlags();
        assertEquals(first.out(), second.out());
        assertEquals("", second.err(), "an archive that fits is used without a word");
        assertEquals(built, Files.getLastModifiedTime(archive), "the archive was built again");

        assertEquals("hello", runWith("-Xshare:on", second.out()));
    }

    /**
     * The reason for a class data archive rather than JDK 25's AOT cache: with an incubator module in
     * the boot layer the AOT cache holds no lambda classes, and Ember defines about a thousand at
     * start-up. The program's {@code Integer::sum} comes from this archive.
     */
    @Test
    void theArchiveHoldsTheProgramsLambdaClasses() throws Exception {
        String flag = archiveFlags().out();
        String loads = runWith("-Xshare:on", flag, "-Xlog:class+load=info");
        List<String> lambdas = loads.lines().filter(l -> l.contains("Hello$$Lambda")).toList();
        assertFalse(lambdas.isEmpty(), "Hello's lambda class was not loaded at all: " + loads);
        assertTrue(lambdas.stream().allMatch(l -> l.contains("source: shared objects file")), "not from the archive: " + lambdas);
    }

    @Test
    void aFolderOfJarsIsReadAsJavaExpandsIt() throws Exception {
        // ./ember's CLI classpath ends in ember-cli/target/lib/*
        String classpath = tmp + File.separator + "*";
        Result r = archiveFlags(classpath, "Hello", Map.of());
        assertTrue(r.out().startsWith("-XX:SharedArchiveFile="), r.toString());
        assertEquals("hello", runOn(classpath, "-Xshare:on", r.out()));
    }

    @Test
    void aRebuiltJarGetsANewArchiveAndTheOldOneIsDeleted() throws Exception {
        String old = archiveFlags().out();
        jar = programJar("hello again");
        Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() + 5_000));
        Result rebuilt = archiveFlags();
        assertNotEquals(old, rebuilt.out());
        assertTrue(rebuilt.err().contains("building the JVM's class data archive"), rebuilt.err());
        String archiveName = Path.of(rebuilt.out().substring("-XX:SharedArchiveFile=".length())).getFileName().toString();
        assertEquals(List.of(archiveName, archiveName.replace(".jsa", ".log")), archiveFiles(), "only the new archive and its training log are left");
        assertEquals("again hello", runWith("-Xshare:on", rebuilt.out()));
    }

    @Test
    void anArchiveThatCannotBeBuiltIsSaidOnceAndTheJvmStartsWithout() throws Exception {
        Result failed = archiveFlags(jar.toString(), "NoSuchTrainingClass", Map.of());
        assertEquals("", failed.out(), "no flag: the launcher starts the JVM without an archive");
        assertTrue(failed.err().contains("could not build the JVM's class data archive") && failed.err().contains("starting without it"), failed.err());
        String log = failed.err().replaceAll("(?s).*\\(see (\\S+)\\).*", "$1");
        assertTrue(Files.readString(Path.of(log)).contains("NoSuchTrainingClass"), "the log holds the training run's own error");
        assertFalse(archiveFiles().stream().anyMatch(f -> f.endsWith(".jsa") || f.endsWith(".tmp") || f.endsWith(".classlist")), "no archive, class list or half-written file is left: " + archiveFiles());

        Result again = archiveFlags(jar.toString(), "NoSuchTrainingClass", Map.of());
        assertEquals(new Result("", ""), again, "a failed build is not retried (nor reported again) until the jars change");
        assertEquals("hello", runWith());
    }

    @Test
    void offWhenAskedAndForAClasspathThatIsNotAllJars() throws Exception {
        assertEquals(new Result("", ""), archiveFlags(jar.toString(), "Hello", Map.of("EMBER_CDS", "0")));
        assertEquals(List.of(), archiveFiles());

        Result folder = archiveFlags(jar + File.pathSeparator + tmp.resolve("classes-hello"), "Hello", Map.of());
        assertEquals("", folder.out());
        assertTrue(folder.err().contains("not all jars"), folder.err());
        assertEquals(List.of(), archiveFiles());
    }
}
