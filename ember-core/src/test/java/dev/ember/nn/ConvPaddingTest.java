package dev.ember.nn;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.ember.nn.AtenRefusal.refused;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Convolution padding "same" and "valid" (F.conv1d/2d/3d and the modules) against libtorch's
 * string-padding convolutions, even and odd kernels, dilation, groups, unbatched input, values and
 * gradients; the Conv modules' paddingMode against PyTorch's definition (F.pad with the mode, then
 * a convolution without padding); printed forms; errors; a compiled module equal to eager.
 */
class ConvPaddingTest {
    private final Random rng = new Random(61);

    @Test
    void stringPaddingMatchesLibtorch() {
        try (NDManager m = Torch.scope()) {
            for (String padding : List.of("same", "valid")) {
                for (int[] kd : List.of(new int[] {3, 1}, new int[] {4, 1}, new int[] {2, 3}, new int[] {4, 2}, new int[] {1, 1})) {
                    int k = kd[0], d = kd[1];
                    String ctx = padding + " k" + k + " d" + d;
                    Tensor x1 = Inputs.randn(rng, DType.FLOAT64, 2, 4, 9), w1 = Inputs.randn(rng, DType.FLOAT64, 6, 2, k), b = Inputs.randn(rng, DType.FLOAT64, 6);
                    assertClose(F.conv1d(x1, w1, b, 1, padding, d, 2), Torch.call(m, "torch.conv1d(a, b, c, [1], '" + padding + "', [" + d + "], 2)", x1, w1, b), "conv1d " + ctx);
                    Tensor u1 = x1.select(0, 1);
                    assertClose(F.conv1d(u1, w1, null, 1, padding, d, 2), Torch.call(m, "torch.conv1d(a, b, None, [1], '" + padding + "', [" + d + "], 2)", u1, w1), "unbatched conv1d " + ctx);
                    Tensor x2 = Inputs.randn(rng, DType.FLOAT64, 2, 3, 7, 8), w2 = Inputs.randn(rng, DType.FLOAT64, 6, 3, k, 3);
                    int[] dil = {d, 1};
                    assertClose(F.conv2d(x2, w2, b, new int[] {1, 1}, padding, dil, 1),
                            Torch.call(m, "torch.conv2d(a, b, c, [1, 1], '" + padding + "', [" + d + ", 1], 1)", x2, w2, b), "conv2d " + ctx);
                    Tensor u2 = x2.select(0, 0);
                    assertClose(F.conv2d(u2, w2, b, new int[] {1, 1}, padding, dil, 1),
                            Torch.call(m, "torch.conv2d(a, b, c, [1, 1], '" + padding + "', [" + d + ", 1], 1)", u2, w2, b), "unbatched conv2d " + ctx);
                    Tensor x3 = Inputs.randn(rng, DType.FLOAT64, 1, 2, 5, 8, 4), w3 = Inputs.randn(rng, DType.FLOAT64, 3, 2, 2, k, 3);
                    assertClose(F.conv3d(x3, w3, null, new int[] {1, 1, 1}, padding, new int[] {1, d, 1}, 1),
                            Torch.call(m, "torch.conv3d(a, b, None, [1, 1, 1], '" + padding + "', [1, " + d + ", 1], 1)", x3, w3), "conv3d " + ctx);
                }
            }
            Tensor x = Inputs.randn(rng, DType.FLOAT64, 2, 3, 7, 8), w = Inputs.randn(rng, DType.FLOAT64, 4, 3, 4, 2), b = Inputs.randn(rng, DType.FLOAT64, 4);
            assertClose(F.conv2d(x, w, b, new int[] {2, 3}, "valid", new int[] {1, 1}, 1),
                    Torch.call(m, "torch.conv2d(a, b, c, [2, 3], 'valid', [1, 1], 1)", x, w, b), "valid with stride");
        }
    }

