package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Iterator;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The iterator of an endless stream (Stream.generate, Stream.iterate without a bound) makes its
 * items as they are asked for, as Java's does; before, the trace tried to make the stream whole and
 * broke the graph after 4096 items. A break while one is live runs the rest as eager does, and its
 * remove refuses as Iterator's default does.
 */
class EndlessStreamIteratorTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor halvesUntilSmall(Tensor x) {
        Iterator<Tensor> it = Stream.iterate(x, t -> t.mul(0.5)).iterator();
        Tensor sum = x.mul(0);
        for (int i = 0; i < 6 && it.hasNext(); i++) sum = sum.add(it.next());
        return sum;
    }

    static Tensor breaksWhileOneIsLive(Tensor x) {
        Iterator<Tensor> it = Stream.iterate(x, t -> t.add(1)).iterator();
        Tensor a = it.next();
        double peek = a.sum().item();               // a graph break, the stream's iterator live across it
        return it.next().add(it.next()).mul(peek > 1e9 ? 0 : 1);
    }

    static Tensor removeRefuses(Tensor x) {
        Iterator<Double> it = Stream.generate(() -> 2.0).iterator();
        it.next();
        try {
            it.remove();
            return x;
        } catch (UnsupportedOperationException e) {
            return x.mul(it.next()).add(e.getMessage().length());
        }
    }

    @Test
    void itemsAreMadeAsTheyAreAskedForInOneGraph() {
        Tensor x = Tensor.randn(3);
        CompileCounter cc = new CompileCounter();
        assertArrayEquals(halvesUntilSmall(x).toDoubleArray(),
                Ember.compile((Fn1<Tensor, Tensor>) EndlessStreamIteratorTest::halvesUntilSmall, Options.fullgraph().withBackend(cc)).apply(x).toDoubleArray(), 1e-6);
        assertEquals(1, cc.frameCount());
        assertArrayEquals(removeRefuses(x).toDoubleArray(),
                Ember.compile((Fn1<Tensor, Tensor>) EndlessStreamIteratorTest::removeRefuses, Options.fullgraph()).apply(x).toDoubleArray(), 1e-6);
    }

    @Test
    void aBreakWhileOneIsLiveGivesEagersAnswer() {
        Tensor x = Tensor.randn(3);
        assertArrayEquals(breaksWhileOneIsLive(x).toDoubleArray(),
                Ember.compile((Fn1<Tensor, Tensor>) EndlessStreamIteratorTest::breaksWhileOneIsLive).apply(x).toDoubleArray(), 1e-6);
    }
}
