package dev.ember.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BisectCommandTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();

    private int ember(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() { return out.toString(StandardCharsets.UTF_8); }

    private String err() { return err.toString(StandardCharsets.UTF_8); }

    private static String lastLine(String s) { return s.strip().lines().reduce((a, b) -> b).orElse(""); }

    @Test
    void findsTheFirstBadLoweringOfAJavaProgram() throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> lines = Files.readAllLines(Path.of("src/test/java/dev/ember/cli/BisectTarget.java"));
        int line = lines.indexOf("        return x.tanh().mul(2.0);") + 1;
        assertEquals(0, ember("bisect", "--", java, "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-cp", System.getProperty("java.class.path"),
                BisectTarget.class.getName()), out() + err());
        assertEquals("ember bisect: fails with backend inductor, passes with aot_eager; first bad step: lowering #2 aten.mul.Scalar (node mul at BisectTarget.java:"
                + line + ")", lastLine(out()), out());
        assertTrue(out().contains("  backend eager                                      passes\n"), out());
    }

    @Test
    void aProgramThatFailsWithEagerTooIsNotTheCompilers() {
        assertEquals(1, ember("bisect", "--", "false"));
        assertEquals("ember bisect: fails with backend eager too: not a compiler problem (eager runs the captured graphs op by op). "
                + "If the program passes without Ember.compile, capture is at fault: look at EMBER_LOGS=graph_breaks,graph_code", lastLine(out()));
    }

    @Test
    void aPassingProgramHasNothingToBisect() {
        assertEquals(1, ember("bisect", "--", "true"));
        assertTrue(lastLine(out()).startsWith("ember bisect: passes with backend inductor: nothing to bisect"), out());
    }

    @Test
    void grepTurnsOutputIntoFailure() {
        assertEquals(1, ember("bisect", "--grep", "NaN", "--", "sh", "-c", "echo loss: NaN"));
        assertTrue(out().startsWith("ember bisect: running `sh -c echo loss: NaN`; a run fails when it exits with a non-zero code or its output contains \"NaN\""), out());
        assertTrue(lastLine(out()).startsWith("ember bisect: fails with backend eager too"), out());
    }

    @Test
    void aRunLongerThanTheTimeoutFails() {
        long t0 = System.nanoTime();
        assertEquals(1, ember("bisect", "--timeout", "1", "--", "sleep", "30"));
        assertTrue(System.nanoTime() - t0 < 20_000_000_000L, "each run was stopped after a second");
        assertTrue(lastLine(out()).startsWith("ember bisect: fails with backend eager too"), out());
        assertEquals(2, ember("bisect", "--timeout", "soon", "--", "true"));
        assertEquals("ember bisect: --timeout needs a whole number of seconds greater than 0, got 'soon'", err().strip());
    }

    @Test
    void noCommandOrOneThatCannotStartSaysWhatToGive() {
        assertEquals(2, ember("bisect"));
        assertEquals("ember bisect: no command to bisect: give it after --, e.g. ember bisect -- java -cp app.jar MyApp", err().strip());
        err.reset();
        assertEquals(2, ember("bisect", "--", "/no/such/program"));
        assertTrue(err().startsWith("ember bisect: cannot start `/no/such/program` ("), err());
        assertTrue(err().strip().endsWith("give the command as you would type it, after --, e.g. ember bisect -- java -cp app.jar MyApp"), err());
    }
}
