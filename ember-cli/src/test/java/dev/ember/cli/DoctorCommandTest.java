package dev.ember.cli;

import dev.ember.cli.DoctorDocsExampleTest.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static dev.ember.cli.DoctorDocsExampleTest.doctor;
import static dev.ember.cli.DoctorDocsExampleTest.javaCommand;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code ember doctor}'s environment, and its answers to bad input: each says what and what to do. */
class DoctorCommandTest {
    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();

    private int ember(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String err() { return err.toString(StandardCharsets.UTF_8); }

    private Path program(String name, String main) throws IOException {
        Path source = Files.createDirectories(tmp.resolve(name)).resolve("Prog.java");
        Files.writeString(source, """
                import dev.ember.Ember;
                import dev.ember.tensor.Tensor;

                public class Prog {
                    static Tensor f(Tensor x) {
                        return x.relu().mul(2);
                    }

                    public static void main(String[] args) {
                        %s
                    }
                }
                """.formatted(main));
        return source;
    }

    @Test
    void withoutACommandItPrintsTheEnvironment() {
        assertEquals(0, ember("doctor"), err());
        String s = out.toString(StandardCharsets.UTF_8);
        assertTrue(s.startsWith("ember      " + dev.ember.debug.BuildIdentity.describe() + "\njava       " + System.getProperty("java.version")), s);
        assertTrue(s.contains("\ncores      " + Runtime.getRuntime().availableProcessors() + " threads"), s);
        assertTrue(s.contains("\ncaches     ") && s.contains(" L2, "), s);
        assertTrue(s.contains("\ntuning     defaults for OpenBLAS (`ember tune` measures this machine"), "the suite runs with EMBER_TUNING=defaults, EMBER_BLAS=openblas: " + s);
        assertTrue(s.contains("\ngemm       "), s);
        assertTrue(s.contains("\nwarm-up    compiled kernels run a scalar form on their first 8 calls"),
                "the suite's JVM has the flag that turns the compiled kernels' scalar first calls on: " + s);
    }

    @Test
    void aCommandThatCannotStartIsAnErrorNamingIt() {
        assertEquals(2, ember("doctor", "--", "no-such-program-4711", "arg"));
        // the reason is the JDK's, in its words ("error=2, No such file or directory", or "Exec failed, error: 2 (No such file or directory)")
        assertTrue(err().startsWith("ember doctor: cannot start 'no-such-program-4711': "), err());
        assertTrue(err().contains("No such file or directory"), err());
        assertTrue(err().endsWith(". Give the command that runs your program, e.g. ember doctor -- java -cp app.jar com.example.Main\n"), err());
        assertFalse(err().contains("\tat "), "no stack trace");
    }

    @Test
    void aProgramThatFailsIsSaidToAndWhatItTracedIsStillRanked() throws IOException {
        Path source = program("fails", """
                var f = Ember.compile(Prog::f);
                f.apply(Tensor.randn(3));
                f.apply(Tensor.randn(5));
                System.exit(3);""");
        Run r = doctor(List.of(), javaCommand(source));
        assertEquals(3, r.code(), r.out());
        assertTrue(r.out().contains("ember doctor: the program exited with code 3; what it traced before that follows\n"), r.out());
        assertTrue(r.out().contains(" and exited with 3; 2 compilation(s): 2 graph(s), 0 graph break(s), 1 recompile(s)\n"), r.out());
        // java Prog.java compiles without local variable names: the guard says arg0, the fix says which argument
        assertTrue(r.out().contains("\n   why:  tensor 'arg0' size mismatch at index 0. expected 3, actual 5\n"
                + "   fix:  Ember.markDynamic(<argument 0>, 0);   // before the first call: one graph for every size of this dim\n"), r.out());
    }

    @Test
    void aProgramThatCompilesNothingIsSaidTo() throws IOException {
        Run r = doctor(List.of(), javaCommand(program("nothing", "System.out.println(Tensor.randn(2).shape().length);")));
        assertEquals(0, r.code(), r.out());
        assertTrue(r.out().contains("ember doctor: the program wrote no trace: it compiled nothing"), r.out());
    }

    @Test
    void badOptionsAndFoldersAreErrors() throws IOException {
        assertEquals(2, ember("doctor", "--verify", tmp.resolve("missing").toString(), "--", "java", "-version"));
        assertEquals("ember doctor: --verify " + tmp.resolve("missing") + ": no such folder; give the trace folder an earlier ember doctor run printed\n", err());

        err.reset();
        Path used = Files.createDirectories(tmp.resolve("used"));
        Files.writeString(used.resolve("dedicated_log_ember_trace_1.log"), "");
        assertEquals(2, ember("doctor", "--trace", used.toString(), "--", "java", "-version"));
        assertTrue(err().startsWith("ember doctor: " + used + " holds a trace already; name an empty folder"), err());

        err.reset();
        assertEquals(2, ember("doctor", "--frobnicate"));
        assertTrue(err().startsWith("ember doctor: unknown option --frobnicate (the program's command goes after --). usage: "), err());

        err.reset();
        assertEquals(2, ember("doctor", "--"));
        assertTrue(err().startsWith("ember doctor: no command after --."), err());
    }
}
