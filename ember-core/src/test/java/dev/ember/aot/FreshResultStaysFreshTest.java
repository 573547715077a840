package dev.ember.aot;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.fx.GraphModule;
import dev.ember.fx.Node;
import dev.ember.fx.ShapeProp;
import dev.ember.ops.LinalgOps;
import dev.ember.ops.OpOverload;
import dev.ember.ops.ShapeOps;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An op that returns a fresh tensor stays fresh when it is decomposed: matmul of a batch by a
 * matrix decomposes into {@code mm} on the batch seen as a matrix, reshaped back. Ending in a
 * plain reshape made the compiled result a view of that temporary, so an in-place op on it under
 * autograd was refused only compiled (differential fuzzer, seeds 43300 and 45926). The
 * decomposition's final reshape is ATen's {@code _unsafe_view}.
 */
class FreshResultStaysFreshTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor f(Tensor a, Tensor w) {
        Tensor y = a.matmul(w);
        Ember.graphBreak();
        y.mul_(0.5);                 // in place on matmul's result: eager allows it under autograd
        return y.sum(0, false);
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void anInPlaceOpOnACompiledMatmulResultTrainsAsEager(String backend) {
        var compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) FreshResultStaysFreshTest::f, Options.backend(backend));
        for (int call = 0; call < 2; call++) {
            Tensor a = Tensor.randn(new Generator(call), 4, 3, 5).requiresGrad(true), w = Tensor.randn(new Generator(9 + call), 5, 2).requiresGrad(true);
            Tensor ea = a.detach().clone().requiresGrad(true), ew = w.detach().clone().requiresGrad(true);
            f(ea, ew).sum().backward();
            Tensor out = compiled.apply(a, w);
            out.sum().backward();
            assertArrayEquals(ea.grad().toFloatArray(), a.grad().toFloatArray(), 1e-5f, backend);
            assertArrayEquals(ew.grad().toFloatArray(), w.grad().toFloatArray(), 1e-5f, backend);
        }
    }

    @Test
    void theDecomposedMatmulEndsInAnUnsafeViewNotAView() {
        dev.ember.fx.Graph g = new dev.ember.fx.Graph();
        Node a = g.placeholder("a", null), w = g.placeholder("w", null);
        g.output(g.callFunction(LinalgOps.MATMUL, a, w));
        GraphModule gm = new GraphModule(g);
        ShapeProp.propagate(gm, Tensor.randn(4, 3, 5), Tensor.randn(5, 2));
        DecomposePass.run(gm);
        Node out = (Node) gm.graph().outputNode().arg(0);
        assertTrue(out.target() == ShapeOps.UNSAFE_VIEW, gm.code());
        assertFalse(((OpOverload) out.target()).returnsAlias());
        assertTrue(gm.graph().nodes().stream().anyMatch(n -> n.target() == LinalgOps.MM), gm.code());
    }

    /**
     * einsum takes its operands as a list. Under autograd its decomposition's permuted view of an
     * operand was taken for a view of a temporary and made {@code _unsafe_view}, still in the
     * operand's memory: writing the result wrote the input with grad on and not without it, and the
     * compiled training run (which copies) disagreed with eager (fuzzer seed 820251). A result that
     * aliases an operand given in a list is copied, as one aliasing a tensor argument is.
     */
    @Test
    void einsumsResultIsItsOwnWithGradAsWithout() {
        for (boolean grad : new boolean[] {false, true}) {
            Tensor x = Tensor.randn(new Generator(3), 4, 2).requiresGrad(grad);
            float[] before = x.detach().clone().toFloatArray();
            Tensor y = Tensor.einsum("ij->ji", x);
            y.mul_(2.0);
            assertArrayEquals(before, x.detach().toFloatArray(), "x written through einsum's result, grad " + grad);
            if (grad) {
                y.sum().backward();
                float[] two = new float[8];
                java.util.Arrays.fill(two, 2f);
                assertArrayEquals(two, x.grad().toFloatArray());
            }
        }
    }

    @Test
    void unsafeViewIsNotAViewEagerly() {
        Tensor t = Tensor.randn(new Generator(1), 6).mul(2.0);
        Tensor v = ShapeOps.UNSAFE_VIEW.callTensor(t, new int[] {2, 3});
        assertFalse(v.isView());
        assertArrayEquals(t.toFloatArray(), v.toFloatArray());
    }
}
