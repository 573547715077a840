package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.ember.dynamo.idiomatic.Idioms.check;
import static dev.ember.dynamo.idiomatic.Idioms.oneGraph;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Records made in the function are map keys and set elements by value, as javac's equals and
 * hashCode make them (a NamedTuple key in Dynamo): their components' keys decide equality, values
 * by value and tensors by identity. Before, any record key was a graph break (GB0019) followed by
 * a break at every later call on the map.
 */
class RecordMapKeyTest {

    @AfterEach
    void reset() { Ember.reset(); }

    record Key(String name, int layer, boolean bias) {}

    record TensorKey(Tensor t, int slot) {}

    /** A record whose equals the user wrote: not javac's, so not a key by value. */
    record OwnEquals(int id) {
        @Override public boolean equals(Object o) { return o instanceof OwnEquals other && other.id % 10 == id % 10; }

        @Override public int hashCode() { return id % 10; }
    }

    static Tensor mergeAndGet(Tensor x) {
        Map<Key, Tensor> grads = new HashMap<>();
        for (int i = 0; i < 3; i++) grads.merge(new Key("w", i % 2, false), x.mul(i + 1), Tensor::add);
        return grads.get(new Key("w", 0, false)).sub(grads.get(new Key("w", 1, false))).mul(grads.size());
    }

    static Map<Key, Tensor> returnedInInsertionOrder(Tensor x) {
        Map<Key, Tensor> out = new LinkedHashMap<>();
        out.put(new Key("b", 2, true), x.neg());
        out.put(new Key("a", 1, false), x.exp());
        out.put(new Key("b", 2, true), x.sin());     // replaces the value, keeps the first key
        return out;
    }

    static List<Object> setOfRecords(Tensor x) {
        Set<Key> seen = new HashSet<>();
        seen.add(new Key("q", 0, true));
        boolean added = seen.add(new Key("q", 0, true));
        return List.of(added, seen.size(), seen.contains(new Key("q", 0, true)), x.add(seen.size()));
    }

    static Tensor tensorComponentsByIdentity(Tensor x, Tensor y) {
        Map<TensorKey, Integer> slots = new HashMap<>();
        slots.put(new TensorKey(x, 0), 1);
        slots.put(new TensorKey(x, 0), 2);
        slots.put(new TensorKey(y, 0), 3);
        return x.mul(slots.size()).add(slots.get(new TensorKey(x, 0)));
    }

    static Tensor ownEqualsBreaks(Tensor x) {
        Map<OwnEquals, Tensor> m = new HashMap<>();
        m.put(new OwnEquals(3), x);
        m.put(new OwnEquals(13), x.neg());
        return m.get(new OwnEquals(23)).mul(m.size());
    }

    @Test
    void mergeAndGetFindEqualRecords() {
        oneGraph(check((Fn1<Tensor, Tensor>) RecordMapKeyTest::mergeAndGet, Tensor.randn(2, 3)));
    }

    @Test
    void aLinkedHashMapOfRecordKeysIsReturnedInEagersOrder() {
        Fn1<Tensor, Map<Key, Tensor>> fn = RecordMapKeyTest::returnedInInsertionOrder;
        Tensor x = Tensor.randn(2, 3);
        oneGraph(check(fn, x));
        assertEquals(List.of(new Key("b", 2, true), new Key("a", 1, false)), List.copyOf(Ember.compile(fn).apply(x).keySet()));
    }

    @Test
    void aHashSetOfRecords() {
        Fn1<Tensor, List<Object>> fn = RecordMapKeyTest::setOfRecords;
        oneGraph(check(fn, Tensor.randn(2, 3)));
        assertEquals(List.of(false, 1, true), fn.apply(Tensor.randn(2, 3)).subList(0, 3));
    }

    @Test
    void tensorComponentsCompareByIdentity() {
        oneGraph(check((Fn2<Tensor, Tensor, Tensor>) RecordMapKeyTest::tensorComponentsByIdentity, Tensor.randn(2), Tensor.randn(2)));
    }

    @Test
    void aRecordWithItsOwnEqualsStillBreaksNamingIt() {
        ExplainOutput e = check((Fn1<Tensor, Tensor>) RecordMapKeyTest::ownEqualsBreaks, Tensor.randn(2));
        Idioms.breaksAt(e, "with the key OwnEquals", "m.put(new OwnEquals(3), x);");
    }
}
