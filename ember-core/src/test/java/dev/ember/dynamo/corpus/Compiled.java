package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn0;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Fn4;
import dev.ember.Options;
import dev.ember.nn.Module;
import dev.ember.tensor.Tensor;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Test helpers: call a Module or Fn0…Fn4 with an argument array, compile them, and compare results deeply. */
final class Compiled {
    private Compiled() {}

    @SuppressWarnings("unchecked")
    static Object call(Object fn, Object[] a) {
        return switch (fn) {
            case Module m -> m.forward((Tensor) a[0]);
            case Fn0<?> f -> f.apply();
            case Fn1<?, ?> f -> ((Fn1<Object, Object>) f).apply(a[0]);
            case Fn2<?, ?, ?> f -> ((Fn2<Object, Object, Object>) f).apply(a[0], a[1]);
            case Fn3<?, ?, ?, ?> f -> ((Fn3<Object, Object, Object, Object>) f).apply(a[0], a[1], a[2]);
            case Fn4<?, ?, ?, ?, ?> f -> ((Fn4<Object, Object, Object, Object, Object>) f).apply(a[0], a[1], a[2], a[3]);
            default -> throw new IllegalArgumentException(fn.toString());
        };
    }

    @SuppressWarnings("unchecked")
    static Function<Object[], Object> compile(Object fn, Options o) {
        Object c = switch (fn) {
            case Module m -> Ember.compile(m, o);
            case Fn0<?> f -> Ember.compile((Fn0<Object>) f, o);
            case Fn1<?, ?> f -> Ember.compile((Fn1<Object, Object>) f, o);
            case Fn2<?, ?, ?> f -> Ember.compile((Fn2<Object, Object, Object>) f, o);
            case Fn3<?, ?, ?, ?> f -> Ember.compile((Fn3<Object, Object, Object, Object>) f, o);
            case Fn4<?, ?, ?, ?, ?> f -> Ember.compile((Fn4<Object, Object, Object, Object, Object>) f, o);
            default -> throw new IllegalArgumentException(fn.toString());
        };
        return args -> call(c, args);
    }

    /**
     * Calls {@code eagerFn} and {@code compiled} on equal inputs, call by call: the results and the
     * inputs afterwards must be the same, and a call that throws eagerly (an exception or a failed
     * assert: test_raises) must throw the same compiled. Each call starts from the same seed.
     */
    static void assertCallsAlike(Object eagerFn, Function<Object[], Object> compiled, List<Object[]> eagerCalls, List<Object[]> compiledCalls, String name) {
        for (int i = 0; i < eagerCalls.size(); i++) {
            String where = name + "call " + i;
            Object expected;
            Tensor.manualSeed(99);
            try {
                expected = call(eagerFn, eagerCalls.get(i));
            } catch (RuntimeException | AssertionError thrown) {
                Tensor.manualSeed(99);
                Object[] in = compiledCalls.get(i);
                Throwable got = assertThrows(Throwable.class, () -> compiled.apply(in), where + ": eager threw " + thrown);
                assertEquals(thrown.getClass(), got.getClass(), where + ": " + got);
                assertEquals(thrown.getMessage(), got.getMessage(), where);
                continue;
            }
            Tensor.manualSeed(99);
            Object actual = compiled.apply(compiledCalls.get(i));
            assertSame(expected, actual, where);
            assertSame(Arrays.asList(eagerCalls.get(i)), Arrays.asList(compiledCalls.get(i)), where + ": inputs afterwards");
        }
    }

