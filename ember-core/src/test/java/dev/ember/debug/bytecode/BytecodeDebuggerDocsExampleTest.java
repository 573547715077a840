package dev.ember.debug.bytecode;

import dev.ember.Ember;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The example of docs/bytecode-debugger.md, as written there. */
class BytecodeDebuggerDocsExampleTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor fn(Tensor x) {
        Tensor y = x.sin();
        System.out.println("y has " + y.dim() + " dims");   // replayed after the graph runs
        Ember.graphBreak();                                 // the rest is a resume method
        return y.mul(2);
    }

    @Test
    void stepsFromTheGraphCallIntoTheGeneratedCode() {
        var f = Ember.compile(BytecodeDebuggerDocsExampleTest::fn);
        Tensor x = Tensor.randn(3, 4);
        var session = new ByteArrayOutputStream();

        Tensor y = BytecodeDebugger.debug(() -> f.apply(x), new PrintStream(session, true),
                "l", "s 5", "stack", "s", "l 0, 100", "c");

        String out = session.toString();
        System.out.print(out);
        assertTrue(y.sameData(f.apply(x)), "the debugged call returns what the call returns");
        // the frame evaluator's steps for the cache entry: guards, graph, side effect, the break
        assertTrue(out.matches("(?s)BytecodeDebuggerDocsExampleTest\\.fn: compiled entry \\d+/0 .*"), "it stops before the first step: " + out);
        assertTrue(out.contains("check_guards") && out.contains("// guard check"), out);
        assertTrue(out.matches("(?s).*call_graph +__compiled_fn_\\d+_0\\(1 input\\) +// call compiled graph __compiled_fn_\\d+_0\n.*"), out);
        assertTrue(out.contains("// replay side effect: System.out.println(\"y has 2 dims\")"), out);
        assertTrue(out.contains("=>     5  invoke"), "s 5 stops before the step into the generated code: " + out);
        assertTrue(out.contains("stack of BytecodeDebuggerDocsExampleTest.fn (bottom first):\n  f32[3, 4]\n"), "the live value y: " + out);
        // the generated code, javap-style, with the source line and what each key instruction is for
        assertTrue(out.contains(".breakAt(Object[], ResumeTarget) : Tensor  (generated code, interpreted)"), out);
        assertTrue(out.contains("// restore the live values"), out);
        assertTrue(out.contains("// graph break: this instruction runs as ordinary bytecode"), out);
        assertTrue(out.contains("invokestatic    Ember.graphBreak() : void"), out);
        assertTrue(out.contains("// BytecodeDebuggerDocsExampleTest.java:"), "source lines: " + out);
        assertTrue(out.matches("(?s).*invokevirtual +ResumeTarget\\.call\\(Object\\[\\]\\) : Object +// resume → resume_in_fn_at_\\d+.*"), out);
        assertTrue(out.contains("the call returned f32[3, 4]"), out);
    }
}
