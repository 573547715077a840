package dev.ember.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FuzzCommandTest {
    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();

    private int ember(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() { return out.toString(StandardCharsets.UTF_8); }

    private String err() { return err.toString(StandardCharsets.UTF_8); }

    @Test
    void aShortRunPrintsProgressAndTheTableAndExitsZero() {
        assertEquals(0, ember("fuzz", "--graphs", "4", "--seed", "11", "--backends", "eager,aot_eager", "--out", tmp.toString()), err());
        String o = out();
        assertTrue(o.startsWith("ember fuzz: 4 programs from seed 11, each against eager under eager, aot_eager\n"), o);
        assertTrue(o.contains("\n  " + dev.ember.debug.BuildIdentity.line() + "\n"), "the build that ran is named: " + o);
        assertTrue(o.contains("        4 programs "), o);
        assertTrue(o.contains("configuration   programs   compared  exceptions   failures\neager                  4          4           0          0\n"), o);
        assertTrue(o.contains("4 programs in 0:"), o);
        assertTrue(o.contains("0 failure(s)"), o);
    }

    @Test
    void badArgumentsAreExplainedWithExitTwo() {
        assertEquals(2, ember("fuzz", "--backends", "tensorrt"));
        assertTrue(err().contains("unknown backend or configuration 'tensorrt'; use eager, aot_eager, inductor/default"), err());
        assertEquals(2, ember("fuzz", "--graphs", "-3"));
        assertTrue(err().contains("--graphs must be 0 or more, got -3"), err());
        assertEquals(2, ember("fuzz", "--seed", "abc"));
        assertTrue(err().contains("--seed takes a whole number, got 'abc'"), err());
        assertEquals(2, ember("fuzz", "--minutes", "0"));
        assertTrue(err().contains("--minutes must be more than 0"), err());
        assertEquals(2, ember("fuzz", "--graphs"));
        assertTrue(err().contains("--graphs needs a value"), err());
        assertEquals(2, ember("fuzz", "--frobnicate", "1"));
        assertTrue(err().contains("unknown option --frobnicate"), err());
    }

    @Test
    void helpListsTheOptions() {
        assertEquals(0, ember("fuzz", "--help"));
        assertTrue(out().contains("usage: ember fuzz [--graphs N] [--seed S] [--minutes M] [--backends a,b] [--out DIR]"), out());
        assertTrue(out().contains("inductor/reduce-overhead+cache"), out());
    }
}
