package dev.ember.ops;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
import dev.ember.nn.ConvTranspose3d;
import dev.ember.nn.F;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.ops.LinalgOpsTest.assertSameError;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * conv_transpose3d against libtorch: strides, padding, output padding (also at least the stride,
 * below the dilation), groups, dilation, bias or none, unbatched input; the gradients of input,
 * weight and bias against libtorch's autograd; ATen's errors; nn.ConvTranspose3d; compiled equal to eager.
 */
class ConvTranspose3dTest {
    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    @AfterEach
    void reset() { Ember.reset(); }

    private static Tensor randn(int... shape) { return Tensor.randn(shape).to(DType.FLOAT64); }

    // stride, padding, output padding, groups, dilation, kernel
    private static final int[][] CASES = {{1, 0, 0, 1, 1, 2}, {2, 1, 1, 1, 1, 3}, {2, 0, 0, 2, 1, 2}, {1, 1, 0, 4, 1, 1}, {1, 1, 1, 1, 2, 2}};

    @Test
    void valuesAndGradientsMatchLibtorch() {
        Tensor.manualSeed(9);
        try (NDManager m = Torch.scope()) {
            for (int[] c : CASES) {
                Tensor x = randn(2, 4, 3, 4, 3), w = randn(4, 8 / c[3], c[5], c[5], c[5]), b = randn(8);
                String what = "stride " + c[0] + " padding " + c[1] + " output_padding " + c[2] + " groups " + c[3] + " dilation " + c[4] + " kernel " + c[5];
                String torch = "torch.conv_transpose3d(a, b, c, [" + c[0] + "], [" + c[1] + "], [" + c[2] + "], " + c[3] + ", [" + c[4] + "])";
                assertClose(F.convTranspose3d(x, w, b, c[0], c[1], c[2], c[3], c[4]), Torch.call(m, torch, x, w, b), what);
                assertClose(F.convTranspose3d(x.select(0, 1), w, b, c[0], c[1], c[2], c[3], c[4]), Torch.call(m, torch, x.select(0, 1), w, b), what + " unbatched");
                assertClose(F.convTranspose3d(x, w, null, c[0], c[1], c[2], c[3], c[4]),
                        Torch.call(m, torch.replace("a, b, c,", "a, b, None,"), x, w), what + " no bias");

                Tensor xl = x.detach().requiresGrad(true), wl = w.detach().requiresGrad(true), bl = b.detach().requiresGrad(true);
                Tensor y = F.convTranspose3d(xl, wl, bl, c[0], c[1], c[2], c[3], c[4]);
                Tensor go = randn(y.shape());
                List<Tensor> got = Autograd.grad(List.of(y), List.of(xl, wl, bl), List.of(go), false, false, false);
                NDList want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\nc = c.detach().requires_grad_(True)\n"
                        + "y = " + torch + "\ngo: List[Optional[Tensor]] = [d]\nreturn torch.autograd.grad([y], [a, b, c], go)", x, w, b, go);
                for (int i = 0; i < 3; i++) assertClose(got.get(i), want.get(i), what + " gradient " + i);
            }
        }
    }

    @Test
    void atensErrorsAndTheModule() {
        String op = "aten.conv_transpose3d.input";
        Tensor x = Tensor.randn(1, 3, 4, 4, 4);
        assertSameError("torch.conv_transpose3d(a, b)", op, x, Tensor.randn(4, 8, 3, 3, 3));
        assertSameError("torch.conv_transpose3d(a, b)", op, Tensor.randn(3, 4), Tensor.randn(3, 8, 3, 3, 3));
        assertSameError("torch.conv_transpose3d(a, b, None, 1, 0, 1)", new Object[] {x, Tensor.randn(3, 8, 3, 3, 3)}, op, x, Tensor.randn(3, 8, 3, 3, 3), null, 1, 0, 1);
        ConvTranspose3d up = new ConvTranspose3d(3, 8, 4, 2, 1);
        assertEquals("ConvTranspose3d(3, 8, kernel_size=(4, 4, 4), stride=(2, 2, 2), padding=(1, 1, 1))", up.toString());
        assertEquals(List.of(1, 8, 8, 8, 8), java.util.Arrays.stream(up.forward(x).shape()).boxed().toList(), "doubles the size");
        assertEquals(List.of(3, 8, 4, 4, 4), java.util.Arrays.stream(up.weight.shape()).boxed().toList());
    }

    @Test
    void compiledEqualsEager() {
        ConvTranspose3d up = new ConvTranspose3d(4, 6, 3, 2, 1, 1, 2, true, 1);
        Tensor x = Tensor.randn(2, 4, 3, 4, 3);
        for (String backend : List.of("aot_eager", "inductor")) {
            Fn1<Tensor, Tensor> f = Ember.compile((Fn1<Tensor, Tensor>) in -> up.forward(in).relu(), Options.backend(backend));
            assertClose(f.apply(x), up.forward(x).relu(), backend);
        }
    }
}
