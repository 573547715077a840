package dev.ember.build;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class WriteBuildIdentityTest {

    @Test
    void aFolderOutsideGitIsUnknownWithTheReasonAndTheBuildGoesOn(@TempDir Path dir) throws IOException {
        Path plain = Files.createDirectories(dir.resolve("not-a-checkout"));
        assumeTrue(git(dir, "rev-parse", "--is-inside-work-tree").exit != 0, "the temporary folder is inside a git checkout here");
        Path out = dir.resolve("classes/dev/ember/build-identity.properties");
        WriteBuildIdentity.main(new String[] {plain.toString(), out.toString()});
        String written = Files.readString(out, StandardCharsets.UTF_8);
        assertTrue(written.contains("describe=unknown ("), written);
    }

    @Test
    void aCommittedTreeIsItsCommitAndAChangedOneIsDirty(@TempDir Path dir) throws IOException {
        assumeTrue(git(dir, "init", "-q").exit == 0, "no git on this machine");
        Files.writeString(dir.resolve("a.txt"), "one\n");
        assertEquals(0, git(dir, "add", "a.txt").exit);
        assertEquals(0, git(dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first").exit);
        String head = git(dir, "rev-parse", "--short=12", "HEAD").out;
        Path out = dir.resolve("out/identity.properties");

        WriteBuildIdentity.main(new String[] {dir.toString(), out.toString()});
        assertEquals("describe=" + head, Files.readString(out).lines().filter(l -> l.startsWith("describe=")).findFirst().orElseThrow());

        Files.writeString(dir.resolve("a.txt"), "two\n");
        WriteBuildIdentity.main(new String[] {dir.toString(), out.toString()});
        assertEquals("describe=" + head + "-dirty", Files.readString(out).lines().filter(l -> l.startsWith("describe=")).findFirst().orElseThrow());
    }

    private record Run(int exit, String out) {}

    private static Run git(Path dir, String... args) {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "git";
        System.arraycopy(args, 0, cmd, 1, args.length);
        try {
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return new Run(p.waitFor(), out);
        } catch (IOException e) {
            return new Run(-1, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Run(-1, "interrupted");
        }
    }
}
