package dev.ember.dynamo.comptime;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The breakpoint's console on a real terminal: a single-file program ({@code java Prog.java}) runs
 * in a detached tmux session, the test types commands with {@code tmux send-keys} and reads the
 * screen with {@code tmux capture-pane}. The session lives on a tmux server of its own, which the
 * test ends.
 */
class ComptimeTmuxTest {
    private static final String PROGRAM = """
            import dev.ember.Ember;
            import dev.ember.Fn2;
            import dev.ember.dynamo.Comptime;
            import dev.ember.tensor.Tensor;

            public class Prog {
                static Tensor f(Tensor x, int n) {
                    Tensor y = x.relu().mul(n);
                    Comptime.breakpoint();
                    return y.sum();
                }

                public static void main(String[] args) {
                    var g = Ember.compile((Fn2<Tensor, Integer, Tensor>) Prog::f);
                    Tensor x = Tensor.randn(3, 4);
                    System.out.println("same as eager: " + (Math.abs(g.apply(x, 2).item() - x.relu().mul(2).sum().item()) < 1e-4));
                }
            }
            """;

    private static final String PROMPT = "(comptime) ";
    /** The prompt as capture-pane shows it at the end of a line: without its trailing space. */
    private static final String PROMPT_SHOWN = PROMPT.strip();
    private static final long TIMEOUT_MS = 120_000;

    private final String server = "ember-comptime-test-" + ProcessHandle.current().pid();

    @Test
    void typesCommandsIntoTheConsoleOfAProgramOnATerminal(@TempDir Path dir) throws Exception {
        assumeTrue(tmuxInstalled(), "tmux is not installed (apt-get install tmux): this test types into a terminal it runs in tmux");
        Files.writeString(dir.resolve("Prog.java"), PROGRAM);
        Path script = dir.resolve("run.sh");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Files.writeString(script, String.join("\n",
                "cd '" + dir + "'",
                "unset EMBER_LOGS",
                "'" + java + "' --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -cp '" + System.getProperty("java.class.path") + "' Prog.java",
                "echo \"exit code $?\"",
                "sleep 600", ""));
        tmux("new-session", "-d", "-s", "comptime", "-x", "220", "-y", "50", "sh '" + script + "'");
        try {
            String screen = waitFor(s -> prompts(s) == 1, "the console's prompt");
            assertTrue(screen.contains("Comptime.breakpoint() at Prog.java:9 in Prog.f: tracing is paused"), screen);
            assertTrue(screen.contains("  9  Comptime.breakpoint();"), "the line, read from Prog.java: " + screen);

            type("locals");
            screen = waitFor(s -> prompts(s) == 2, "the answer to locals");
            assertTrue(screen.contains("locals of Prog.f at Prog.java:9 (bci "), screen);
            // java Prog.java compiles without -g: no LocalVariableTable, so slots have no names, and the console says so
            assertTrue(screen.contains("\n  slot  name  type  value\n  0     ?     ?     Tensor f32[3, 4]  graph node l_arg0_, from L['arg0']\n"
                    + "  1     ?     ?     Integer 2  constant, from L['arg1']\n  2     ?     ?     Tensor f32[3, 4]  graph node mul\n"
                    + "  (no names: the class was compiled without -g"), screen);

            type("local 2.type()");
            screen = waitFor(s -> prompts(s) == 3, "the answer to local 2.type()");
            assertTrue(screen.contains(PROMPT + "local 2.type()\ndev.ember.tensor.Tensor\n"), screen);

            type("local 1.asConstant()");
            screen = waitFor(s -> prompts(s) == 4, "the answer to local 1.asConstant()");
            assertTrue(screen.contains(PROMPT + "local 1.asConstant()\n2\n"), screen);

            type("graph");
            screen = waitFor(s -> prompts(s) == 5, "the answer to graph");
            assertTrue(screen.contains("graph so far (2 ops, no output yet):"), screen);
            assertTrue(screen.contains("// Prog.java:8  Tensor y = x.relu().mul(n);"), screen);

            type("disas");
            screen = waitFor(s -> prompts(s) == 6, "the answer to disas");
            assertTrue(screen.contains("\n    line 9  Comptime.breakpoint();\n-->      10   invokestatic   void Comptime.breakpoint()\n"), screen);

            type("where");
            screen = waitFor(s -> prompts(s) == 7, "the answer to an unknown command");
            assertTrue(screen.contains(PROMPT + "where\nunknown command 'where': type help for the commands, continue to resume tracing\n"), screen);

            type("continue");
            screen = waitFor(s -> s.contains("exit code "), "the program's end");
            assertTrue(screen.contains("same as eager: true\nexit code 0"), screen);
        } finally {
            tmux("kill-server");
        }
    }

    private static int prompts(String screen) { return screen.split(java.util.regex.Pattern.quote(PROMPT_SHOWN), -1).length - 1; }

    private void type(String command) throws IOException, InterruptedException {
        tmux("send-keys", "-t", "comptime", "-l", command);
        tmux("send-keys", "-t", "comptime", "Enter");
    }

    /** The whole screen (history included, wrapped lines joined) once {@code done} holds of it. */
    private String waitFor(Predicate<String> done, String what) throws IOException, InterruptedException {
        long end = System.currentTimeMillis() + TIMEOUT_MS;
        String screen = "";
        while (System.currentTimeMillis() < end) {
            screen = tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "comptime");
            if (done.test(screen)) return screen;
            Thread.sleep(200);
        }
        fail("waited " + TIMEOUT_MS / 1000 + " s for " + what + "; the screen:\n" + screen);
        return screen;
    }

    /** Runs tmux on this test's own server; its output. */
    private String tmux(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("tmux", "-L", server));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putIfAbsent("TERM", "xterm");
        pb.environment().remove("TMUX");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "tmux " + String.join(" ", args) + " did not finish");
        if (!args[0].equals("kill-server")) assertEquals(0, p.exitValue(), "tmux " + String.join(" ", args) + ": " + out);
        return out;
    }

    private static boolean tmuxInstalled() {
        try {
            Process p = new ProcessBuilder("tmux", "-V").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }
}
