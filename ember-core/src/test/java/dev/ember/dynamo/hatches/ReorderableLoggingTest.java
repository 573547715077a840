package dev.ember.dynamo.hatches;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Printing and logging calls replayed after the graph (reorderable) or dropped (ignored), with output equal to eager. */
class ReorderableLoggingTest {
    private static final Logger LOG = Logger.getLogger("dev.ember.test.reorderable");

    static Tensor demo(Tensor x, Tensor y) {
        Tensor z = x.add(y).relu();
        System.out.println("z " + Arrays.toString(z.shape()));
        return z.mul(2.0);
    }

    static Tensor printsTensors(Tensor x) {
        Tensor a = x.mul(3.0);
        System.out.print("a=");
        System.out.println(a);
        System.err.println("to stderr " + a.dim());
        System.out.printf("%s and %d%n", a.sum(), 7);
        Tensor b = a.add_(1.0);
        System.out.println(b.size(0));
        return b.neg();
    }

    static Tensor printsAroundBreak(Tensor x) {
        System.out.println("before");
        double s = x.sum().item();
        System.out.println("after " + (s > 1e9));
        return x.mul(2.0);
    }

    static Tensor logs(Tensor x) {
        Tensor y = x.exp();
        LOG.info("info " + y.dim());
        LOG.fine("fine " + y.size(0));
        return y.sum();
    }

    static Tensor logsAfterBreak(Tensor x) {
        double s = x.sum().item();
        LOG.info("after the break " + (s > 1e9));
        return x.mul(2.0);
    }

    @AfterEach
    void reset() { Ember.reset(); }

    /** Runs {@code body} and returns what it printed on System.out and System.err, as "out|err". */
    private static String captured(Supplier<Object> body, Object[] result) {
        PrintStream out = System.out, err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream(), e = new ByteArrayOutputStream();
        System.setOut(new PrintStream(o, true));
        System.setErr(new PrintStream(e, true));
        try {
            result[0] = body.get();
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        return o + "|" + e;
    }

    @Test
    void demoIsOneGraphWithoutBreakWhenReorderable() {
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(3, 4);
        Fn2<Tensor, Tensor, Tensor> fn = ReorderableLoggingTest::demo;
        ExplainOutput e = Ember.explain(fn).with(x, y);
        assertEquals(1, e.graphCount(), e.toString());
        assertEquals(0, e.graphBreakCount(), e.toString());
        Object[] eager = new Object[1], compiled = new Object[1];
        String expected = captured(() -> demo(x, y), eager);
        var f = Ember.compile(fn);
        assertEquals(expected, captured(() -> f.apply(x, y), compiled));
        assertEquals("z [3, 4]\n|", expected.replace(System.lineSeparator(), "\n"));
        assertTrue(((Tensor) eager[0]).sameData((Tensor) compiled[0]));
        // The second call runs the cached entry: the print is replayed again.
        assertEquals(expected, captured(() -> f.apply(x, y), compiled));
    }

    @Test
    void demoBreaksWhenReorderableLoggingIsOff() {
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(3, 4);
        ExplainOutput e = Ember.explain((Fn2<Tensor, Tensor, Tensor>) ReorderableLoggingTest::demo, Options.defaults().reorderableLogging(false)).with(x, y);
        assertEquals(2, e.graphCount(), e.toString());
        assertEquals(1, e.graphBreakCount(), e.toString());
        assertEquals("GB0005", e.breakReasons().getFirst().gbId());
    }

    @Test
    void tensorArgumentsPrintFromGraphOutputsInEagerOrder() {
        Fn1<Tensor, Tensor> fn = ReorderableLoggingTest::printsTensors;
        Tensor.manualSeed(3);
        Tensor x = Tensor.randn(2, 3);
        ExplainOutput e = Ember.explain(fn).with(x.clone());
        assertEquals(1, e.graphCount(), e.toString());
        assertEquals(0, e.graphBreakCount(), e.toString());
        Object[] eager = new Object[1], compiled = new Object[1];
        Tensor xe = x.clone(), xc = x.clone();
        String expected = captured(() -> printsTensors(xe), eager);
        String actual = captured(() -> Ember.compile(fn).apply(xc), compiled);
        assertEquals(expected, actual);
        assertTrue(((Tensor) eager[0]).sameData((Tensor) compiled[0]), eager[0] + " vs " + compiled[0] + " " + java.util.Arrays.toString(((Tensor) eager[0]).toFloatArray()) + java.util.Arrays.toString(((Tensor) compiled[0]).toFloatArray()));
    }

    @Test
    void printsBeforeAndAfterABreakKeepTheirOrder() {
        Fn1<Tensor, Tensor> fn = ReorderableLoggingTest::printsAroundBreak;
        Tensor x = Tensor.randn(3);
        ExplainOutput e = Ember.explain(fn).with(x);
        assertEquals(1, e.graphBreakCount(), e.toString());
        assertEquals("GB0001", e.breakReasons().getFirst().gbId(), "only item() breaks");
        Object[] r = new Object[1];
        String expected = captured(() -> printsAroundBreak(x), r);
        assertEquals(expected, captured(() -> Ember.compile(fn).apply(x), r));
    }

    @Test
    void loggerCallsAreReplayedOrIgnored() {
        List<String> messages = new ArrayList<>();
        Handler h = new Handler() {
            @Override public void publish(LogRecord rec) { messages.add(rec.getLevel() + " " + rec.getMessage() + " from " + rec.getSourceClassName() + "." + rec.getSourceMethodName());
            }
            @Override public void flush() {}
            @Override public void close() {}
        };
        LOG.addHandler(h);
        LOG.setLevel(Level.ALL);
        LOG.setUseParentHandlers(false);
        try {
            Fn1<Tensor, Tensor> fn = ReorderableLoggingTest::logs;
            Tensor x = Tensor.randn(4, 2);
            logs(x);
            List<String> eager = List.copyOf(messages);
            String from = " from " + ReorderableLoggingTest.class.getName() + ".logs";
            assertEquals(List.of("INFO info 2" + from, "FINE fine 4" + from), eager);
            messages.clear();
            ExplainOutput e = Ember.explain(fn).with(x);
            assertEquals(0, e.graphBreakCount(), e.toString());
            assertEquals(eager, messages, "replayed records name the user's method as their source");
            messages.clear();
            Options ignoreFine = Options.defaults().ignoreLogging(Set.of("java.util.logging.Logger.fine"));
            Tensor out = Ember.compile(fn, ignoreFine).apply(x);
            assertEquals(List.of("INFO info 2" + from), messages, "fine(...) is dropped from the trace");
            assertTrue(logs(x).sameData(out));
            messages.clear();
            ExplainOutput off = Ember.explain(fn, Options.defaults().reorderableLogging(false)).with(x);
            assertEquals(2, off.graphBreakCount(), off.toString());
            messages.clear();
            logsAfterBreak(x);
            List<String> eagerAfterBreak = List.copyOf(messages);
            messages.clear();
            Ember.compile((Fn1<Tensor, Tensor>) ReorderableLoggingTest::logsAfterBreak).apply(x);
            assertEquals(eagerAfterBreak, messages, "traced in the resume method, named after the user's method");
        } finally {
            LOG.removeHandler(h);
        }
    }
}
