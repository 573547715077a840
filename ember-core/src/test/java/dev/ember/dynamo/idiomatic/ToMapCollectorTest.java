package dev.ember.dynamo.idiomatic;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static dev.ember.dynamo.idiomatic.Idioms.check;
import static dev.ember.dynamo.idiomatic.Idioms.checkThrows;
import static dev.ember.dynamo.idiomatic.Idioms.oneGraph;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * {@code Collectors.toMap} in its three forms is traced (as a dict comprehension is in Dynamo):
 * keys and values mapped per item, duplicates merged by the merge function, the map made by the
 * factory. It was a break at the JDK call. A duplicate key without a merge function still throws
 * eager's IllegalStateException.
 */
class ToMapCollectorTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static Map<String, Tensor> twoArguments(Tensor x) {
        return Stream.of("relu", "tanh").collect(Collectors.toMap(name -> name, name -> name.equals("relu") ? x.relu() : x.tanh()));
    }

    static Map<Integer, Tensor> merged(Tensor x) {
        return Stream.of(x, x.sum(0), x.neg(), x.sum()).collect(Collectors.toMap(Tensor::dim, t -> t, Tensor::add));
    }

    static Map<String, Integer> intoALinkedHashMap(Tensor x) {
        return Stream.of("b", "a", "b", "c").collect(Collectors.toMap(s -> s, s -> x.dim(), Integer::sum, LinkedHashMap::new));
    }

    static Map<Integer, Tensor> duplicateKey(Tensor x) {
        return Stream.of(x, x.neg()).collect(Collectors.toMap(Tensor::dim, t -> t));
    }

    @Test
    void keyAndValueMappers() {
        oneGraph(check((Fn1<Tensor, Map<String, Tensor>>) ToMapCollectorTest::twoArguments, Tensor.randn(2, 3)), 2);
    }

    @Test
    void aMergeFunctionForEqualKeys() {
        oneGraph(check((Fn1<Tensor, Map<Integer, Tensor>>) ToMapCollectorTest::merged, Tensor.randn(2, 3)));
    }

    @Test
    void aMapFactory() {
        Fn1<Tensor, Map<String, Integer>> fn = ToMapCollectorTest::intoALinkedHashMap;
        Idioms.noGraph(check(fn, Tensor.randn(2, 3)));   // no tensor op: no graph, and no break
        Map<String, Integer> got = Ember.compile(fn).apply(Tensor.randn(2, 3));
        assertInstanceOf(LinkedHashMap.class, got);
        assertEquals(List.of("b", "a", "c"), List.copyOf(got.keySet()));
        assertEquals(4, got.get("b"));
    }

    @Test
    void aDuplicateKeyWithoutMergeThrowsAsEager() {
        Throwable t = checkThrows((Fn1<Tensor, Map<Integer, Tensor>>) ToMapCollectorTest::duplicateKey, Tensor.randn(2));
        assertInstanceOf(IllegalStateException.class, t);
    }
}
