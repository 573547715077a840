package dev.ember.dynamo.corpus;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A synchronized method keeps its lock when compiled: the compiled code of a synchronized method runs
 * holding it, and a synchronized helper is not inlined into a graph (which could not hold it) but
 * called, as the break GB0009 says.
 */
class SynchronizedTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static synchronized Tensor lockedRoot(Tensor x) { return x.relu().mul(2); }

    static synchronized Tensor lockedHelper(Tensor t) { return t.exp(); }

    static Tensor callsLockedHelper(Tensor x) { return lockedHelper(x.relu()).sum(0, false); }

    @Test
    void aCompiledSynchronizedMethodWaitsForItsLock() throws Exception {
        Fn1<Tensor, Tensor> f = Ember.compile(SynchronizedTest::lockedRoot);
        Tensor x = Tensor.randn(3, 4);
        assertTrue(lockedRoot(x).sameData(f.apply(x)), "compiled once, outside any contention");
        AtomicReference<Tensor> result = new AtomicReference<>();
        Thread caller = new Thread(() -> result.set(f.apply(x)));
        Thread.State seen;
        synchronized (SynchronizedTest.class) {
            caller.start();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while ((seen = caller.getState()) != Thread.State.BLOCKED && seen != Thread.State.TERMINATED && System.nanoTime() < deadline) Thread.onSpinWait();
        }
        caller.join();
        assertEquals(Thread.State.BLOCKED, seen, "the compiled call waited for the class's lock, as the method itself would");
        assertTrue(lockedRoot(x).sameData(result.get()));
    }

    @Test
    void aSynchronizedHelperIsCalledNotInlined() {
        Tensor x = Tensor.randn(3, 4);
        ExplainOutput e = Ember.explain((Fn1<Tensor, Tensor>) SynchronizedTest::callsLockedHelper).with(x);
        assertEquals("GB0009", e.breakReasons().getFirst().gbId(), e.toString());
        assertTrue(e.breakReasons().getFirst().reason().contains("synchronized method"), e.toString());
        assertTrue(callsLockedHelper(x).sameData(Ember.compile((Fn1<Tensor, Tensor>) SynchronizedTest::callsLockedHelper).apply(x)));
    }
}
