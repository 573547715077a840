package dev.ember.debug;

import dev.ember.Ember;
import dev.ember.fx.NonFiniteValueError;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The examples of docs/nans-and-bisect.md, as written there. */
class NansDocsExampleTest {
    @AfterEach
    void off() {
        System.clearProperty("ember.nan.asserts");
        Ember.reset();
    }

    static Tensor loss(Tensor p, Tensor target) {
        Tensor q = p.mul(2.0).sub(1.0);                  // the bug: q < 0 wherever p < 0.5
        System.out.println("q: " + q.shape()[0]);       // kept: printed after the graph runs
        Ember.graphBreak();                              // a second graph from here on
        Tensor logs = q.log();
        return logs.mul(target).neg().mean();
    }

    @Test
    void nanAssertsNameTheKernelAndTheLine() {
        Tensor p = Tensor.of(0.9f, 0.2f, 0.7f), target = Tensor.of(1f, 0f, 1f);

        System.setProperty("ember.nan.asserts", "1");   // or EMBER_NAN_ASSERTS=1 in the environment
        var f = Ember.compile(NansDocsExampleTest::loss);
        NonFiniteValueError e = assertThrows(NonFiniteValueError.class, () -> f.apply(p, target));

        // log is inlined into mean's reduction: the first value stored, and checked, is the mean (a 0-d
        // tensor), whose last node is the add of its shifted form, first + sum(x - first) / n.
        assertTrue(e.getMessage().startsWith("NaN at [] of the output of node add, after kernel0 (row kernel: sum, add  (" + line("return logs.mul(target).neg().mean();") + ")) "
                + "in graph NansDocsExampleTest.resume_in_loss_at_" + line("Tensor logs = q.log();").split(":")[1] + " ["), e.getMessage());
        assertTrue(e.getMessage().contains("\n  from user code at " + line("return logs.mul(target).neg().mean();") + ": return logs.mul(target).neg().mean();\n"), e.getMessage());
    }

    /** {@code NansDocsExampleTest.java:27}: where {@code code} is in this file. */
    private static String line(String code) {
        try {
            return "NansDocsExampleTest.java:" + (Files.readAllLines(Path.of("src/test/java/dev/ember/debug/NansDocsExampleTest.java")).indexOf("        " + code) + 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static double round(double v) { return Math.round(v * 1e6) / 1e6; }

    @Test
    void debugNansFindsTheOpAcrossTheBreak() {
        Tensor p = Tensor.of(0.9f, 0.2f, 0.7f), target = Tensor.of(1f, 0f, 1f);

        NanReport report = Ember.debugNans(NansDocsExampleTest::loss, p, target);
        System.out.println(report);

        assertEquals("aten.log.default", report.op());
        assertEquals(line("Tensor logs = q.log();") + ": Tensor logs = q.log();", report.sourceLine());
        assertEquals(2, report.graphIndex());
        TensorStats q = report.inputs().get(0).stats();
        assertEquals(List.of("f32[3]", -0.6, 0.8, 0.2, 0L, 0L), List.of(q.type(), round(q.min()), round(q.max()), round(q.mean()), q.nanCount(), q.infCount()));
    }
}
