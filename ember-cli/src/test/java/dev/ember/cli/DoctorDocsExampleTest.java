package dev.ember.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** docs/doctor.md's example, as written there: doctor over the single-file program, then --verify over its fixed version. */
class DoctorDocsExampleTest {
    @TempDir
    Path tmp;

    private static final Path PAGE = Path.of("../docs/doctor.md");

    /** The page's java blocks, in order. */
    private static List<String> programs() throws IOException {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(PAGE));
        while (m.find()) out.add(m.group(1));
        return out;
    }

    /** The {@code java} command that runs {@code Slow.java} from source with this test's class path. */
    static List<String> javaCommand(Path source) {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "--enable-native-access=ALL-UNNAMED",
                "--add-modules", "jdk.incubator.vector", "-cp", System.getProperty("java.class.path"), source.toString());
    }

    record Run(int code, String out) {}

    static Run doctor(List<String> options, List<String> command) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of("doctor"));
        args.addAll(options);
        args.add("--");
        args.addAll(command);
        int code = Main.run(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8));
    }

    private static int lineOf(String program, String code) {
        List<String> lines = program.lines().toList();
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).strip().startsWith(code)) return i + 1;
        throw new AssertionError("not in the program: " + code);
    }

    @Test
    void ranksTheBreakThenTheRecompileWithTheirFixesAndVerifiesTheFixedProgram() throws IOException {
        List<String> programs = programs();
        String slow = programs.get(0), fixed = programs.get(1);
        Path source = Files.createDirectories(tmp.resolve("before")).resolve("Slow.java");
        Files.writeString(source, slow);
        Path trace = tmp.resolve("trace");

        Run r = doctor(List.of("--trace", trace.toString()), javaCommand(source));
        String out = r.out();
        assertEquals(0, r.code(), out);
        assertTrue(out.indexOf("done\n") < out.indexOf("ember doctor: "), "the program's output first: " + out);
        String at = "Slow.java:" + lineOf(slow, "LockSupport.parkNanos");
        String first = "Slow.java:" + lineOf(slow, "Tensor y = x.relu();");
        // the table: 40 calls x 20 ms of eager work outrank any compile
        assertTrue(Pattern.compile("\n +1  graph break GB0003  " + at + " +[0-9.]+ ms +[0-9.]+ ms +41  ≤ [0-9.]+ ms\n").matcher(out).find(), out);
        assertTrue(Pattern.compile("\n +[23]  recompile +" + first + " ").matcher(out).find(), "step's recompile, beside its resume method's: " + out);
        assertTrue(out.contains("\n1. graph break GB0003 in Slow.step at " + at + "  ["), out);
        assertTrue(out.contains("\n   why:  Unsupported function call: "), out);
        assertTrue(out.contains("\n   fix:  Move the call outside the compiled function, or pass its result in as an argument.\n"
                + "         (docs/graph-breaks/GB0003.md)\n"), out);
        assertTrue(out.contains("\n   why:  tensor 'arg0' size mismatch at index 0. expected 8, actual 16\n"
                + "   fix:  Ember.markDynamic(<argument 0>, 0);   // before the first call: one graph for every size of this dim\n"), out);
        assertTrue(out.contains("after your change: ember doctor --verify " + trace.toAbsolutePath() + " -- "), out);

        Path fixedSource = Files.createDirectories(tmp.resolve("after")).resolve("Slow.java");
        Files.writeString(fixedSource, fixed);
        Run v = doctor(List.of("--verify", trace.toString()), javaCommand(fixedSource));
        assertEquals(0, v.code(), v.out());
        assertTrue(v.out().contains("ember doctor --verify: the saved run (before) and this one (after)\n"), v.out());
        assertTrue(Pattern.compile("\n  graphs +\\d+ +1 +-\\d+\n  graph breaks +2 +0 +-2\n  recompiles +2 +0 +-2\n").matcher(v.out()).find(), v.out());
        assertTrue(v.out().contains("no graph break and no recompile"), v.out());
    }
}
