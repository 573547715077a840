package dev.ember.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.*;

/** The programs a new user runs first must keep working and keep saying what they claim. */
class ExampleAndDemoTest {

    private static String run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int code = Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, code, "exit code; stderr: " + err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void quickStartShowsBroadcastingAndTheMatmulError() {
        String out = run("example", "QuickStart");
        assertTrue(out.contains("tensor([[11., 22., 33.],"), out);
        assertTrue(out.contains("mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"), out);
    }

    @Test
    void compileExampleRecompilesOnceAndExplainsTheBreak() {
        String out = run("example", "CompileAndExplain");
        assertTrue(out.contains("frames compiled: 2 (expected 2)"), out);
        assertTrue(out.contains("Graph Break Count: 1"), out);
        assertTrue(out.contains("fullgraph: GB0001 at CompileAndExplain.java:21"), out);
    }

    @Test
    void toolkitExampleShowsEachToolWorking() {
        String out = run("example", "toolkit");
        assertTrue(out.contains("force_eager: frames compiled 0 (expected 0)"), out);
        assertTrue(out.contains("fail_on_recompile: ") && !out.contains("no recompile was needed"), out);
        assertTrue(out.contains("errorOnGraphBreak(false) region: equals eager true, frames 2 (expected 2)"), out);
        assertTrue(out.contains("GraphModule.parse: prints the same text true"), out);
        assertTrue(out.contains("the stepped call returned eager's result: true"), out);
    }

    @Test
    void hooksExampleCompilesOnceWithItsHooksAndRecompilesWhenOneIsRemoved() {
        String out = run("example", "hooks");
        assertEquals(5, out.lines().filter(l -> l.endsWith("compiled equals eager: true")).count(), out);
        assertTrue(out.contains("frames compiled: 1 (expected 1)"), out);
        assertTrue(out.contains("activations logged: 10"), out);
        assertTrue(out.contains("after removing the clip hook: frames compiled: 2"), out);
    }

    @Test
    void trustButVerifyPassesTheAccuracyCheckInEveryModeAndNamesTheNanOp() {
        String out = run("example", "TrustButVerify");
        for (String mode : new String[] {"default", "max-autotune", "reduce-overhead"}) {
            assertTrue(out.lines().anyMatch(l -> l.startsWith("inductor " + mode + " ") && l.contains("accuracy ok")), out);
        }
        assertTrue(out.contains("debugNans: log") && out.contains("TrustButVerify.java:28"), out);
    }

    @Test
    void exportExampleSavesLoadsAndRunsTheProgram() {
        String out = run("example", "export");
        assertTrue(out.contains("p_body_0_weight:  PARAMETER    target='body.0.weight'  f32[16, 4]"), out);
        assertTrue(out.contains("loaded program vs the model: "), out);
        assertTrue(out.contains("ExportedProgram.run: input 'x' dimension 0 is 5, but the program was exported for 8"), out);
    }

    @Test
    void dynamicShapesExampleCompilesTwiceForEightBatchSizes() {
        String out = run("example", "dynamic-shapes");
        assertTrue(out.contains("batch 256: 2 compile(s) so far"), out);
        assertTrue(out.contains("training batch  64: 2 compile(s) so far"), "a training step takes the symbolic batch too: " + out);
        assertTrue(out.contains("Tensor l_images_ /* f32[s0, 1, 8, 8] */") && out.contains("SYMBOLIC_SHAPE: 2 <= images.size(0)"), out);
        assertTrue(out.contains("Range constraints: {s0=VR[2, 1024]}") && out.contains("input 'images' dimension 0 is 2000, outside the range"), out);
    }

    @Test
    void sequenceLstmExampleLearnsAndCompiledEqualsEager() {
        String out = run("example", "sequence-lstm");
        assertEquals(4, out.lines().filter(l -> l.startsWith("step ")).count(), out);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("test accuracy ([0-9.]+)%").matcher(out);
        assertTrue(m.find() && Double.parseDouble(m.group(1)) >= 85, out);
        assertTrue(out.contains("compiled equals eager: true"), out);
        assertTrue(out.contains("graphs: 1, graph breaks: 0"), out);
    }

    @Test
    void unknownExampleIsAClearError() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"example", "Nope"}, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("no example 'Nope'; examples: QuickStart, CompileAndExplain, TrustButVerify, hooks, toolkit, dynamic-shapes, sequence-lstm, export, train-mlp, train-cnn"));
    }

    @Test
    void demoRunsEndToEnd() {
        String out = run("demo");
        assertTrue(out.contains("ones(3, 4) + ones(3) → IllegalArgumentException: add: the size of tensor a (4) must match the size of tensor b (3)"), out);
        assertTrue(out.contains("compiled == eager: 0.0 max abs difference"), out);
        assertTrue(out.contains("a.addOut(x, buffer) (torch.add(a, x, out=buffer)) → tensor([[0., 8., 2.],") && out.contains("buffer.version() = 1"), out);
        assertTrue(out.contains("tensor 'x' size mismatch at index 0. expected 4, actual 6"), out);
        assertTrue(out.contains("report: open file://"), out);
        assertTrue(out.contains("Graph Break Count: 1"), out);
        assertTrue(out.contains("[GB0001]"), out);
        assertTrue(out.matches("(?s).*transcendental chain on 4M floats: compiled in \\d+ ms .*max \\|compiled - eager\\| = (0\\.00e\\+00|[0-9.]+e-0[5-9]).*"), out);
        assertTrue(out.contains("an output kept across calls is refused, not read stale:\n   \"this tensor is an output of call"), out);
    }
}
