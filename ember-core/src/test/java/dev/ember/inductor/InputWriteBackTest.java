package dev.ember.inductor;

import dev.ember.Ember;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.logging.Logs;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An input the compiled code changes in place gets its final value stored in its own memory when
 * that is invisible (InputWriteBack), and copied back after the graph when not: the values are
 * eager's either way, and the fusion log says which it was and why.
 */
class InputWriteBackTest {
    /** A fresh code cache per test: a graph loaded from the cache is not scheduled again, so its decisions are not logged. */
    @org.junit.jupiter.api.BeforeEach
    void freshCache(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) { System.setProperty("ember.cache.dir", dir.toString()); }

    @AfterEach
    void reset() {
        Ember.setLogs("");
        Ember.reset();
        System.clearProperty("ember.cache.dir");
    }

    private static void assertClose(Tensor want, Tensor got, String what) {
        float[] w = want.toFloatArray(), g = got.toFloatArray();
        assertEquals(w.length, g.length, what);
        for (int i = 0; i < w.length; i++) {
            assertTrue(Math.abs(w[i] - g[i]) <= 1e-4 * Math.max(1, Math.abs(w[i])), what + ": element " + i + " is " + g[i] + ", eager " + w[i]);
        }
    }

    /** SGD with momentum: both the moment and the parameter change in place. */
    static Tensor sgd(Tensor p, Tensor g, Tensor m) {
        m.mul_(0.9).add_(g);
        p.sub_(m.mul(0.01));
        return p.sum();
    }

    /** The old value of {@code p} is read after the update, beside the new one: storing in place would change it. */
    static Tensor readsOldValueAfter(Tensor p, Tensor g, Tensor unused) {
        Tensor doubled = p.mul(2.0);
        p.add_(g);
        return doubled.add(p);
    }

    /** The old value is summed before the update, in the same kernel: a whole row is read before it is written. */
    static Tensor readsOldValueFirstInTheSameKernel(Tensor p, Tensor g, Tensor unused) {
        Tensor doubled = p.mul(2.0);
        p.add_(g);
        return doubled.sum();
    }

    /** The update reads other elements of the input than it writes. */
    static Tensor readsOtherElements(Tensor p, Tensor g, Tensor unused) {
        p.add_(p.mul(1.5).t().mul(g));   // the transpose of a computed value: no view of the input, so the update is functionalized
        return p.sum();
    }

    private static String run(Fn3<Tensor, Tensor, Tensor, Tensor> fn, Supplier<Tensor[]> inputs) {
        Tensor[] eager = inputs.get(), compiled = inputs.get();
        Tensor want = fn.apply(eager[0], eager[1], eager[2]);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream saved = Logs.output();
        Logs.setOutput(new PrintStream(log, true, StandardCharsets.UTF_8));
        try {
            Ember.setLogs("fusion");
            var f = Ember.compile(fn, Options.backend("inductor"));
            for (int call = 0; call < 3; call++) {
                if (call > 0) {
                    want = fn.apply(eager[0], eager[1], eager[2]);
                }
                int before = compiled[0].version();
                Object[] arrays = {compiled[0].storage().data(), compiled[2].storage().data()};
                Tensor got = f.apply(compiled[0], compiled[1], compiled[2]);
                assertClose(want, got, "call " + call);
                for (int i = 0; i < 3; i++) assertClose(eager[i], compiled[i], "input " + i + " after call " + call);
                assertTrue(compiled[0].version() > before, "the write is counted on the input's version");
                assertTrue(arrays[0] == compiled[0].storage().data() && arrays[1] == compiled[2].storage().data(), "inputs keep their memory");
            }
        } finally {
            Ember.setLogs("");
            Logs.setOutput(saved);
        }
        return log.toString(StandardCharsets.UTF_8);
    }

    private static Tensor[] inputs(int seed) {
        dev.ember.tensor.Generator g = new dev.ember.tensor.Generator(seed);
        return new Tensor[] {Tensor.randn(g, 48, 48), Tensor.randn(g, 48, 48), Tensor.randn(g, 48, 48)};
    }

    @Test
    void anOptimizerStepStoresEachNewValueInItsInput() {
        String log = run(InputWriteBackTest::sgd, () -> inputs(1));
        assertTrue(log.contains("store the final value of input 0") && log.contains("store the final value of input 2"), log);
        assertEquals(-1, log.indexOf("copy the final value"), log);
    }

    @Test
    void anInputReadAfterItsUpdateIsCopiedBackInstead() {
        String log = run(InputWriteBackTest::readsOldValueAfter, () -> inputs(2));
        assertTrue(log.contains("copy the final value of input 0") && log.contains("reads the input after"), log);
    }

    @Test
    void anInputReadInFullBeforeItsUpdateInTheSameKernelIsStillStoredInPlace() {
        String log = run(InputWriteBackTest::readsOldValueFirstInTheSameKernel, () -> inputs(4));
        assertTrue(log.contains("store the final value of input 0"), log);
    }

    @Test
    void anUpdateReadingOtherElementsIsCopiedBackInstead() {
        String log = run(InputWriteBackTest::readsOtherElements, () -> inputs(3));
        assertTrue(log.contains("copy the final value of input 0") && log.contains("other elements"), log);
    }
}
