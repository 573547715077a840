package dev.ember.nn;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** F.interpolate(antialias=True) against ATen's _upsample_bilinear2d_aa / _upsample_bicubic2d_aa: values and input gradients. */
class AntialiasInterpolateTest {

    @Test
    void matchesAtenShrinkingAndGrowing() {
        record Case(int[] size, double[] scale, boolean align) {}
        List<Case> cases = List.of(new Case(new int[] {3, 4}, null, false), new Case(new int[] {7, 2}, null, false), new Case(new int[] {11, 13}, null, false),
                new Case(new int[] {3, 5}, null, true), new Case(null, new double[] {0.3, 0.45}, false), new Case(null, new double[] {1.7, 0.5}, false));
        for (DType dtype : List.of(DType.FLOAT32, DType.FLOAT64)) {
            for (String mode : List.of("bilinear", "bicubic")) {
                for (Case c : cases) {
                    Tensor x = Tensor.randn(2, 3, 9, 10).to(dtype).requiresGrad(true);
                    Tensor y = F.interpolate(x, c.size, c.scale, mode, c.align ? Boolean.TRUE : null, null, true);
                    int[] out = {y.size(2), y.size(3)};
                    Tensor g = Tensor.randn(y.shape()).to(dtype);
                    Tensor grad = Autograd.grad(List.of(y), List.of(x), List.of(g), false, false, false).get(0);
                    String scales = c.scale == null ? "None, None" : c.scale[0] + ", " + c.scale[1];
                    String op = "ops.aten._upsample_" + mode + "2d_aa(w, [" + out[0] + ", " + out[1] + "], " + (c.align ? "True" : "False") + ", " + scales + ")";
                    String context = mode + " " + dtype + " size=" + java.util.Arrays.toString(out) + " align=" + c.align;
                    try (NDManager m = Torch.scope()) {
                        NDList want = Torch.callListWithGrad(m, "w = a.detach().requires_grad_(True)\ny = " + op + "\nres = [y]\nfor t in torch.autograd.grad([(y * b).sum()], [w]):\n    if t is not None:\n        res.append(t)\nreturn res",
                                x.detach(), g);
                        assertClose(y, want.get(0), context);
                        assertClose(grad, want.get(1), context + " gradient");
                    }
                }
            }
        }
    }

    @Test
    void compiledEqualsEagerAndBadModesAreRefused() {
        Tensor x = Tensor.randn(1, 2, 12, 12);
        Fn1<Tensor, Tensor> shrink = t -> F.interpolate(t, new int[] {5, 5}, null, "bicubic", null, null, true);
        assertClose(Ember.compile(shrink).apply(x), Torch.toNd(shrink.apply(x)), "compiled antialiased bicubic");
        var e = assertThrows(IllegalArgumentException.class, () -> F.interpolate(x, new int[] {5, 5}, null, "nearest", null, null, true));
        assertEquals("Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor as input", e.getMessage());
    }
}
