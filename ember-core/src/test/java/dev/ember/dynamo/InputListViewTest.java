package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The JDK's views of lists passed in as inputs: a reversed() view of a List.of list (whose class,
 * ReverseOrderListView, is the same over an ArrayList), a subList of one, Collections.unmodifiableList.
 * Every write to those throws UnsupportedOperationException at once, so a write caught in the
 * function is traced (one graph, the handler's path) rather than breaking; a reversed view's base
 * class is guarded, so the same function called with a reversed view of an ArrayList recompiles and
 * writes through to the caller's list as eager does.
 */
class InputListViewTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor setOrFallBack(List<Tensor> xs, Tensor y) {
        try {
            xs.set(0, y.mul(2));
            return xs.get(0).add(xs.getLast());
        } catch (UnsupportedOperationException e) {
            return y.sub(xs.getFirst());
        }
    }

    static Tensor sortOrFallBack(List<Tensor> xs, Tensor y) {
        try {
            xs.sort(Comparator.comparingInt(Tensor::dim));
            return y.add(1);
        } catch (UnsupportedOperationException e) {
            return y.mul(xs.size());
        }
    }

    static Tensor clearOrFallBack(List<Tensor> xs, Tensor y) {
        try {
            xs.clear();
            return y;
        } catch (UnsupportedOperationException e) {
            return y.add(xs.get(0)).add(xs.get(1));
        }
    }

    static Tensor readsPastTheEnd(List<Tensor> xs, Tensor y) {
        try {
            return xs.get(xs.size() + 2);
        } catch (IndexOutOfBoundsException e) {
            return y.mul(e.getMessage().length()).add(xs.getFirst());
        }
    }

    private static void assertCompiledIsEager(Fn2<List<Tensor>, Tensor, Tensor> fn, Fn2<List<Tensor>, Tensor, Tensor> compiled, List<Tensor> eagerIn, List<Tensor> compiledIn, Tensor y) {
        assertArrayEquals(fn.apply(eagerIn, y).toDoubleArray(), compiled.apply(compiledIn, y).toDoubleArray(), 1e-6);
    }

    @Test
    void aWriteToAReversedViewOfAnImmutableListIsTracedAsItsRefusal() {
        Tensor a = Tensor.randn(3), b = Tensor.randn(3), c = Tensor.randn(3), y = Tensor.randn(3);
        CompileCounter cc = new CompileCounter();
        Fn2<List<Tensor>, Tensor, Tensor> f = Ember.compile((Fn2<List<Tensor>, Tensor, Tensor>) InputListViewTest::setOrFallBack, Options.backend(cc));
        assertCompiledIsEager(InputListViewTest::setOrFallBack, f, List.of(a, b, c).reversed(), List.of(a, b, c).reversed(), y);
        assertEquals(1, cc.frameCount(), "one graph: the refusal and its handler are traced");
        assertEquals(2, cc.opCount(), "y.mul(2), made before the refused set, and the handler's sub");
    }

    @Test
    void aReversedViewOfAnArrayListRecompilesAndWritesThrough() {
        Tensor a = Tensor.randn(3), b = Tensor.randn(3), c = Tensor.randn(3), y = Tensor.randn(3);
        Fn2<List<Tensor>, Tensor, Tensor> f = Ember.compile((Fn2<List<Tensor>, Tensor, Tensor>) InputListViewTest::setOrFallBack);
        f.apply(List.of(a, b, c).reversed(), y);
        List<Tensor> eagerBase = new ArrayList<>(List.of(a, b, c)), compiledBase = new ArrayList<>(List.of(a, b, c));
        assertCompiledIsEager(InputListViewTest::setOrFallBack, f, eagerBase.reversed(), compiledBase.reversed(), y);
        assertArrayEquals(eagerBase.getLast().toDoubleArray(), compiledBase.getLast().toDoubleArray(), 1e-6, "the write went through to the caller's list");
        assertSame(a, compiledBase.getFirst());
    }

    @Test
    void writesToUnmodifiableAndSubListInputsAreTracedAsTheirRefusals() {
        Tensor a = Tensor.randn(3), b = Tensor.randn(2, 3), c = Tensor.randn(3), y = Tensor.randn(3);
        CompileCounter cc = new CompileCounter();
        Fn2<List<Tensor>, Tensor, Tensor> sort = Ember.compile((Fn2<List<Tensor>, Tensor, Tensor>) InputListViewTest::sortOrFallBack, Options.backend(cc));
        List<Tensor> backing = new ArrayList<>(List.of(b, a, c));
        assertCompiledIsEager(InputListViewTest::sortOrFallBack, sort, Collections.unmodifiableList(backing), Collections.unmodifiableList(backing), y);
        assertSame(b, backing.getFirst(), "nothing was sorted");
        Fn2<List<Tensor>, Tensor, Tensor> clear = Ember.compile((Fn2<List<Tensor>, Tensor, Tensor>) InputListViewTest::clearOrFallBack, Options.backend(cc));
        assertCompiledIsEager(InputListViewTest::clearOrFallBack, clear, List.of(a, c, a, c).subList(1, 3), List.of(a, c, a, c).subList(1, 3), y);
        assertCompiledIsEager(InputListViewTest::clearOrFallBack, clear, List.of(c, a).reversed(), List.of(c, a).reversed(), y);
        assertEquals(3, cc.frameCount(), "a graph each (the reversed view's own class recompiles), no break");
    }

    @Test
    void anIndexPastTheEndOfAReversedImmutableListRaisesEagersException() {
        Tensor a = Tensor.randn(3), b = Tensor.randn(3), y = Tensor.randn(3);
        CompileCounter cc = new CompileCounter();
        Fn2<List<Tensor>, Tensor, Tensor> f = Ember.compile((Fn2<List<Tensor>, Tensor, Tensor>) InputListViewTest::readsPastTheEnd, Options.backend(cc));
        assertCompiledIsEager(InputListViewTest::readsPastTheEnd, f, List.of(a, b).reversed(), List.of(a, b).reversed(), y);
        assertEquals(1, cc.frameCount(), "the message is List.of(…).reversed()'s own, traced");
    }
}
