package dev.ember.inductor;

import dev.ember.fx.CompileMode;
import dev.ember.fx.Graph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.inductor.runtime.TransposedWeight;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** max-autotune's transposed-weight variant: the kept copy is right, reused while valid, remade when the weight changes. */
class TransposedWeightTest {

    private static float[] transposed(Tensor w) { return w.t().contiguous().toFloatArray(); }

    @Test
    void theCopyIsTheTransposeAndIsRemadeWhenTheWeightIsWrittenOrReplaced() {
        Tensor w = Tensor.randn(70, 130);   // [n, k] stored, read as its [k, n] transpose
        TransposedWeight cache = new TransposedWeight();
        float[] first = cache.get(w, 0, 70, 130, 130);
        assertArrayEquals(transposed(w), first);
        assertSame(first, cache.get(w, 0, 70, 130, 130), "same storage, same version: the kept copy");
        w.mul_(2.0);
        float[] second = cache.get(w, 0, 70, 130, 130);
        assertNotSame(first, second, "an in-place write bumps the version: remade");
        assertArrayEquals(transposed(w), second);
        Tensor other = Tensor.randn(70, 130);
        assertArrayEquals(transposed(other), cache.get(other, 0, 70, 130, 130), "another storage: remade");
        Tensor big = Tensor.randn(3, 70, 130);
        assertArrayEquals(transposed(big.select(0, 2)), cache.get(big, 2 * 70 * 130, 70, 130, 130), "at an offset");
    }

    @Test
    void aCompiledLinearReadsTheKeptCopyAndSeesWeightUpdates() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null), w = g.placeholder("w", null), b = g.placeholder("b", null);
        g.output(Graphs.call(g, "relu.default", Graphs.call(g, "linear.default", x, w, b)));
        GraphModule gm = new GraphModule(g);
        Tensor xs = Tensor.randn(64, 96), ws = Tensor.randn(80, 96), bs = Tensor.randn(80);
        // A chooser that always takes the variant: the transposed-weight class is the last one offered.
        InductorGraph c = Inductor.compile(gm, List.of(xs, ws, bs), CompileMode.MAX_AUTOTUNE, null, (a, bb, in) -> true);
        assertTrue(c.sourceCode().contains("WEIGHT_T0.get(inputs[1]"), c.sourceCode());
        assertArrayEquals(((Tensor) gm.run(xs, ws, bs)).toFloatArray(), ((Tensor) c.run(xs, ws, bs)).toFloatArray(), 1e-4f);
        ws.add_(1.0);   // an optimizer step, say
        assertArrayEquals(((Tensor) gm.run(xs, ws, bs)).toFloatArray(), ((Tensor) c.run(xs, ws, bs)).toFloatArray(), 1e-4f,
                "after an in-place update the compiled graph reads the new weight");
    }

    /**
     * Found by the differential fuzzer (seed 5056): in linear(x, x) the same input is the GEMM's
     * left operand and its transposed weight; the variant dropped the input's array from the kernel
     * because the weight now came from the copy, and the class failed to build ("reads undeclared local").
     */
    @Test
    void anInputThatIsBothOperandsKeepsItsArray() {
        Graph g = new Graph();
        Node x = g.placeholder("x", null);
        g.output(Graphs.call(g, "linear.default", x, x));
        GraphModule gm = new GraphModule(g);
        Tensor xs = Tensor.randn(4, 4);
        InductorGraph c = Inductor.compile(gm, List.of(xs), CompileMode.MAX_AUTOTUNE, null, (a, bb, in) -> true);
        assertTrue(c.sourceCode().contains("WEIGHT_T0.get(inputs[0]"), c.sourceCode());
        assertArrayEquals(((Tensor) gm.run(xs)).toFloatArray(), ((Tensor) c.run(xs)).toFloatArray(), 1e-5f);
    }
}
