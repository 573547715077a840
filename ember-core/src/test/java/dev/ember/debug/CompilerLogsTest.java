package dev.ember.debug;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.fx.Backends;
import dev.ember.fx.CompiledGraph;
import dev.ember.logging.Logs;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What each EMBER_LOGS name prints for the known programs of {@link DebugPrograms}. */
class CompilerLogsTest {
    private final PrintStream stderr = Logs.output();

    @AfterEach
    void restore() {
        Logs.set("");
        Logs.setOutput(stderr);
        CompileProfiler.disable();
        CompileProfiler.reset();
        Ember.reset();
    }

    private static String capture(String logs, Runnable body) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        Logs.setOutput(new PrintStream(buf, true, StandardCharsets.UTF_8));
        Ember.setLogs(logs);
        body.run();
        return buf.toString(StandardCharsets.UTF_8);
    }

    private static final int MUL = DebugPrograms.lineOf("x.mul(2.0)"), ITEM = DebugPrograms.lineOf(".item();");

    @Test
    void graphBreaksNameTheLineAndTheGbId() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) DebugPrograms::breaksOnItem);
        String out = capture("graph_breaks", () -> f.apply(Tensor.randn(3, 4)));
        assertTrue(out.contains("[graph_breaks] Graph break in user code at DebugPrograms.java:" + ITEM), out);
        assertTrue(out.contains("GB0001"), out);
    }

    @Test
    void recompilesNameTheFailedGuardAndGuardsListTheNewEntry() {
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) DebugPrograms::scaleShift);
        String out = capture("recompiles,guards", () -> {
            f.apply(Tensor.randn(3, 4), Tensor.randn(4));
            f.apply(Tensor.randn(5, 4), Tensor.randn(4));
        });
        assertTrue(out.contains("Recompiling function DebugPrograms.scaleShift in DebugPrograms.java:"), out);
        assertTrue(out.contains("- tensor 'x' size mismatch at index 0. expected 3, actual 5"), out);
        assertTrue(out.contains("(a size that changes becomes a symbol at this recompile, unless Options.dynamic(false) or Ember.markStatic keep it static;"),
                "a size change says so: " + out);
        assertTrue(out.contains("GUARDS for DebugPrograms.scaleShift"), out);
        assertTrue(out.contains("TENSOR_MATCH: L['x'] f32["), out);
    }

    /** A mean over the batch divides by a float the lowered training graph cannot keep generic in the batch size. */
    static Tensor centered(Tensor x, Tensor scale) { return x.sub(x.mean(0, true)).mul(scale); }

    /** A graph kept static: the second size change must not promise a symbol again, and says what happens instead. */
    @Test
    void aGraphKeptStaticSaysSoAtTheNextRecompile() {
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) CompilerLogsTest::centered);
        Tensor scale = Tensor.randn(4).requiresGrad(true);
        String out = capture("recompiles", () -> {
            for (int rows : new int[] {3, 5, 7}) f.apply(Tensor.randn(rows, 4), scale).sum().backward();
        });
        int first = out.indexOf("expected 3, actual 5"), second = out.indexOf("expected 5, actual 7");
        assertTrue(first >= 0 && second > first, out);
        assertTrue(out.substring(first, second).contains("(a size that changes becomes a symbol at this recompile"), "the first change promises a symbol: " + out);
        String after = out.substring(second);
        assertTrue(after.contains("(the newest graph was compiled for its sizes only: "), after);
        assertTrue(after.contains("so each new size compiles again, up to the recompile limit"), after);
        assertFalse(after.contains("becomes a symbol at this recompile"), "no promise the graph cannot keep: " + after);
    }

    @Test
    void graphCodeAndGraphSizes() {
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) DebugPrograms::scaleShift);
        String out = capture("graph_code,graph_sizes", () -> f.apply(Tensor.randn(3, 4), Tensor.randn(4)));
        assertTrue(out.contains("[graph_code] TRACED GRAPH of DebugPrograms.scaleShift"), out);
        assertTrue(out.contains("DebugPrograms.java:" + MUL), "source lines in graph_code: " + out);
        assertTrue(out.contains("[graph_sizes] TRACED GRAPH TENSOR SIZES of DebugPrograms.scaleShift"), out);
        assertTrue(out.matches("(?s).*\\[graph_sizes\\]   l_x_: \\(3, 4\\) f32\n.*"), out);
        assertTrue(out.matches("(?s).*\\[graph_sizes\\]   l_y_: \\(4,\\) f32\n.*"), out);
        assertTrue(out.matches("(?s).*\\[graph_sizes\\]   relu: \\(3, 4\\) f32\n.*"), out);
    }

    @Test
    void bytecodeShowsTheOriginalAndTheGeneratedCode() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) DebugPrograms::breaksOnItem);
        String out = capture("bytecode", () -> f.apply(Tensor.randn(3, 4)));
        assertTrue(out.contains("[bytecode] ORIGINAL BYTECODE of DebugPrograms.breaksOnItem (DebugPrograms.java:"), out);
        assertTrue(out.contains("[bytecode] MODIFIED BYTECODE of DebugPrograms.breaksOnItem after the graph break at DebugPrograms.java:" + ITEM), out);
        assertTrue(out.contains("ORIGINAL BYTECODE of DebugPrograms.resume_in_breaksOnItem_at_" + ITEM), "the resume method's own listing: " + out);
    }

    @Test
    void traceSourceFollowsTheUserLines() {
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) DebugPrograms::scaleShift);
        String out = capture("trace_source", () -> f.apply(Tensor.randn(3, 4), Tensor.randn(4)));
        int a = out.indexOf("TRACE starts_line DebugPrograms.java:" + MUL + " in DebugPrograms.scaleShift");
        int b = out.indexOf("TRACE starts_line DebugPrograms.java:" + (MUL + 1));
        int c = out.indexOf("TRACE starts_line DebugPrograms.java:" + (MUL + 2));
        assertTrue(a >= 0 && a < b && b < c, out);
        assertTrue(out.contains("[trace_source]     Tensor scaled = x.mul(2.0);"), "the source text: " + out);
        assertEquals(1, out.split("starts_line DebugPrograms.java:" + MUL + " ", -1).length - 1, "each line once: " + out);
    }

    @Test
    void traceCallNamesEachNodeWithTheLineItCameFrom() {
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) DebugPrograms::scaleShift);
        String out = capture("trace_call", () -> f.apply(Tensor.randn(3, 4), Tensor.randn(4)));
        int call = out.indexOf("TRACE FX call mul from DebugPrograms.java:" + MUL + " in DebugPrograms.scaleShift");
        assertTrue(call >= 0, out);
        assertTrue(out.indexOf("Tensor scaled = x.mul(2.0);", call) > call, "the source text: " + out);
        assertTrue(out.indexOf("%mul : ", call) > call && out.indexOf("call_function[target=aten.mul.Scalar]", call) > call, "the node made: " + out);
        assertFalse(out.contains("starts_line"), "trace_call alone: " + out);
    }

    @Test
    void traceBytecodeShowsEachInstructionWithTheStackItFinds() {
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) DebugPrograms::scaleShift);
        String out = capture("trace_bytecode", () -> f.apply(Tensor.randn(3, 4), Tensor.randn(4)));
        var mul = java.util.regex.Pattern.compile("TRACE +\\d+  invokevirtual +Tensor Tensor\\.mul\\(double\\) +\\[(.*)\\]  \\(DebugPrograms\\.java:" + MUL + " ").matcher(out);
        assertTrue(mul.find(), out);
        assertTrue(mul.group(1).contains("Tensor") && mul.group(1).contains(", "), "the receiver and the constant on the stack: " + mul.group(1));
        assertTrue(out.contains("aload_0"), "every instruction, loads too: " + out);
    }

    @Test
    void dynamicSaysHowShapesAreTreatedAndGraphCountSummarises() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) DebugPrograms::breaksOnItem, Options.defaults().dynamic(true));
        String out = capture("dynamic,dynamo", () -> f.apply(Tensor.randn(3, 4)));
        assertTrue(out.contains("[dynamic] dynamic shapes for DebugPrograms.breaksOnItem: every tensor input's sizes of 2 or more are symbols"), out);
        assertTrue(out.contains("[dynamo] Graph Count for DebugPrograms.breaksOnItem: 1 graph(s) in 1 compile(s), 1 graph break(s), 3 op(s)"), out);
    }

    @Test
    void perfHintsReportTheRecompileLimitAndEagerFallbacks() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) DebugPrograms::breaksOnItem, Options.defaults().recompileLimit(1));
        String out = capture("perf_hints", () -> {
            f.apply(Tensor.randn(3, 4));
            f.apply(Tensor.randn(2, 4));
        });
        assertTrue(out.contains("[perf_hints] DebugPrograms.breaksOnItem hit the recompile limit (1)"), out);
        assertTrue(out.contains("Last failed guard: tensor 'x' size mismatch at index 0. expected 3, actual 2"), out);
    }

    @Test
    void aBreakThatLeavesNothingCompiledWarnsOnceAtTheDefaultLevel() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) DebugPrograms::scalesAfterLongLoop);
        String out = capture("", () -> {
            f.apply(Tensor.randn(3, 4));
            f.apply(Tensor.randn(2, 4));
        });
        String warning = "ember: graph break at DebugPrograms.java:" + DebugPrograms.lineOf("i < 10_000_000")
                + " in DebugPrograms.scalesAfterLongLoop (GB0010: ";
        assertTrue(out.contains(warning), out);
        assertTrue(out.contains("nothing of DebugPrograms.scalesAfterLongLoop is compiled: this function now runs eagerly"), out);
        assertEquals(1, out.split("this function now runs eagerly", -1).length - 1, "once per function: " + out);
    }

    @Test
    void aBreakAfterAnEmptyGraphWithTheRestEagerWarnsToo() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) DebugPrograms::scalesUnderLock);
        String out = capture("", () -> f.apply(Tensor.randn(3, 4)));
        assertTrue(out.contains("ember: graph break at DebugPrograms.java:" + DebugPrograms.lineOf("synchronized (LOCK)")
                + " in DebugPrograms.scalesUnderLock (GB0009: "), out);
        assertTrue(out.contains("nothing of DebugPrograms.scalesUnderLock is compiled: this function now runs eagerly"), out);
    }

    @Test
    void aGraphWithoutOpsIsNotCounted() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) DebugPrograms::passesThrough);
        String out = capture("dynamo", () -> f.apply(Tensor.randn(3)));
        assertTrue(out.contains("Graph Count for DebugPrograms.passesThrough: 0 graph(s) in 1 compile(s), 0 graph break(s), 0 op(s)"), out);
    }

    @Test
    void outputCodeShowsWhatTheBackendGenerated() {
        Backends.register("test_codegen", (gm, inputs) -> new CompiledGraph() {
            public Object[] run(Object[] in) { return ((java.util.List<?>) gm.run(in)).toArray(); }
            public String outputCode() { return "// generated for " + gm.graph().nodes().size() + " nodes"; }
        });
        var f = Ember.compile((Fn1<Tensor, Tensor>) x -> x.sin(), Options.backend("test_codegen"));
        String out = capture("output_code", () -> f.apply(Tensor.randn(3)));
        assertTrue(out.contains("[output_code] OUTPUT CODE of "), out);
        assertTrue(out.contains("(backend 'test_codegen'):"), out);
        assertTrue(out.contains("// generated for 3 nodes"), out);
    }

    /** Printing the generated code is work (a fresh JVM's first training step paid 45 ms for it): only a log or sink that shows it asks for it. */
    @Test
    void outputCodeIsNotGeneratedWhenNothingShowsIt() {
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        Backends.register("test_codegen_counted", (gm, inputs) -> new CompiledGraph() {
            public Object[] run(Object[] in) { return ((java.util.List<?>) gm.run(in)).toArray(); }
            public String outputCode() { asked.incrementAndGet(); return "// generated"; }
        });
        var f = Ember.compile((Fn1<Tensor, Tensor>) x -> x.sin(), Options.backend("test_codegen_counted"));
        capture("graph_breaks,recompiles", () -> f.apply(Tensor.randn(3)));
        assertEquals(0, asked.get(), "output code generated with no log or sink showing it");
        var g = Ember.compile((Fn1<Tensor, Tensor>) x -> x.cos(), Options.backend("test_codegen_counted"));
        String out = capture("output_code", () -> g.apply(Tensor.randn(3)));
        assertTrue(asked.get() > 0 && out.contains("// generated"), out);
    }

    @Test
    void compileProfilerTimesEachTracedFunction() {
        CompileProfiler.reset();
        CompileProfiler.enable();
        var f = Ember.compile((Fn1<Tensor, Tensor>) DebugPrograms::breaksOnItem);
        f.apply(Tensor.randn(3, 4));
        String table = CompileProfiler.table();
        assertTrue(table.startsWith("Compile time per traced function (ms):"), table);
        assertTrue(table.contains("tracing") && table.contains("backend") && table.contains("resume codegen"), table);
        assertTrue(table.lines().anyMatch(l -> l.matches("DebugPrograms\\.breaksOnItem\\s+1\\s+[\\d.\\s]+")), table);
        assertTrue(table.lines().anyMatch(l -> l.matches("DebugPrograms\\.resume_in_breaksOnItem_at_" + ITEM + "\\s+1\\s+[\\d.\\s]+")), table);
    }
}
