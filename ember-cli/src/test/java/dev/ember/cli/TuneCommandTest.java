package dev.ember.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code ember tune}'s answers to bad input (the measuring itself is {@code AutotunerTest}'s and docs/tuning.md's). */
class TuneCommandTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();

    private int ember(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void helpSaysWhereTheTuningGoes() {
        assertEquals(0, ember("tune", "--help"));
        String s = out.toString(StandardCharsets.UTF_8);
        assertTrue(s.contains("usage: ember tune [--dry-run] [--out <file>]") && s.contains(".cache/ember/tuning/"), s);
    }

    @Test
    void badArgumentsSayWhatAndHow() {
        assertEquals(2, ember("tune", "--fast"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("ember tune: unknown argument --fast. usage: ember tune"), err.toString(StandardCharsets.UTF_8));
        assertEquals(2, ember("tune", "--out"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--out needs a file"), err.toString(StandardCharsets.UTF_8));
    }
}