    /** Tensors equal in dtype, shape and values; lists, arrays and records element by element, maps and sets in iteration order; anything else by equals. */
    static void assertSame(Object expected, Object actual, String context) {
        if (expected instanceof Tensor e) {
            assertTrue(actual instanceof Tensor, context + ": expected a Tensor, got " + actual);
            Tensor a = (Tensor) actual;
            assertTrue(e.sameData(a), context + ": expected " + e + " but got " + a);
        } else if (expected instanceof List<?> e) {
            List<?> a = (List<?>) actual;
            if (e instanceof java.util.LinkedList<?>) assertEquals(expected.getClass(), actual.getClass(), context + ": list class");
            assertEquals(e.size(), a.size(), context + ": list size");
            for (int i = 0; i < e.size(); i++) assertSame(e.get(i), a.get(i), context + "[" + i + "]");
        } else if (expected instanceof java.util.Map<?, ?> e) {
            java.util.Map<?, ?> a = (java.util.Map<?, ?>) actual;
            assertEquals(expected.getClass(), actual.getClass(), context + ": map class");
            if (e.keySet().stream().anyMatch(Tensor.class::isInstance)) {
                // keys equal by identity (tensors): eager's and the compiled call's are other objects, compared as values, in order
                // (a HashMap's order is its keys' identity hash codes': compared as a multiset of entries)
                List<java.util.Map.Entry<?, ?>> ee = List.copyOf(e.entrySet()), ae = List.copyOf(a.entrySet());
                assertEquals(ee.size(), ae.size(), context + ": map size");
                if (e instanceof java.util.LinkedHashMap<?, ?>) {
                    for (int i = 0; i < ee.size(); i++) {
                        assertSame(ee.get(i).getKey(), ae.get(i).getKey(), context + ": key " + i);
                        assertSame(ee.get(i).getValue(), ae.get(i).getValue(), context + ": value " + i);
                    }
                }
                return;
            }
            assertEquals(List.copyOf(e.keySet()), List.copyOf(a.keySet()), context + ": keys in order");
            for (Object k : e.keySet()) assertSame(e.get(k), a.get(k), context + "[" + k + "]");
        } else if (expected instanceof java.util.Set<?> e) {
            assertTrue(actual instanceof java.util.Set<?>, context + ": expected a Set, got " + actual);
            assertEquals(expected.getClass(), actual.getClass(), context + ": set class");
            if (e.stream().anyMatch(Tensor.class::isInstance)) {
                assertEquals(e.size(), ((java.util.Set<?>) actual).size(), context + ": set size");
                if (e instanceof java.util.LinkedHashSet<?>) assertSame(List.copyOf(e), List.copyOf((java.util.Set<?>) actual), context);
                return;
            }
            assertEquals(List.copyOf(e), List.copyOf((java.util.Set<?>) actual), context + ": elements in order");
        } else if (expected instanceof java.util.ArrayDeque<?> e) {
            assertEquals(expected.getClass(), actual.getClass(), context + ": deque class");
            assertSame(List.copyOf(e), List.copyOf((java.util.ArrayDeque<?>) actual), context);
        } else if (expected instanceof CharSequence e && !(expected instanceof String)) {
            assertEquals(expected.getClass(), actual.getClass(), context + ": class");
            assertEquals(e.toString(), actual.toString(), context);
        } else if (expected instanceof Object[] e) {
            Object[] a = (Object[]) actual;
            assertEquals(e.length, a.length, context + ": array length");
            for (int i = 0; i < e.length; i++) assertSame(e[i], a[i], context + "[" + i + "]");
        } else if (expected != null && expected.getClass().isRecord()) {
            assertEquals(expected.getClass(), actual.getClass(), context);
            for (var rc : expected.getClass().getRecordComponents()) {
                try {
                    assertSame(rc.getAccessor().invoke(expected), rc.getAccessor().invoke(actual), context + "." + rc.getName());
                } catch (ReflectiveOperationException ex) {
                    throw new AssertionError(ex);
                }
            }
        } else if (expected instanceof int[] e) {
            assertTrue(java.util.Arrays.equals(e, (int[]) actual), context);
        } else if (expected != null && !(expected instanceof Number || expected instanceof String || expected instanceof Boolean || expected instanceof Enum<?>)) {
            assertEquals(expected.getClass(), actual.getClass(), context);
        } else {
            assertEquals(expected, actual, context);
        }
    }
}
