package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.fx.Node;
import dev.ember.fx.NodeKind;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Arguments are wrapped when the trace first reads them, after ops already recorded; their
 * placeholders still come first in the graph, in input order. When one came after a constant,
 * the inductor's lifted constants took its position and the compiled resume graph divided by the
 * wrong number (found by the fuzzer, seed 42384).
 */
class PlaceholderOrderTest {
    @AfterEach
    void reset() { Ember.reset(); }

    /** {@code s} is read after the division by a constant; the item() breaks the graph, so {@code s} is read in the resume method. */
    static Tensor readLate(Tensor a, double s) {
        Tensor v = a.sub(a.sum().item() / 3.0);
        return v.add(s);
    }

    @Test
    void placeholdersPrecedeEveryOtherNodeAndInductorAgreesWithEager() {
        List<List<NodeKind>> kinds = new java.util.ArrayList<>();
        var compiled = Ember.compile((Fn2<Tensor, Double, Tensor>) PlaceholderOrderTest::readLate, Options.backend((gm, inputs) -> {
            kinds.add(gm.graph().nodes().stream().map(Node::kind).toList());
            return dev.ember.fx.Backends.get("inductor").compile(gm, inputs);
        }));
        for (int call = 0; call < 3; call++) {
            Tensor a = Tensor.randn(new Generator(call), 6);
            double s = 0.5 + call;
            assertArrayEquals(readLate(a, s).toFloatArray(), compiled.apply(a, s).toFloatArray(), 1e-6f, "call " + call);
        }
        assertTrue(kinds.size() >= 2, "the graph before the break and the resume method's: " + kinds);
        for (List<NodeKind> k : kinds) {
            int lastPlaceholder = k.lastIndexOf(NodeKind.PLACEHOLDER), firstOther = 0;
            while (firstOther < k.size() && k.get(firstOther) == NodeKind.PLACEHOLDER) firstOther++;
            assertTrue(lastPlaceholder < firstOther, "placeholders first: " + k);
        }
    }
}
