package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn0;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Fn4;
import dev.ember.Fn5;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.Tensor;

import java.lang.reflect.RecordComponent;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What every idiomatic program is checked for: the compiled function returns what the eager one
 * returns (tensors close, everything else equal, deeply through lists, maps, optionals and
 * records), throws what it throws (same class, same message), and captures in the number of
 * graphs the test expects.
 */
final class Idioms {
    private Idioms() {}

    /** The result of one run: a value, or the exception it threw. */
    record Outcome(Object value, Throwable thrown) {}

    static Object call(Object fn, Object... args) {
        return switch (fn) {
            case Fn0<?> f -> f.apply();
            case Fn1<?, ?> f -> ((Fn1<Object, ?>) f).apply(args[0]);
            case Fn2<?, ?, ?> f -> ((Fn2<Object, Object, ?>) f).apply(args[0], args[1]);
            case Fn3<?, ?, ?, ?> f -> ((Fn3<Object, Object, Object, ?>) f).apply(args[0], args[1], args[2]);
            case Fn4<?, ?, ?, ?, ?> f -> ((Fn4<Object, Object, Object, Object, ?>) f).apply(args[0], args[1], args[2], args[3]);
            case Fn5<?, ?, ?, ?, ?, ?> f -> ((Fn5<Object, Object, Object, Object, Object, ?>) f).apply(args[0], args[1], args[2], args[3], args[4]);
            default -> throw new IllegalArgumentException("not an Fn: " + fn.getClass());
        };
    }

    @SuppressWarnings("unchecked")
    static Object compiled(Object fn) {
        return switch (fn) {
            case Fn0<?> f -> Ember.compile(f);
            case Fn1<?, ?> f -> Ember.compile((Fn1<Object, Object>) f);
            case Fn2<?, ?, ?> f -> Ember.compile((Fn2<Object, Object, Object>) f);
            case Fn3<?, ?, ?, ?> f -> Ember.compile((Fn3<Object, Object, Object, Object>) f);
            case Fn4<?, ?, ?, ?, ?> f -> Ember.compile((Fn4<Object, Object, Object, Object, Object>) f);
            case Fn5<?, ?, ?, ?, ?, ?> f -> Ember.compile((Fn5<Object, Object, Object, Object, Object, Object>) f);
            default -> throw new IllegalArgumentException("not an Fn: " + fn.getClass());
        };
    }

    static Outcome run(Object fn, Object... args) {
        try {
            return new Outcome(call(fn, args), null);
        } catch (RuntimeException | Error e) {
            return new Outcome(null, e);
        }
    }

    /**
     * Runs fn eagerly and compiled (a fresh cache), twice compiled (the second a cache hit), and
     * asserts the outcomes agree. Returns what explain found for the same arguments.
     */
    static ExplainOutput check(Object fn, Object... args) {
        Ember.reset();
        Outcome eager = run(fn, args);
        Object compiledFn = compiled(fn);
        for (int call = 1; call <= 2; call++) {
            Outcome got = run(compiledFn, args);
            sameOutcome(eager, got, "call " + call + " compiled vs eager");
        }
        Ember.reset();
        ExplainOutput e;
        try {
            e = Ember.explain(fn).with(args);
        } finally {
            Ember.reset();
        }
        return e;
    }

    /** As {@link #check}, for a program that throws: the exception (same class, same message) is returned. */
    static Throwable checkThrows(Object fn, Object... args) {
        Ember.reset();
        Outcome eager = run(fn, args);
        assertNotNull(eager.thrown(), "the program was meant to throw, returned " + eager.value());
        Outcome got = run(compiled(fn), args);
        sameOutcome(eager, got, "compiled vs eager");
        Ember.reset();
        return eager.thrown();
    }

    static void sameOutcome(Outcome eager, Outcome got, String where) {
        if (eager.thrown() != null) {
            if (got.thrown() == null) fail(where + ": eager threw " + eager.thrown() + ", compiled returned " + got.value());
            assertEquals(eager.thrown().getClass(), got.thrown().getClass(), where + ": exception class; compiled threw " + got.thrown());
            assertEquals(eager.thrown().getMessage(), got.thrown().getMessage(), where + ": exception message");
            return;
        }
        if (got.thrown() != null) {
            AssertionError failure = new AssertionError(where + ": eager returned " + eager.value() + ", compiled threw " + got.thrown());
            failure.initCause(got.thrown());
            throw failure;
        }
        assertSameValue(eager.value(), got.value(), where);
    }

