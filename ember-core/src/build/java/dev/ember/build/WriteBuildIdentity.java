package dev.ember.build;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Writes which source a build was made from ({@code git describe --always --dirty}) into the
 * classes, so that a jar copied aside (for a fuzz run, a benchmark, a bug report) still says what it
 * holds. Session 40 read nine fuzz failures from jars built while a deliberate sabotage was in the
 * source tree; a "-dirty" stamp in the fuzzer's header would have said so at once.
 *
 * <p>Usage: {@code java WriteBuildIdentity.java <source folder> <output properties file>}. A tree that
 * is not a git checkout (a source archive) or a machine without git gets "unknown" and the reason;
 * the build never fails for it.
 */
public final class WriteBuildIdentity {
    private WriteBuildIdentity() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2) throw new IllegalArgumentException("usage: WriteBuildIdentity <source folder> <output properties file>");
        String describe = describe(Path.of(args[0]));
        Path out = Path.of(args[1]);
        Files.createDirectories(out.toAbsolutePath().getParent());
        String text = "# written at build time by src/build/java/dev/ember/build/WriteBuildIdentity.java\n"
                + "describe=" + describe.replace("\\", "\\\\").replace("\n", " ") + "\n";
        // unchanged content keeps the file's time, so an unchanged tree does not look like a new build
        if (!Files.exists(out) || !Files.readString(out, StandardCharsets.UTF_8).equals(text)) Files.writeString(out, text, StandardCharsets.UTF_8);
    }

    /** {@code git describe --always --dirty --abbrev=12} in {@code folder}, or "unknown (why)". */
    static String describe(Path folder) {
        try {
            Process git = new ProcessBuilder("git", "describe", "--always", "--dirty", "--abbrev=12")
                    .directory(folder.toFile()).redirectErrorStream(true).start();
            git.getOutputStream().close();
            String said = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!git.waitFor(20, TimeUnit.SECONDS)) {
                git.destroyForcibly();
                return "unknown (git describe did not finish in 20 s)";
            }
            if (git.exitValue() != 0 || said.isEmpty()) return "unknown (" + firstLine(said, "git describe exited with " + git.exitValue()) + ")";
            return firstLine(said, "unknown");
        } catch (IOException e) {
            return "unknown (no git: " + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown (interrupted)";
        }
    }

    private static String firstLine(String s, String otherwise) {
        String line = s.lines().findFirst().orElse("").strip();
        return line.isEmpty() ? otherwise : line;
    }
}
