package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * subList and reversed return views in Java: writes through a view change the list, and changes
 * of the list show through the view. The trace keeps them live over an ArrayList or LinkedList
 * (PyTorch corpus {@code functions.list_slice_assignment} threw where eager cleared the list's
 * tail); of a list that cannot change, a copy is the same.
 */
class ListViewCaptureTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor clearsATail(Tensor x) {
        List<Tensor> m = new ArrayList<>(List.of(x, x.add(1), x.add(2)));
        m.subList(1, m.size()).clear();
        m.add(x.mul(6));
        Tensor sum = x.mul(0);
        for (Tensor t : m) sum = sum.add(t);
        return sum.add(m.size());
    }

    static Tensor readsAViewAfterTheListChanged(Tensor x, Tensor y) {
        List<Tensor> xs = new ArrayList<>(List.of(x, x.neg(), x.exp()));
        List<Tensor> tail = xs.subList(1, 3);
        List<Tensor> backwards = xs.reversed();
        xs.set(1, y.mul(2));                         // shows through both views
        return tail.get(0).add(backwards.get(1)).add(tail.getLast());
    }

    static Tensor aViewOfAnImmutableList(Tensor x) {
        List<Tensor> xs = List.of(x.sin(), x.cos(), x.tanh());
        Tensor s = x.mul(0);
        for (Tensor t : xs.subList(1, 3)) s = s.add(t);
        return s.add(xs.reversed().getFirst());
    }

    @Test
    void aViewOfAListThatChangesIsTracedLive() {
        Tensor x = Tensor.randn(4), y = Tensor.randn(4);
        CompileCounter cc = new CompileCounter();
        assertArrayEquals(clearsATail(x).toDoubleArray(),
                Ember.compile((Fn1<Tensor, Tensor>) ListViewCaptureTest::clearsATail, Options.backend(cc)).apply(x).toDoubleArray(), 1e-6);
        assertArrayEquals(readsAViewAfterTheListChanged(x, y).toDoubleArray(),
                Ember.compile((Fn2<Tensor, Tensor, Tensor>) ListViewCaptureTest::readsAViewAfterTheListChanged, Options.backend(cc)).apply(x, y).toDoubleArray(), 1e-6);
        assertEquals(2, cc.frameCount(), "one graph each, no break");
    }

    static Tensor setsAnElementOfItsArgument(List<Tensor> xs, Tensor y) {
        Tensor old = xs.get(1);
        xs.set(1, y.mul(2));
        return old.add(y);
    }

    @Test
    void aCallersViewOfAnArgumentListSurvivesAnElementSetInTheGraph() {
        Tensor a = Tensor.randn(3), b = Tensor.randn(3), y = Tensor.randn(3);
        List<Tensor> xs = new ArrayList<>(List.of(a, b, a));
        List<Tensor> view = xs.subList(1, 3);        // the caller's view: a set is not a structural change in Java
        Fn2<List<Tensor>, Tensor, Tensor> f = Ember.compile((Fn2<List<Tensor>, Tensor, Tensor>) ListViewCaptureTest::setsAnElementOfItsArgument);
        assertArrayEquals(b.add(y).toDoubleArray(), f.apply(xs, y).toDoubleArray(), 1e-6);
        assertArrayEquals(y.mul(2).toDoubleArray(), view.get(0).toDoubleArray(), 1e-6, "the view still works and shows the set");
    }

    @Test
    void aViewOfAListThatCannotChangeStaysInOneGraph() {
        Tensor x = Tensor.randn(4);
        CompileCounter cc = new CompileCounter();
        Fn1<Tensor, Tensor> f = Ember.compile((Fn1<Tensor, Tensor>) ListViewCaptureTest::aViewOfAnImmutableList, Options.backend(cc));
        assertArrayEquals(aViewOfAnImmutableList(x).toDoubleArray(), f.apply(x).toDoubleArray(), 1e-6);
        assertEquals(1, cc.frameCount(), "no break: a List.of cannot change, so its views are its copies");
    }
}
