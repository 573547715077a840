package dev.ember.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fresh JVM for the tests that need a process of their own (an environment variable read at
 * start-up, a JVM flag, what a process leaves behind when it exits): this JVM's {@code java}, the
 * test classpath, Ember's two module flags, and none of this process's {@code EMBER_*} variables
 * unless given. Its output goes to files (no pipe can fill and stall it); a run that outlasts its
 * timeout is killed and fails the test.
 *
 * <pre>{@code
 * ChildJvm.Run r = ChildJvm.main(Probe.class).env("EMBER_LOGS", "+dynamo").run();
 * assertEquals(0, r.exit(), r.err());
 * }</pre>
 */
public final class ChildJvm {
    /** How it ended: its exit status, and what it wrote to each stream. */
    public record Run(int exit, String out, String err) {
        /** Both streams, standard output first. */
        public String said() { return out + err; }
    }

    private final String program;
    private final List<String> flags = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector"));
    private final List<String> args = new ArrayList<>();
    private final Map<String, String> env = new LinkedHashMap<>();
    private String classPath = System.getProperty("java.class.path");
    private Path dir;
    private long timeoutSeconds = 120;

    private ChildJvm(String program) { this.program = program; }

    /** Runs {@code main}'s {@code main} method. */
    public static ChildJvm main(Class<?> main) { return new ChildJvm(main.getName()); }

    /** Runs a single-file source program ({@code java File.java}). */
    public static ChildJvm sourceFile(Path file) { return new ChildJvm(file.toString()); }

    /** Without Ember's module flags (a classpath without the kernels needs none, and the incubator module warns on stderr). */
    public ChildJvm withoutModuleFlags() {
        flags.clear();
        return this;
    }

    /** JVM flags, after the module flags. */
    public ChildJvm flags(String... more) {
        flags.addAll(List.of(more));
        return this;
    }

    /** Arguments to the program. */
    public ChildJvm args(String... more) {
        args.addAll(List.of(more));
        return this;
    }

    public ChildJvm env(String name, String value) {
        env.put(name, value);
        return this;
    }

    public ChildJvm env(Map<String, String> more) {
        env.putAll(more);
        return this;
    }

    /** Another classpath than the tests' own. */
    public ChildJvm classPath(String path) {
        classPath = path;
        return this;
    }

    /** Its working directory (this one's when not given). */
    public ChildJvm dir(Path d) {
        dir = d;
        return this;
    }

    public ChildJvm timeoutSeconds(long seconds) {
        timeoutSeconds = seconds;
        return this;
    }

    public Run run() throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(flags);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(program);
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(k -> k.startsWith("EMBER_"));
        pb.environment().putAll(env);
        if (dir != null) pb.directory(dir.toFile());
        Path out = Files.createTempFile("ember-child-jvm", ".out"), err = Files.createTempFile("ember-child-jvm", ".err");
        try {
            Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            boolean ended = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            if (!ended) p.destroyForcibly().waitFor();
            String o = Files.readString(out, StandardCharsets.UTF_8), e = Files.readString(err, StandardCharsets.UTF_8);
            assertTrue(ended, "the child JVM (" + String.join(" ", cmd.subList(cmd.indexOf(program), cmd.size())) + ") did not finish in "
                    + timeoutSeconds + " s; it said:\n" + o + e);
            return new Run(p.exitValue(), o, e);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** A cache folder of its own for a child JVM of this test run, under the temporary folder. */
    public static String cacheDir(String test) {
        return System.getProperty("java.io.tmpdir") + File.separator + "ember-" + test + "-" + ProcessHandle.current().pid();
    }
}
