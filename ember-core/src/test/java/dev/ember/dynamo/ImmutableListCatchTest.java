package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Changing an immutable list (List.of, toList) throws UnsupportedOperationException in the trace
 * as the JDK throws it, so a catch in the traced code catches it in the graph, as Dynamo traces
 * try/except around a raise. It was a graph break even when the program caught it.
 */
class ImmutableListCatchTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor caught(Tensor x) {
        List<Tensor> fixed = List.of(x);
        try {
            fixed.add(x);
            return x;
        } catch (UnsupportedOperationException e) {
            return x.mul(e.getMessage() == null ? 2 : 3);
        }
    }

    static Tensor uncaught(Tensor x) {
        List<Tensor> fixed = List.of(x.sin());
        fixed.set(0, x);
        return x;
    }

    @Test
    void aCatchAroundTheChangeIsTraced() {
        Tensor x = Tensor.randn(3);
        Fn1<Tensor, Tensor> fn = ImmutableListCatchTest::caught;
        assertTrue(fn.apply(x).sameData(Ember.compile(fn).apply(x)));
        ExplainOutput e = Ember.explain(fn).with(x);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertEquals(1, e.opCount(), e.toString());
    }

    @Test
    void uncaughtItLeavesTheFunctionAsEagersDoes() {
        Fn1<Tensor, Tensor> fn = ImmutableListCatchTest::uncaught;
        Tensor x = Tensor.randn(3);
        UnsupportedOperationException eager = assertThrows(UnsupportedOperationException.class, () -> fn.apply(x));
        UnsupportedOperationException compiled = assertThrows(UnsupportedOperationException.class, () -> Ember.compile(fn).apply(x));
        assertNull(eager.getMessage());
        assertEquals(eager.getMessage(), compiled.getMessage());
    }
}
