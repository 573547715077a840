package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A number read from tensor data that the code never uses ({@code item()} and the arithmetic on it)
 * does not reach the backend (#16 item 6), as Dynamo drops unused symbolic-number nodes; every
 * other op stays, used or not, so op counts stay PyTorch's.
 */
class UnusedScalarReadTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor dropsItsItem(Tensor x) {
        double unused = x.sum().item() * 2 + 1;   // read, computed with, then never used
        return x.relu();
    }

    static Tensor usesItsItem(Tensor x) {
        double scale = x.sum().item() * 2;
        return x.mul(scale);
    }

    static Tensor keepsAnUnusedTensorOp(Tensor x) {
        Tensor unused = x.exp();
        return x.relu();
    }

    @Test
    void anUnusedItemAndItsArithmeticLeaveTheGraph() {
        Tensor x = Tensor.randn(3, 4);
        ExplainOutput e = Ember.explain((Fn1<Tensor, Tensor>) UnusedScalarReadTest::dropsItsItem).with(x);
        String graph = String.join("\n", e.graphs());
        assertFalse(graph.contains("_local_scalar_dense"), graph);
        assertFalse(graph.contains("_to_copy"), graph);
        assertEquals(2, e.opCount(), "sum (a tensor op: kept, as PyTorch keeps it) and relu:\n" + graph);
        assertTrue(dropsItsItem(x).sameData(Ember.compile((Fn1<Tensor, Tensor>) UnusedScalarReadTest::dropsItsItem).apply(x)));
    }

    @Test
    void aUsedItemStaysAndAnUnusedTensorOpStays() {
        Tensor x = Tensor.randn(3, 4);
        Options capture = Options.defaults().captureScalarOutputs(true);
        ExplainOutput used = Ember.explain((Fn1<Tensor, Tensor>) UnusedScalarReadTest::usesItsItem, capture).with(x);
        assertEquals(1, used.graphCount(), used.toString());
        assertTrue(String.join("\n", used.graphs()).contains("_local_scalar_dense"), used.toString());
        Tensor got = Ember.compile((Fn1<Tensor, Tensor>) UnusedScalarReadTest::usesItsItem, capture).apply(x);
        assertTrue(usesItsItem(x).sub(got).abs().amax().item() <= 1e-5, "the scale multiplies as a 0-d tensor: equal up to rounding");
        ExplainOutput kept = Ember.explain((Fn1<Tensor, Tensor>) UnusedScalarReadTest::keepsAnUnusedTensorOp).with(x);
        assertEquals(2, kept.opCount(), "exp is unused but a tensor op: it stays, as in PyTorch's graph");
    }
}
