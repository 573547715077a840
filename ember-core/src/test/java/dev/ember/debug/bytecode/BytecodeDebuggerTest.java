package dev.ember.debug.bytecode;

import dev.ember.Ember;
import dev.ember.Fn0;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BytecodeDebuggerTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor twoGraphs(Tensor x) {
        Tensor y = x.relu().neg();
        Ember.graphBreak();
        return y.add(x);
    }

    private static final Object LOCK = new Object();
    static int counter;

    /**
     * A break at {@code monitorenter}: the rest of the method cannot leave the generated code, so the
     * whole synchronized block (loops, longs and doubles, arrays, a switch, string concatenation, a
     * lambda, a caught exception, a static field) runs inside {@code breakAt}, in the interpreter.
     */
    static Tensor locked(Tensor x) {
        Tensor y = x.mul(3);
        synchronized (LOCK) {
            int n = 0;
            long acc = 1;
            double d = 0.5;
            for (int i = 0; i < 5; i++) {
                n += i * 2;
                acc *= 3;
                d += i / 2.0;
            }
            int[] small = {1, 2, 3};
            long[][] grid = new long[2][3];
            grid[1][2] = acc;
            boolean[] flags = new boolean[2];
            flags[1] = n > 3;
            char c = (char) ('a' + n % 26);
            byte b = (byte) (n * 50);
            String s = "n=" + n + " acc=" + acc + " c=" + c;
            try {
                Integer.parseInt(s);
            } catch (NumberFormatException e) {
                n++;
            }
            IntUnaryOperator twice = v -> v * 2;
            n = twice.applyAsInt(n);
            switch (n % 3) {
                case 0 -> n += 7;
                case 1 -> n -= 1;
                default -> n *= 2;
            }
            StringBuilder sb = new StringBuilder().append(s).append(flags[1]);
            List<Integer> list = new ArrayList<>(List.of(small[0], small[2]));
            Object o = list;
            if (o instanceof List<?> l2) n += l2.size();
            counter += n;
            y = y.add(n + b + sb.length() + (float) d + grid[1][2] % 7 + (c == 'u' ? 1 : 0));
        }
        return y;
    }

    /**
     * The resume method starts with a synchronized block: its own compile breaks at monitorenter with
     * nothing in its graph, so it runs eagerly, and the debugger interprets it.
     */
    static Tensor eagerResume(Tensor x) {
        Tensor y = x.relu();
        Ember.graphBreak();
        synchronized (LOCK) {
            y = y.add(x.sum().item() > 1e9 ? 1 : 2);
        }
        return y;
    }

    @Test
    void aResumeMethodThatRunsEagerlyIsInterpreted() {
        var f = Ember.compile(BytecodeDebuggerTest::eagerResume);
        Tensor x = Tensor.of(1f, -2f);
        Tensor expected = f.apply(x);
        List<String> commands = new ArrayList<>(List.of("s 5"));
        for (int i = 0; i < 40; i++) commands.add("s 3");
        var out = new ByteArrayOutputStream();
        Tensor got = BytecodeDebugger.debug(() -> f.apply(x), new PrintStream(out, true), commands.toArray(String[]::new));
        assertTrue(got.sameData(expected) && got.sameData(eagerResume(x)), got + " vs " + expected);
        assertTrue(out.toString().matches("(?s).*BytecodeDebuggerTest\\.resume_in_eagerResume_at_\\d+: compiled entry \\d+/0 .*"
                + "invoke +resume_in_eagerResume_at_\\d+\\(…\\) +// resume method run as plain bytecode: no graph.*"), out.toString());
        assertTrue(out.toString().matches("(?s).*BytecodeDebuggerTest\\$Resume\\d+\\.resume_in_eagerResume_at_\\d+\\(Tensor, Tensor\\) : Tensor  \\(generated code, interpreted\\).*"),
                "stepped into the resume method's bytecode: " + out);
    }

    private static String debug(Fn0<?> call, String... commands) {
        var out = new ByteArrayOutputStream();
        BytecodeDebugger.debug(call, new PrintStream(out, true), commands);
        return out.toString();
    }

    @Test
    void theInterpretedGeneratedCodeReturnsWhatTheCallReturns() {
        var f = Ember.compile(BytecodeDebuggerTest::locked);
        Tensor x = Tensor.of(1f, 2f, 3f);
        int before = counter;
        Tensor expected = f.apply(x);
        int added = counter - before;
        var out = new ByteArrayOutputStream();
        Tensor got = BytecodeDebugger.debug(() -> f.apply(x), new PrintStream(out, true), "s 5", "l 0, 10000", "c");
        assertTrue(got.sameData(expected), got + " vs " + expected + "\n" + out);
        assertTrue(got.sameData(locked(x)), "as eager");
        assertEquals(before + 3 * added, counter, "the static field was written once per call, by the interpreter too");
        assertTrue(out.toString().matches("(?s).*monitorenter +// graph break: this instruction runs as ordinary bytecode.*"), "the break is at the synchronized block: " + out);
    }

    @Test
    void stepsIntoTheResumeMethodsCompiledFrame() {
        var f = Ember.compile(BytecodeDebuggerTest::twoGraphs);
        Tensor x = Tensor.randn(4);
        // small steps, so that the session stops inside each frame it passes (a frame's heading is printed at its first stop)
        List<String> commands = new ArrayList<>(List.of("s 5", "l"));
        for (int i = 0; i < 60; i++) commands.add("s 2");
        String out = debug(() -> f.apply(x), commands.toArray(String[]::new));
        assertTrue(out.contains("BytecodeDebuggerTest.twoGraphs: compiled entry"), out);
        assertTrue(out.contains(".breakAt(Object[], ResumeTarget) : Tensor  (generated code, interpreted)"), "stepped into breakAt: " + out);
        assertTrue(out.matches("(?s).*BytecodeDebuggerTest\\.resume_in_twoGraphs_at_\\d+: compiled entry \\d+/0.*"), "then into the resume method's frame: " + out);
        int breakAt = out.indexOf(".breakAt(Object[]"), resume = out.indexOf(".resume_in_twoGraphs_at_");
        assertTrue(breakAt < resume, out);
        assertTrue(out.contains("the call returned f32[4]"), out);
    }

    @Test
    void localsAndStackAreTyped() {
        var f = Ember.compile(BytecodeDebuggerTest::locked);
        Tensor x = Tensor.of(1f, 2f);
        // into breakAt, then far enough into the block for ints, longs and doubles in locals
        String out = debug(() -> f.apply(x), "locals", "s 5", "locals", "s 40", "locals", "stack");
        assertTrue(out.contains("locals of BytecodeDebuggerTest.locked:\n    0  x          f32[2]\n"), out);
        assertTrue(out.contains("locals of breakAt:\n    0  live       Object["), "breakAt's arguments, named as its parameters: " + out);
        assertTrue(out.matches("(?s).*locals of breakAt:\n.*  y +f32\\[2\\].*"), "y is live after the break: " + out);
        assertTrue(out.matches("(?s).*  \\d+  acc +long \\d+\n.*"), "a long, typed: " + out);
        assertTrue(out.matches("(?s).*  \\d+  d +double [\\d.]+\n.*"), "a double, typed: " + out);
    }

    /** The bci of the first instruction in {@code listing} whose mnemonic matches {@code mnemonics}. */
    private static int firstBci(String listing, String mnemonics) {
        Matcher m = Pattern.compile("\n {4}( *\\d+)  (?:" + mnemonics + ")\\b").matcher(listing);
        assertTrue(m.find(), listing);
        return Integer.parseInt(m.group(1).strip());
    }

    @Test
    void aBreakpointStopsThereAndIsMarked() {
        var f = Ember.compile(BytecodeDebuggerTest::twoGraphs);
        Tensor x = Tensor.randn(4);
        int bci = firstBci(debug(() -> f.apply(x), "s 5", "l 0, 1000", "q"), "invokevirtual +ResumeTarget\\.call");
        String out = debug(() -> f.apply(x), "s 5", "b " + bci, "b", "c", "stack", "c");
        assertTrue(out.contains("breakpoint at bci " + bci + " of breakAt"), out);
        assertTrue(out.matches("(?s).*breakpoint at bci " + bci + " of BytecodeDebuggerTest\\$Resume\\d+\\.breakAt\\(Object\\[\\], ResumeTarget\\) : Tensor\n.*"), out);
        assertTrue(out.matches("(?s).*\n=>\\* +" + bci + "  invokevirtual +ResumeTarget\\.call.*"), "stopped at the breakpoint, marked: " + out);
        assertTrue(out.matches("(?s).*stack of breakAt \\(bottom first\\):\n  ResumeTarget\n  Object\\[\\d+\\]\n.*"), out);
    }

    @Test
    void aBreakpointInsideAnInstructionNamesTheNearestStarts() {
        var f = Ember.compile(BytecodeDebuggerTest::twoGraphs);
        Tensor x = Tensor.randn(4);
        // an instruction longer than one byte: the bci after its start is inside it
        int start = firstBci(debug(() -> f.apply(x), "s 5", "l 0, 1000", "q"), "checkcast|invokevirtual|invokestatic|goto");
        String out = debug(() -> f.apply(x), "s 5", "b " + (start + 1), "c");
        assertTrue(out.contains("b " + (start + 1) + ": no instruction of breakAt starts at bci " + (start + 1) + "; the nearest start at " + start + " and "), out);
    }

    @Test
    void quitLetsTheCallFinishWithoutStopping() {
        var f = Ember.compile(BytecodeDebuggerTest::twoGraphs);
        Tensor x = Tensor.randn(4);
        Tensor expected = f.apply(x);
        var out = new ByteArrayOutputStream();
        Tensor got = BytecodeDebugger.debug(() -> f.apply(x), new PrintStream(out, true), "q", "s");
        assertTrue(got.sameData(expected));
        assertTrue(out.toString().contains("quit: the call runs to its end without stopping"), out.toString());
        assertFalse(out.toString().contains("(bdb) s"), "no command is read after q: " + out);
    }

    @Test
    void commandsFromAReaderAndTheEndOfTheCommands() {
        var f = Ember.compile(BytecodeDebuggerTest::twoGraphs);
        Tensor x = Tensor.randn(4);
        var out = new ByteArrayOutputStream();
        Tensor got = BytecodeDebugger.debug(() -> f.apply(x), new StringReader("s 2\n\nhelp\n"), new PrintStream(out, true));
        assertTrue(got.sameData(f.apply(x)));
        assertTrue(out.toString().contains("s [n]           step n instructions"), out.toString());
        assertTrue(out.toString().contains("(no more commands: the call runs to its end)"), out.toString());
    }

    @Test
    void badInputSaysWhatIsWrongAndGoesOn() {
        var f = Ember.compile(BytecodeDebuggerTest::twoGraphs);
        Tensor x = Tensor.randn(4);
        String out = debug(() -> f.apply(x), "jump 3", "s abc", "s 0", "l 3, 1", "b 99", "s 6", "b 100000", "l 100000", "locals extra", "c");
        assertTrue(out.contains("unknown command 'jump 3': the commands are l, s, b, c, locals, stack, help and q"), out);
        assertTrue(out.contains("s: 'abc' is not a count of instructions (a whole number, 0 or more)"), out);
        assertTrue(out.contains("s 0: the count of instructions to step must be 1 or more"), out);
        assertTrue(out.contains("l 3, 1: the end (1) is before the start (3)"), out);
        assertTrue(out.contains("b 99: beyond the end of BytecodeDebuggerTest.twoGraphs, whose last instruction is at bci 4"), out);
        assertTrue(out.contains("b 100000: beyond the end of breakAt, whose last instruction is at bci "), out);
        assertTrue(out.contains("l 100000: breakAt ends at bci "), out);
        assertTrue(out.contains("locals: too many arguments (extra)"), out);
        assertTrue(out.contains("the call returned f32[4]"), "bad commands do not stop the session: " + out);
    }

    @Test
    void aCallOfNoCompiledFunctionIsAClearError() {
        Tensor x = Tensor.randn(2);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> BytecodeDebugger.debug(() -> x.relu(), "s"));
        assertTrue(e.getMessage().startsWith("BytecodeDebugger.debug: the call ran no function compiled by Ember, so there was nothing to step through"
                + " (it returned f32[2]). Debug a call of the function Ember.compile returned"), e.getMessage());
        IllegalArgumentException n = assertThrows(IllegalArgumentException.class, () -> BytecodeDebugger.debug(null, "s"));
        assertTrue(n.getMessage().contains("needs the call to debug"), n.getMessage());
    }

    @Test
    void aWholeGraphHasNoGeneratedCodeButItsStepsAreListed() {
        var f = Ember.compile((dev.ember.Fn1<Tensor, Tensor>) t -> t.exp().sum());
        Tensor x = Tensor.randn(3);
        String out = debug(() -> f.apply(x), "l", "s 3", "stack", "c");
        assertTrue(out.contains("return          the value rebuilt from the graph's outputs"), out);
        assertTrue(out.contains("stack of"), out);
        assertTrue(out.contains("f32[]"), "the graph's output, typed: " + out);
    }
}