    static void assertSameValue(Object expected, Object got, String where) {
        switch (expected) {
            case null -> assertEquals(null, got, where);
            case Tensor t -> {
                assertInstanceOf(Tensor.class, got, where);
                Tensor g = (Tensor) got;
                assertEquals(java.util.Arrays.toString(t.shape()), java.util.Arrays.toString(g.shape()), where + ": shape");
                assertEquals(t.dtype(), g.dtype(), where + ": dtype");
                if (t.numel() == 0) return;
                double[] e = t.toDoubleArray(), c = g.toDoubleArray();
                double scale = 1, diff = 0;
                for (int i = 0; i < e.length; i++) {
                    if (Double.isNaN(e[i]) && Double.isNaN(c[i])) continue;
                    scale = Math.max(scale, Math.abs(e[i]));
                    diff = Math.max(diff, e[i] == c[i] ? 0 : Math.abs(e[i] - c[i]));
                }
                assertTrue(diff <= 1e-5 * scale, where + ": values differ by " + diff + "\n eager " + t + "\n compiled " + g);
            }
            case List<?> l -> {
                assertInstanceOf(List.class, got, where);
                List<?> g = (List<?>) got;
                assertEquals(l.size(), g.size(), where + ": size of " + l + " vs " + g);
                for (int i = 0; i < l.size(); i++) assertSameValue(l.get(i), g.get(i), where + "[" + i + "]");
            }
            case Map<?, ?> m -> {
                assertInstanceOf(Map.class, got, where);
                Map<?, ?> g = (Map<?, ?>) got;
                assertEquals(List.copyOf(m.keySet()), List.copyOf(g.keySet()), where + ": keys in iteration order");
                Iterator<?> gv = g.values().iterator();
                for (Object v : m.values()) assertSameValue(v, gv.next(), where + ".value");
            }
            case Optional<?> o -> {
                assertInstanceOf(Optional.class, got, where);
                Optional<?> g = (Optional<?>) got;
                assertEquals(o.isPresent(), g.isPresent(), where + ": present");
                if (o.isPresent()) assertSameValue(o.get(), g.get(), where + ".get()");
            }
            case Record r -> {
                assertNotNull(got, where);
                assertEquals(r.getClass(), got.getClass(), where + ": record class");
                for (RecordComponent c : r.getClass().getRecordComponents()) {
                    try {
                        c.getAccessor().setAccessible(true);
                        assertSameValue(c.getAccessor().invoke(r), c.getAccessor().invoke(got), where + "." + c.getName());
                    } catch (ReflectiveOperationException e) {
                        throw new AssertionError(where + "." + c.getName(), e);
                    }
                }
            }
            case Tensor[] arr -> assertSameValue(List.of(arr), List.of((Tensor[]) got), where);
            default -> assertEquals(expected, got, where);
        }
    }

    /** One graph, no break, and the op count where the test knows it (-1: not checked). */
    static ExplainOutput oneGraph(ExplainOutput e) {
        assertEquals(0, e.graphBreakCount(), () -> "expected no graph break:\n" + e);
        assertEquals(1, e.graphCount(), () -> "expected one graph:\n" + e);
        return e;
    }

    static ExplainOutput oneGraph(ExplainOutput e, int ops) {
        oneGraph(e);
        assertEquals(ops, e.opCount(), () -> "op count:\n" + e);
        return e;
    }

    /** No graph break and no graph: the program computed no tensor op (it returned an input), as Dynamo makes no graph for it. */
    static ExplainOutput noGraph(ExplainOutput e) {
        assertEquals(0, e.graphBreakCount(), () -> "expected no graph break:\n" + e);
        assertEquals(0, e.graphCount(), () -> "expected no graph:\n" + e);
        return e;
    }

    /** Breaks, with a reason naming what broke and a user frame at the line of the program that broke. */
    static ExplainOutput.BreakReason breaksAt(ExplainOutput e, String reasonMentions, String sourceMentions) {
        assertTrue(e.graphBreakCount() >= 1, () -> "expected a graph break:\n" + e);
        ExplainOutput.BreakReason b = e.breakReasons().getFirst();
        assertTrue(b.reason().contains(reasonMentions), () -> "reason should name " + reasonMentions + ":\n" + e);
        assertNotNull(b.userFrame(), () -> "no user frame:\n" + e);
        assertTrue(b.userFrame().line() > 0, () -> "no user line:\n" + e);
        if (sourceMentions != null) {
            assertTrue(b.userStack().stream().anyMatch(f -> f.sourceText() != null && f.sourceText().contains(sourceMentions)),
                    () -> "user stack should show the line with " + sourceMentions + ":\n" + e);
        }
        return b;
    }
}
