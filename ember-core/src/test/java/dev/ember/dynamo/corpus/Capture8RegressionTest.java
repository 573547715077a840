package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToIntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Capture session 8's fixes, each failing without it. */
class Capture8RegressionTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor sortByComparingInt(Tensor x) {
        List<Integer> l = new ArrayList<>(List.of(3, 1, 2));
        l.sort(Comparator.comparingInt(i -> -i));
        return x.mul(l.get(0)).add(l.get(2));
    }

    static Tensor sortTensorsByKey(Tensor x) {
        List<Tensor> l = new ArrayList<>(List.of(x.mul(3), x.mul(1), x.mul(2)));
        List<Integer> keys = List.of(3, 1, 2);
        List<Integer> idx = new ArrayList<>(List.of(0, 1, 2));
        idx.sort(Comparator.comparing(keys::get));
        return l.get(idx.get(0)).sub(l.get(idx.get(2)));
    }

    record Item(String name, long rank, double weight) {}

    static Tensor sortRecordsByKeys(Tensor x) {
        List<Item> items = new ArrayList<>(List.of(new Item("b", 2, 0.5), new Item("a", 3, 0.25), new Item("c", 1, 2.0)));
        items.sort(Comparator.comparingLong(Item::rank));
        Tensor y = x.mul(items.get(0).weight());
        items.sort(Comparator.comparingDouble(Item::weight));
        y = y.add(items.get(0).rank());
        items.sort(Comparator.comparing(Item::name));
        return y.mul(items.get(2).weight());
    }

    /** The comparator made before a break and used after it: made again after the graph. */
    static Tensor comparatorAcrossBreak(Tensor x) {
        Comparator<Integer> c = Comparator.comparingInt(i -> i % 3);
        Tensor y = x.mul(2);
        Ember.graphBreak();
        List<Integer> l = new ArrayList<>(List.of(5, 3, 4));
        l.sort(c);
        return y.add(l.get(0));
    }

    static ToIntFunction<Integer> nullKey;

    static Tensor comparingNullKey(Tensor x) {
        List<Integer> l = new ArrayList<>(List.of(3, 1));
        l.sort(Comparator.comparingInt(nullKey));
        return x.mul(l.get(0));
    }

    private static void sameAsEager(Fn1<Tensor, Tensor> f, int frames) {
        PyTorchPortsMoreTest.check(f, Options.defaults(), () -> List.<Object[]>of(new Object[] {Tensor.ones(2)}, new Object[] {Tensor.randn(2)}));
        Ember.reset();
        CompileCounter cc = new CompileCounter();
        Ember.compile(f, Options.backend(cc)).apply(Tensor.ones(2));
        assertEquals(frames, cc.frameCount(), "frames");
    }

    @Test
    void comparatorOfAKeyIsTraced() { // Comparator.comparingInt/Long/Double/comparing(key) broke (GB0003: not known to be pure)
        for (Fn1<Tensor, Tensor> f : List.<Fn1<Tensor, Tensor>>of(Capture8RegressionTest::sortByComparingInt, Capture8RegressionTest::sortTensorsByKey,
                Capture8RegressionTest::sortRecordsByKeys)) {
            sameAsEager(f, 1);
            ExplainOutput ex = Ember.explain(f).with(Tensor.ones(2));
            assertEquals(0, ex.graphBreakCount(), ex.toString());
            Ember.reset();
        }
    }

    @Test
    void keyComparatorAcrossABreak() { sameAsEager(Capture8RegressionTest::comparatorAcrossBreak, 2); }

    @Test
    void nullKeyThrowsAsEager() { // NullPointerException from Comparator.comparingInt(null), compiled as eager
        PyTorchPortsMoreTest.check((Fn1<Tensor, Tensor>) Capture8RegressionTest::comparingNullKey, Options.defaults(),
                () -> List.<Object[]>of(new Object[] {Tensor.ones(2)}));
        assertTrue(nullKey == null);
    }
}
