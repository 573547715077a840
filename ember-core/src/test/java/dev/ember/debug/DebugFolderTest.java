package dev.ember.debug;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** EMBER_COMPILE_DEBUG's folder: one folder per compile id with the graph, the repro, guards and bytecode. */
class DebugFolderTest {
    @TempDir
    Path tmp;

    @AfterEach
    void off() {
        CompileDebug.disable();
        Ember.reset();
    }

    private static List<Path> compileFolders(Path base) throws IOException {
        try (Stream<Path> runs = Files.list(base)) {
            Path run = runs.findFirst().orElseThrow();
            assertTrue(run.getFileName().toString().matches("run_[\\d_]+-pid_" + ProcessHandle.current().pid()), run.toString());
            try (Stream<Path> s = Files.list(run.resolve("ember"))) {
                return s.sorted().toList();
            }
        }
    }

    @Test
    void aCompiledGraphGetsItsFilesAndARunnableReproThatPasses() throws Exception {
        CompileDebug.enable(tmp);
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) DebugPrograms::scaleShift);
        f.apply(Tensor.randn(3, 4), Tensor.randn(4));
        List<Path> folders = compileFolders(tmp);
        assertEquals(1, folders.size(), folders.toString());
        Path dir = folders.getFirst();
        assertTrue(dir.getFileName().toString().matches("model__\\d+_0"), dir.toString());

        String readable = Files.readString(dir.resolve("fx_graph_readable.txt"));
        assertTrue(readable.contains("aten.mul.Scalar"), readable);
        assertTrue(readable.contains("DebugPrograms.java:" + DebugPrograms.lineOf("x.mul(2.0)")), "source line per node: " + readable);
        String transformed = Files.readString(dir.resolve("fx_graph_transformed.txt"));
        assertTrue(transformed.startsWith("// No pass or decomposition ran"), transformed);
        assertTrue(transformed.contains("aten.relu.default"), transformed);
        String guards = Files.readString(dir.resolve("guards.txt"));
        assertTrue(guards.contains("TENSOR_MATCH: L['x'] f32[3, 4]"), guards);
        assertTrue(guards.contains("TENSOR_MATCH: L['y'] f32[4]"), guards);
        assertTrue(Files.readString(dir.resolve("bytecode_original.txt")).contains("scaleShift"));
        assertTrue(Files.readString(dir.resolve("bytecode_transformed.txt")).contains("generated no bytecode"));
        assertFalse(Files.exists(dir.resolve("output_code.java")), "the eager backend generates no code");

        String repro = Files.readString(dir.resolve("fx_graph_runnable.java"));
        assertTrue(repro.contains("The recorded inputs.") && repro.contains("Tensor.of(new float[]"), "small inputs are recorded exactly: " + repro);
        Run r = runRepro(dir.resolve("fx_graph_runnable.java"));
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.out.startsWith("PASS: outputs match (max abs diff 0.0"), r.toString());
    }

    @Test
    void aGraphBreakWritesTheBreakAndTheGeneratedBytecode() throws Exception {
        CompileDebug.enable(tmp);
        var f = Ember.compile((Fn1<Tensor, Tensor>) DebugPrograms::breaksOnItem);
        f.apply(Tensor.randn(3, 4));
        List<Path> folders = compileFolders(tmp);
        assertEquals(2, folders.size(), "the method and its resume method: " + folders);
        Path first = folders.stream().filter(d -> Files.exists(d.resolve("graph_break.txt"))).findFirst().orElseThrow();
        String brk = Files.readString(first.resolve("graph_break.txt"));
        assertTrue(brk.contains("Graph break in user code at DebugPrograms.java:" + DebugPrograms.lineOf(".item();")), brk);
        String transformed = Files.readString(first.resolve("bytecode_transformed.txt"));
        assertTrue(transformed.contains("resume method"), transformed);
        assertTrue(transformed.toLowerCase().contains("invokevirtual"), "a listing of the generated code: " + transformed);
        String readable = Files.readString(first.resolve("fx_graph_readable.txt"));
        assertTrue(readable.contains("aten.sin.default"), readable);
        Run r = runRepro(first.resolve("fx_graph_runnable.java"));
        assertEquals(0, r.exit, r.toString());
        assertTrue(r.out.startsWith("PASS: outputs match"), r.toString());
    }

    @Test
    void aDisagreeingBackendMakesTheReproFail() {
        var expected = List.of(Tensor.of(new float[] {1f, 2f}, 2));
        var actual = new Object[] {Tensor.of(new float[] {1f, 2.5f}, 2)};
        var buf = new java.io.ByteArrayOutputStream();
        int exit = ReproCheck.report(expected, actual, "broken", new java.io.PrintStream(buf, true));
        assertEquals(1, exit);
        assertTrue(buf.toString().startsWith("FAIL: output 0: element 1 is 2.5, expected 2.0"), buf.toString());
    }

    record Run(int exit, String out, String err) {}

    static Run runRepro(Path file) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
                "-cp", System.getProperty("java.class.path"), file.toString());
        pb.environment().keySet().removeIf(k -> k.startsWith("EMBER_"));
        Path out = file.resolveSibling("repro.out"), err = file.resolveSibling("repro.err");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the repro did not finish");
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }
}