    @Test
    void samePaddingGradientsMatchLibtorch() {
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 2, 3, 6, 7), w = Inputs.randn(rng, DType.FLOAT64, 4, 3, 4, 3), b = Inputs.randn(rng, DType.FLOAT64, 4);
        Tensor gy = Inputs.randn(rng, DType.FLOAT64, 2, 4, 6, 7);
        Tensor xl = x.detach().requiresGrad(true), wl = w.detach().requiresGrad(true), bl = b.detach().requiresGrad(true);
        F.conv2d(xl, wl, bl, new int[] {1, 1}, "same", new int[] {1, 2}, 1).mul(gy).sum().backward();
        try (NDManager m = Torch.scope()) {
            var want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\nc = c.detach().requires_grad_(True)\n"
                    + "return torch.autograd.grad([(torch.conv2d(a, b, c, [1, 1], 'same', [1, 2], 1) * d).sum()], [a, b, c])", x, w, b, gy);
            assertClose(xl.grad(), want.get(0), "input gradient");
            assertClose(wl.grad(), want.get(1), "weight gradient");
            assertClose(bl.grad(), want.get(2), "bias gradient");
        }
    }

    @Test
    void paddingModesMatchPyTorchsDefinition() {
        try (NDManager m = Torch.scope()) {
            for (String mode : List.of("zeros", "reflect", "replicate", "circular")) {
                Conv1d c1 = new Conv1d(2, 4, 3, 2, 2, 1, 2, true, mode);
                Tensor x1 = Inputs.randn(rng, DType.FLOAT32, 2, 2, 9);
                String atenMode = mode.equals("zeros") ? "constant" : mode;
                assertClose(c1.forward(x1), Torch.call(m, "torch.conv1d(ops.aten.pad(a, [2, 2], '" + atenMode + "'), b, c, [2], [0], [1], 2)", x1, c1.weight, c1.bias), "Conv1d " + mode);
                Conv2d c2 = new Conv2d(3, 4, new int[] {3, 2}, new int[] {1, 2}, new int[] {1, 2}, new int[] {2, 1}, 1, true, mode);
                Tensor x2 = Inputs.randn(rng, DType.FLOAT32, 2, 3, 7, 6);
                assertClose(c2.forward(x2), Torch.call(m, "torch.conv2d(ops.aten.pad(a, [2, 2, 1, 1], '" + atenMode + "'), b, c, [1, 2], [0, 0], [2, 1], 1)",
                        x2, c2.weight, c2.bias), "Conv2d " + mode);
                Conv2d same = new Conv2d(3, 2, new int[] {4, 3}, new int[] {1, 1}, "same", new int[] {1, 1}, 1, false, mode);
                assertClose(same.forward(x2), Torch.call(m, "torch.conv2d(ops.aten.pad(a, [1, 1, 1, 2], '" + atenMode + "'), b, None, [1, 1], [0, 0], [1, 1], 1)",
                        x2, same.weight), "Conv2d same " + mode);
                Conv3d c3 = new Conv3d(2, 2, new int[] {2, 3, 3}, new int[] {1, 1, 1}, "same", new int[] {1, 1, 2}, 1, true, mode);
                Tensor x3 = Inputs.randn(rng, DType.FLOAT32, 1, 2, 4, 5, 6);
                assertClose(c3.forward(x3), Torch.call(m, "torch.conv3d(ops.aten.pad(a, [2, 2, 1, 1, 0, 1], '" + atenMode + "'), b, c, [1, 1, 1], [0, 0, 0], [1, 1, 2], 1)",
                        x3, c3.weight, c3.bias), "Conv3d same " + mode);
            }
        }
    }

    @Test
    void printedFormsAreTorchs() {
        assertEquals("Conv2d(3, 4, kernel_size=(3, 3), stride=(1, 1), padding=same, bias=False, padding_mode=reflect)",
                new Conv2d(3, 4, new int[] {3, 3}, new int[] {1, 1}, "same", new int[] {1, 1}, 1, false, "reflect").toString());
        assertEquals("Conv1d(2, 4, kernel_size=(3,), stride=(2,), padding=valid)", new Conv1d(2, 4, 3, 2, "valid", 1, 1, true, "zeros").toString());
        assertEquals("Conv3d(2, 2, kernel_size=(1, 1, 1), stride=(1, 1, 1), padding=(1, 1, 1), padding_mode=circular)",
                new Conv3d(2, 2, new int[] {1, 1, 1}, new int[] {1, 1, 1}, new int[] {1, 1, 1}, new int[] {1, 1, 1}, 1, true, "circular").toString());
        assertEquals(2, new Conv1d(2, 4, 5, 1, "same", 1, 1, true, "zeros").padding);
    }

    @Test
    void badArgumentsFailLikePyTorch() {
        assertEquals("Conv2d: padding='same' is not supported for strided convolutions", assertThrows(IllegalArgumentException.class,
                () -> new Conv2d(3, 4, new int[] {3, 3}, new int[] {2, 1}, "same", new int[] {1, 1}, 1, true, "zeros")).getMessage());
        assertEquals("Conv1d: Invalid padding string 'full', should be one of {'valid', 'same'}",
                assertThrows(IllegalArgumentException.class, () -> new Conv1d(3, 4, 3, 1, "full", 1, 1, true, "zeros")).getMessage());
        assertEquals("Conv3d: padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got padding_mode='wrap'",
                assertThrows(IllegalArgumentException.class, () -> new Conv3d(3, 3, new int[] {1, 1, 1}, new int[] {1, 1, 1}, new int[] {0, 0, 0}, new int[] {1, 1, 1}, 1, true, "wrap")).getMessage());
        Tensor x = Tensor.randn(1, 2, 6, 6), w = Tensor.randn(3, 2, 3, 3);
        try (NDManager m = Torch.scope()) {
            refused(m, "strided same", () -> F.conv2d(x, w, null, new int[] {2, 2}, "same", new int[] {1, 1}, 1), "torch.conv2d(a, b, None, [2, 2], 'same', [1, 1], 1)", x, w);
            refused(m, "unknown string", () -> F.conv2d(x, w, null, new int[] {1, 1}, "full", new int[] {1, 1}, 1), "torch.conv2d(a, b, None, [1, 1], 'full', [1, 1], 1)", x, w);
            Tensor x3 = Tensor.randn(1, 2, 4, 6, 6);
            refused(m, "rank mismatch", () -> F.conv2d(x3, w, null, new int[] {1, 1}, "same", new int[] {1, 1}, 1), "torch.conv2d(a, b, None, [1, 1], 'same', [1, 1], 1)", x3, w);
        }
    }

    @Test
    void compiledModuleEqualsEagerForwardAndBackward() {
        Tensor.manualSeed(5);
        Conv2d eager = new Conv2d(3, 4, new int[] {4, 3}, new int[] {1, 1}, "same", new int[] {1, 2}, 1, true, "reflect");
        Conv2d twin = new Conv2d(3, 4, new int[] {4, 3}, new int[] {1, 1}, "same", new int[] {1, 2}, 1, true, "reflect");
        twin.loadStateDict(eager.stateDict());
        Conv1d plain = new Conv1d(4, 2, 4, 1, "same", 1, 1, true, "zeros");
        Tensor x = Tensor.randn(2, 3, 6, 7);
        Fn1<Tensor, Tensor> compiled = Ember.compile(twin);
        Tensor want = eager.forward(x), got = compiled.apply(x);
        assertClose(got, want, "output", TorchAssert.Tolerance.of(1e-5, 1e-5));
        List<Tensor> wantGrads = Autograd.grad(want.square().sum(), eager.weight, eager.bias);
        List<Tensor> gotGrads = Autograd.grad(got.square().sum(), twin.weight, twin.bias);
        for (int i = 0; i < 2; i++) assertClose(gotGrads.get(i), wantGrads.get(i), "gradient " + i, TorchAssert.Tolerance.of(1e-4, 1e-5));
        Tensor seq = Tensor.randn(2, 4, 9);
        assertClose(Ember.compile(plain).apply(seq), plain.forward(seq), "Conv1d same, compiled", TorchAssert.Tolerance.of(1e-5, 1e-5));
        assertEquals(Arrays.toString(new int[] {2, 2, 9}), Arrays.toString(plain.forward(seq).shape()));
    }
}
