package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Object's own equals is identity, traced as {@code ==} is (test_functions.py::test_obj_eq), and
 * {@code Map.entry(k, v)} is an immutable pair of traced values (dict(list_of_pairs),
 * test_call_dict3), made again with Map.entry where it outlives a graph.
 */
class ObjectEqualsAndMapEntryTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static final class Plain {}

    static Tensor identityEquals(Tensor x) {
        Plain p = new Plain(), q = new Plain();
        Tensor y = x.add(1);
        if (p.equals(p)) y = y.mul(2);
        if (p.equals(q)) y = y.mul(100);
        if (p.equals(null)) y = y.mul(1000);
        return y;
    }

    static Tensor pairs(Tensor x) {
        List<Map.Entry<String, Tensor>> pairs = List.of(Map.entry("a", x.sin()), Map.entry("b", x.cos()));
        Tensor s = x.mul(0);
        for (Map.Entry<String, Tensor> e : pairs) s = e.getKey().equals("b") ? s.add(e.getValue().mul(3)) : s.add(e.getValue());
        return s;
    }

    static List<Object> pairAcrossABreak(Tensor x) {
        Map.Entry<String, Tensor> e = Map.entry("k", x.exp());
        Ember.graphBreak();
        return new ArrayList<>(List.of(e, e.getValue().add(1)));
    }

    static Tensor setValueThrows(Tensor x) {
        Map.Entry<String, Tensor> e = Map.entry("k", x);
        e.setValue(x.neg());
        return e.getValue();
    }

    @Test
    void objectsOwnEqualsIsIdentityInOneGraph() {
        Tensor x = Tensor.randn(3);
        CompileCounter cc = new CompileCounter();
        Tensor got = Ember.compile((Fn1<Tensor, Tensor>) ObjectEqualsAndMapEntryTest::identityEquals, Options.backend(cc)).apply(x);
        assertArrayEquals(identityEquals(x).toDoubleArray(), got.toDoubleArray(), 1e-6);
        assertEquals(1, cc.frameCount());
        assertEquals(2, cc.opCount(), "add and the one mul the identity test takes");
    }

    @Test
    void mapEntryPairsAreTracedInOneGraph() {
        Tensor x = Tensor.randn(3);
        CompileCounter cc = new CompileCounter();
        Tensor got = Ember.compile((Fn1<Tensor, Tensor>) ObjectEqualsAndMapEntryTest::pairs, Options.backend(cc)).apply(x);
        assertArrayEquals(pairs(x).toDoubleArray(), got.toDoubleArray(), 1e-6);
        assertEquals(1, cc.frameCount());
    }

    @Test
    @SuppressWarnings("unchecked")
    void aPairLiveAcrossABreakIsMadeAgainAsMapEntry() {
        Tensor x = Tensor.randn(3);
        List<Object> got = Ember.compile((Fn1<Tensor, List<Object>>) ObjectEqualsAndMapEntryTest::pairAcrossABreak).apply(x);
        Map.Entry<String, Tensor> e = (Map.Entry<String, Tensor>) got.get(0);
        assertEquals("k", e.getKey());
        assertArrayEquals(x.exp().toDoubleArray(), e.getValue().toDoubleArray(), 1e-6);
        assertArrayEquals(x.exp().add(1).toDoubleArray(), ((Tensor) got.get(1)).toDoubleArray(), 1e-6);
        assertThrows(UnsupportedOperationException.class, () -> e.setValue(x), "immutable, as Map.entry's");
    }

    @Test
    void setValueOnAMapEntryThrowsAsEagerDoes() {
        Tensor x = Tensor.randn(3);
        assertThrows(UnsupportedOperationException.class, () -> setValueThrows(x));
        assertThrows(UnsupportedOperationException.class, () -> Ember.compile((Fn1<Tensor, Tensor>) ObjectEqualsAndMapEntryTest::setValueThrows).apply(x));
    }
}
