package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.dynamo.CompileCounter;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An iterator over a list, set or map view, live across a graph break: the resume method gets a
 * real iterator over the rebuilt container at the position the trace reached, so the function
 * compiles around the break (before, it ran eagerly as a whole), reads the remaining items in
 * order, and fails on a change to the container as Java does.
 */
class IteratorAcrossBreakTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor constantsIterator(Tensor x) {
        Iterator<Integer> it = List.of(1, 2, 3, 4, 5).iterator();
        x = x.mul(it.next()).add(it.next());
        Ember.graphBreak();
        x = x.mul(it.next());
        while (it.hasNext()) x = x.add(it.next());
        return x;
    }

    static Tensor inputListIterator(List<Tensor> xs) {
        Iterator<Tensor> it = xs.iterator();
        Tensor acc = it.next().relu();
        Ember.graphBreak();
        while (it.hasNext()) acc = acc.add(it.next().sigmoid());
        return acc;
    }

    static Tensor changedAfterTheBreak(List<Tensor> xs, Tensor y) {
        Iterator<Tensor> it = xs.iterator();
        Tensor acc = it.next().add(y);
        Ember.graphBreak();
        xs.add(acc);
        return acc.add(it.next());   // Java: ConcurrentModificationException
    }

    static Tensor changedBeforeTheBreak(Tensor x) {
        List<Tensor> xs = new ArrayList<>(List.of(x, x.neg()));
        Iterator<Tensor> it = xs.iterator();
        Tensor acc = it.next().exp();
        xs.set(1, x.mul(3.0));   // not a structural change: the iterator still reads it
        Ember.graphBreak();
        return acc.add(it.next());
    }

    static Tensor mapEntries(Tensor x) {
        Map<String, Double> scales = new LinkedHashMap<>();
        scales.put("a", 2.0);
        scales.put("b", 3.0);
        scales.put("c", 0.5);
        for (Map.Entry<String, Double> e : scales.entrySet()) {
            x = x.mul(e.getValue()).add(e.getKey().length());
            if (e.getKey().equals("a")) Ember.graphBreak();
        }
        return x;
    }

    static Tensor setChangedAfterTheBreak(Tensor x) {
        Set<String> names = new HashSet<>(Set.of("p", "q"));
        Iterator<String> it = names.iterator();
        x = x.add(it.next().length());
        Ember.graphBreak();
        names.add("r");
        return x.add(it.next().length());   // Java: ConcurrentModificationException
    }

    @Test
    void aMapEntryIteratorResumesAtTheNextEntry() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) IteratorAcrossBreakTest::mapEntries, Options.backend("eager"));
        Tensor x = Tensor.randn(3);
        assertTrue(mapEntries(x).sameData(f.apply(x)));
    }

    @Test
    void aSetChangedAfterTheBreakFailsAsInJava() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) IteratorAcrossBreakTest::setChangedAfterTheBreak, Options.backend("eager"));
        assertThrows(ConcurrentModificationException.class, () -> setChangedAfterTheBreak(Tensor.randn(2)));
        assertThrows(ConcurrentModificationException.class, () -> f.apply(Tensor.randn(2)));
    }

    @Test
    void anIteratorOverConstantsResumesAtItsPosition() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn1<Tensor, Tensor>) IteratorAcrossBreakTest::constantsIterator, Options.backend(cc));
        Tensor x = Tensor.randn(3, 4);
        assertTrue(constantsIterator(x).sameData(f.apply(x)));
        assertEquals(2, cc.frameCount(), "the graph before the break and the resume method's");
    }

    @Test
    void anIteratorOverAnInputListResumesOnTheCallersList() {
        CompileCounter cc = new CompileCounter();
        var f = Ember.compile((Fn1<List<Tensor>, Tensor>) IteratorAcrossBreakTest::inputListIterator, Options.backend(cc));
        List<Tensor> xs = List.of(Tensor.randn(4), Tensor.randn(4), Tensor.randn(4));
        assertTrue(inputListIterator(xs).sameData(f.apply(xs)));
        assertEquals(2, cc.frameCount());
    }

    @Test
    void aStructuralChangeAfterTheBreakFailsAsInJava() {
        var f = Ember.compile((Fn2<List<Tensor>, Tensor, Tensor>) IteratorAcrossBreakTest::changedAfterTheBreak, Options.backend("eager"));
        Tensor y = Tensor.randn(2);
        assertThrows(ConcurrentModificationException.class, () -> changedAfterTheBreak(new ArrayList<>(List.of(Tensor.randn(2), Tensor.randn(2))), y));
        assertThrows(ConcurrentModificationException.class, () -> f.apply(new ArrayList<>(List.of(Tensor.randn(2), Tensor.randn(2))), y));
    }

    @Test
    void anElementReplacedBeforeTheBreakIsReadAfterIt() {
        var f = Ember.compile((Fn1<Tensor, Tensor>) IteratorAcrossBreakTest::changedBeforeTheBreak, Options.backend("eager"));
        Tensor x = Tensor.randn(5);
        assertTrue(changedBeforeTheBreak(x).sameData(f.apply(x)));
    }
}
