package dev.ember.nn;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * F.unfold/F.fold (im2col/col2im) and the Unfold/Fold modules against libtorch's im2col and col2im
 * for kernels, dilations, paddings and strides, batched and unbatched, values and gradients;
 * compiled against eager; ATen's errors.
 */
class UnfoldFoldTest {

    private static String list(int[] v) { return Arrays.toString(v); }

    record Win(int[] k, int[] d, int[] p, int[] s) {}

    private static final List<Win> WINDOWS = List.of(
            new Win(new int[] {2, 2}, new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1}),
            new Win(new int[] {3, 2}, new int[] {1, 2}, new int[] {1, 0}, new int[] {2, 1}),
            new Win(new int[] {1, 3}, new int[] {2, 1}, new int[] {2, 1}, new int[] {1, 3}),
            new Win(new int[] {3, 3}, new int[] {1, 1}, new int[] {1, 1}, new int[] {2, 2}));

    @Test
    void unfoldAndFoldMatchLibtorch() {
        Random rng = new Random(1);
        for (Win w : WINDOWS) {
            for (Tensor x : List.of(Inputs.randn(rng, DType.FLOAT32, 2, 3, 7, 6), Inputs.randn(rng, DType.FLOAT64, 2, 7, 8), Inputs.nonContiguous(Inputs.randn(rng, DType.FLOAT32, 1, 2, 6, 7)))) {
                String args = list(w.k()) + ", " + list(w.d()) + ", " + list(w.p()) + ", " + list(w.s());
                Tensor cols = F.unfold(x, w.k(), w.d(), w.p(), w.s());
                assertClose(cols, Torch.call("ops.aten.im2col(a, " + args + ")", x), "im2col " + args + " of " + Arrays.toString(x.shape()));
                int[] size = {x.size(-2), x.size(-1)};
                assertClose(F.fold(cols, size, w.k(), w.d(), w.p(), w.s()), Torch.call("ops.aten.col2im(a, " + list(size) + ", " + args + ")", cols), "col2im " + args);
            }
        }
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 3, 5, 5);
        assertClose(new Unfold(2).forward(x), Torch.call("ops.aten.im2col(a, [2, 2], [1, 1], [0, 0], [1, 1])", x), "Unfold(2)");
        assertEquals("Unfold(kernel_size=2, dilation=1, padding=0, stride=1)", new Unfold(2).toString());
        assertEquals("Fold(output_size=(4, 5), kernel_size=(2, 3), dilation=1, padding=0, stride=1)",
                new Fold(new int[] {4, 5}, new int[] {2, 3}, new int[] {1}, new int[] {0}, new int[] {1}).toString());
    }

    @Test
    void gradientsMatchLibtorch() {
        Random rng = new Random(2);
        Win w = WINDOWS.get(1);
        String args = list(w.k()) + ", " + list(w.d()) + ", " + list(w.p()) + ", " + list(w.s());
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 2, 3, 7, 6);
        Tensor cols = F.unfold(x, w.k(), w.d(), w.p(), w.s()), weights = Inputs.randn(rng, DType.FLOAT64, cols.shape());
        try (NDManager m = Torch.scope()) {
            Tensor leaf = x.detach().requiresGrad(true);
            F.unfold(leaf, w.k(), w.d(), w.p(), w.s()).mul(weights).sum().backward();
            assertClose(leaf.grad(), Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([(ops.aten.im2col(a, " + args + ") * b).sum()], [a])", x, weights).head(), "im2col gradient");
            Tensor colLeaf = cols.detach().requiresGrad(true), imageWeights = Inputs.randn(rng, DType.FLOAT64, 2, 3, 7, 6);
            F.fold(colLeaf, new int[] {7, 6}, w.k(), w.d(), w.p(), w.s()).mul(imageWeights).sum().backward();
            assertClose(colLeaf.grad(), Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([(ops.aten.col2im(a, [7, 6], " + args + ") * b).sum()], [a])", cols, imageWeights).head(), "col2im gradient");
        }
    }

    @Test
    void compiledMatchesEager() {
        Tensor.manualSeed(3);
        Tensor x = Tensor.randn(2, 3, 6, 6);
        Fn1<Tensor, Tensor> fn = t -> F.fold(F.unfold(t, new int[] {3}, new int[] {1}, new int[] {1}, new int[] {2}).mul(2.0), new int[] {6, 6},
                new int[] {3}, new int[] {1}, new int[] {1}, new int[] {2});
        for (String backend : List.of("aot_eager", "inductor")) {
            assertArrayEquals(fn.apply(x).toDoubleArray(), Ember.compile(fn, Options.backend(backend).fullgraph(true)).apply(x).toDoubleArray(), 1e-5, backend);
        }
    }

    @Test
    void errors() {
        var e = assertThrows(IllegalArgumentException.class, () -> F.unfold(Tensor.randn(2, 3, 2, 2), 3));
        assertEquals("im2col: Given input with spatial size (2, 2), kernel_size=(3, 3), dilation=(1, 1), padding=(0, 0), calculated shape of the array of sliding blocks as (0, 0), "
                + "but its components must be at least one.", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> F.unfold(Tensor.randn(2, 3), 1));
        assertTrue(e.getMessage().startsWith("im2col: Expected non-empty 3D or 4D input tensor"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> F.fold(Tensor.randn(1, 5, 4), new int[] {3, 3}, 2));
        assertEquals("col2im: Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=5 and kernel_size=(2, 2)", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> F.fold(Tensor.randn(1, 4, 5), new int[] {3, 3}, 2));
        assertTrue(e.getMessage().endsWith("expected size of input's dimension 2 to match the calculated number of sliding blocks 2 * 2 = 4, but got input.size(2)=5."), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> F.unfold(Tensor.randn(1, 1, 4, 4), new int[] {2}, new int[] {1}, new int[] {0}, new int[] {0}));
        assertTrue(e.getMessage().endsWith("stride should be greater than zero, but got dH: 0 dW: 0"), e.getMessage());
    }
}
