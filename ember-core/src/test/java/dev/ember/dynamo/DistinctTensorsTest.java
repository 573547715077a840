package dev.ember.dynamo;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tensor arguments traced as distinct objects are guarded distinct, as Dynamo's NO_TENSOR_ALIASING
 * guard over a frame's tensor inputs: one tensor passed for two of them recompiles (PyTorch 2.13:
 * test_subgraphs.py::test_dynamic_order_dependence compiles twice for (x, y) then (x, x), once for
 * (x, y) then (x, x.clone())).
 */
class DistinctTensorsTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor sumOfSums(Tensor a, Tensor b) { return a.sum().add(b.sum()); }

    @Test
    void oneTensorPassedTwiceRecompilesAndAClonedOneDoesNot() {
        CompileCounter cc = new CompileCounter();
        Options opts = Options.backend(cc);
        var f = Ember.compile((Fn2<Tensor, Tensor, Tensor>) DistinctTensorsTest::sumOfSums, opts);
        Tensor x = Tensor.randn(2), y = Tensor.randn(2);
        assertArrayEquals(sumOfSums(x, y).toFloatArray(), f.apply(x, y).toFloatArray());
        assertArrayEquals(sumOfSums(x, x.clone()).toFloatArray(), f.apply(x, x.clone()).toFloatArray());
        assertEquals(1, cc.frameCount(), "a clone is another tensor");
        assertArrayEquals(sumOfSums(x, x).toFloatArray(), f.apply(x, x).toFloatArray());
        assertEquals(2, cc.frameCount(), "one tensor for a and b: the alias changed");
        CompiledFrame frame = FrameRegistry.frames().stream().filter(fr -> fr.options() == opts).findFirst().orElseThrow();
        assertEquals("L['b'] is L['a']: the graph was traced with two distinct tensors", frame.recompileReasons().getFirst().failedGuards().getFirst());
        assertTrue(frame.entries().stream().flatMap(e -> e.graph().guards().stream())
                .anyMatch(g -> g.describe().equals("NO_TENSOR_ALIASING: L['a'], L['b'] are distinct tensors")));
        f.apply(y, y);
        assertEquals(2, cc.frameCount(), "the entry traced with one tensor twice serves another tensor twice");
    }
}
