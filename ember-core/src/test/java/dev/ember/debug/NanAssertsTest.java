package dev.ember.debug;

import dev.ember.Ember;
import dev.ember.Options;
import dev.ember.fx.NanAsserts;
import dev.ember.fx.NonFiniteValueError;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code EMBER_NAN_ASSERTS=1}, switched on here through its system property. */
class NanAssertsTest {
    @TempDir
    Path cacheDir;

    @BeforeEach
    void on() {
        System.setProperty("ember.cache.dir", cacheDir.toString());
        System.setProperty(NanAsserts.PROPERTY, "1");
        Ember.reset();
    }

    @AfterEach
    void off() {
        System.clearProperty(NanAsserts.PROPERTY);
        System.clearProperty("ember.cache.dir");
        Ember.reset();
    }

    static Tensor logTwice(Tensor x) {
        Tensor y = x.mul(2.0);
        return y.log().add(1.0);
    }

    static Tensor ratio(Tensor x, Tensor y) {
        return x.div(y).mul(3.0);
    }

    static Tensor finite(Tensor x) {
        return x.exp().add(x.mul(x)).sum(0, false);
    }

    /** The line of this file holding {@code code}, as NaN asserts name it: {@code NanAssertsTest.java:44}. */
    static String lineOf(String code) throws IOException {
        List<String> lines = Files.readAllLines(Path.of("src/test/java/dev/ember/debug/NanAssertsTest.java"));
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).strip().equals(code)) return "NanAssertsTest.java:" + (i + 1);
        throw new AssertionError("no line " + code);
    }

    private static final Tensor WITH_NEGATIVE = Tensor.of(new float[] {1, 2, 3, -4, 5, 6}, 2, 3);

    @Test
    void inductorNamesTheKernelTheNodeTheGraphAndTheLine() throws IOException {
        var f = Ember.compile(NanAssertsTest::logTwice);
        NonFiniteValueError e = assertThrows(NonFiniteValueError.class, () -> f.apply(WITH_NEGATIVE));
        // mul and log are inlined into add's loop: the value stored, and checked, is add's.
        assertTrue(e.ranAfter().matches("kernel\\d+ \\(pointwise kernel: add  \\(NanAssertsTest.java:\\d+\\)\\)"), e.ranAfter());
        assertEquals("node add", e.node());
        assertEquals(lineOf("return y.log().add(1.0);") + ": return y.log().add(1.0);", e.sourceLine());
        assertTrue(e.graph().matches("NanAssertsTest\\.logTwice \\[\\d+/0]"), e.graph());
        assertEquals("[1, 0]", e.index());
        assertTrue(Double.isNaN(e.value()));
        assertTrue(e.getMessage().startsWith("NaN at [1, 0] of the output of node add, after kernel"), e.getMessage());
        assertTrue(e.getMessage().contains("from user code at " + lineOf("return y.log().add(1.0);")), e.getMessage());
    }

    @Test
    void zeroOverZeroIsNaNAndOneOverZeroIsInfinity() throws IOException {
        var f = Ember.compile(NanAssertsTest::ratio);
        NonFiniteValueError e = assertThrows(NonFiniteValueError.class, () -> f.apply(Tensor.of(1f, 0f, 2f), Tensor.of(1f, 0f, 0f)));
        assertEquals("[1]", e.index());
        assertTrue(Double.isNaN(e.value()));
        assertTrue(e.sourceLine().startsWith(lineOf("return x.div(y).mul(3.0);")), e.sourceLine());
        NonFiniteValueError inf = assertThrows(NonFiniteValueError.class, () -> f.apply(Tensor.of(1f, 1f, 2f), Tensor.of(1f, 1f, 0f)));
        assertEquals("[2]", inf.index());
        assertEquals(Double.POSITIVE_INFINITY, inf.value());
        assertTrue(inf.getMessage().startsWith("Infinity at [2]"), inf.getMessage());
    }

    @Test
    void finiteGraphsRunAsWithout() {
        Tensor x = Tensor.of(new float[] {0.5f, -1, 2, 3}, 2, 2);
        Tensor checked = Ember.compile(NanAssertsTest::finite).apply(x);
        assertEquals(List.of(finite(x).toFloatArray()[0], finite(x).toFloatArray()[1]), List.of(checked.toFloatArray()[0], checked.toFloatArray()[1]));
    }

    @Test
    void eagerAndAotEagerCheckEveryOp() throws IOException {
        for (String backend : List.of("eager", "aot_eager")) {
            Ember.reset();
            var f = Ember.compile(NanAssertsTest::logTwice, Options.backend(backend));
            NonFiniteValueError e = assertThrows(NonFiniteValueError.class, () -> f.apply(WITH_NEGATIVE), backend);
            assertEquals("op aten.log.default", e.ranAfter(), backend);
            assertEquals("node log", e.node(), backend);
            assertTrue(e.sourceLine().startsWith(lineOf("return y.log().add(1.0);")), backend + ": " + e.sourceLine());
            assertTrue(e.graph().matches("NanAssertsTest\\.logTwice \\[\\d+/0]"), e.graph());
            assertEquals("[1, 0]", e.index(), backend);
        }
    }

    @Test
    void offByDefaultAndNotTakenFromTheCacheWhenSwitchedOn() {
        System.clearProperty(NanAsserts.PROPERTY);
        Tensor unchecked = Ember.compile(NanAssertsTest::logTwice).apply(WITH_NEGATIVE);
        assertTrue(Float.isNaN(unchecked.toFloatArray()[3]));
        // The same graph again, from the same cache folder: its unchecked code must not be reused.
        Ember.reset();
        System.setProperty(NanAsserts.PROPERTY, "1");
        assertThrows(NonFiniteValueError.class, () -> Ember.compile(NanAssertsTest::logTwice).apply(WITH_NEGATIVE));
    }

    @Test
    void maxAutotuneDoesNotTimeVariantsOnRandomInputsThatWouldTripTheChecks() {
        var f = Ember.compile(NanAssertsTest::logTwice, Options.defaults().mode("max-autotune"));
        Tensor y = f.apply(Tensor.full(2.0, 64));
        assertEquals(1 + Math.log(4), y.toDoubleArray()[63], 1e-6);
    }

    @Test
    void aBadValueSaysWhatItExpects() {
        System.setProperty(NanAsserts.PROPERTY, "yes");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, NanAsserts::enabled);
        assertEquals("-Dember.nan.asserts=yes: expected 1 (check every op's output for NaN and infinity) or 0 (do not)", e.getMessage());
    }
}
