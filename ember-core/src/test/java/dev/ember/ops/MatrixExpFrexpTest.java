package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Linalg;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;

/** linalg_matrix_exp and frexp against libtorch: values over dtypes, layouts and scales, gradients, refusals, compiled. */
class MatrixExpFrexpTest {
    private final Random rng = new Random(29);

    @AfterEach
    void reset() { Ember.reset(); }

    @Test
    void matrixExpMatchesLibtorch() {
        try (NDManager m = Torch.scope()) {
            for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
                for (int[] shape : List.of(new int[] {3, 3}, new int[] {2, 4, 4}, new int[] {1, 1}, new int[] {0, 2, 2}, new int[] {0, 0}, new int[] {2, 1, 5, 5})) {
                    for (double scale : new double[] {0.01, 1, 8}) {   // below and past the scaling threshold
                        Tensor a = Inputs.randn(rng, d, shape).mul(scale);
                        for (Inputs.Layout in : Inputs.layouts(a)) {
                            assertClose(in.tensor().matrixExp(), Torch.call(m, "torch.linalg_matrix_exp(a.double()).to(a.dtype)", in.tensor()),
                                    "matrix_exp " + d + " scale " + scale + " " + in, TorchAssert.Tolerance.of(d == DType.FLOAT32 ? 1e-5 : 1e-10, d == DType.FLOAT32 ? 1e-5 : 1e-10));
                            assertClose(Linalg.matrixExp(in.tensor()), Torch.call(m, "torch.matrix_exp(a.double()).to(a.dtype)", in.tensor()), "torch.matrix_exp " + d + " " + in,
                                    TorchAssert.Tolerance.of(d == DType.FLOAT32 ? 1e-5 : 1e-10, d == DType.FLOAT32 ? 1e-5 : 1e-10));
                        }
                    }
                }
            }
            Tensor nilpotent = Tensor.of(new double[] {0, 1, 2, 0, 0, 3, 0, 0, 0}, 3, 3);
            assertClose(nilpotent.matrixExp(), Torch.call(m, "torch.linalg_matrix_exp(a)", nilpotent), "nilpotent: I + A + A²/2 exactly");
            Tensor flat = Tensor.randn(3), wide = Tensor.randn(2, 3), ints = Tensor.ofLongs(1, 2, 3, 4).reshape(2, 2);
            ScatterConformanceTest.refused(m, "1-d", () -> flat.matrixExp(), "torch.linalg_matrix_exp(a)", flat);
            ScatterConformanceTest.refused(m, "not square", () -> wide.matrixExp(), "torch.linalg_matrix_exp(a)", wide);
            ScatterConformanceTest.refused(m, "integers", () -> ints.matrixExp(), "torch.linalg_matrix_exp(a)", ints);
        }
    }

    @Test
    void matrixExpGradientMatchesLibtorch() {
        for (int[] shape : List.of(new int[] {3, 3}, new int[] {2, 4, 4})) {
            for (double scale : new double[] {0.3, 4}) {
                Tensor a = Inputs.randn(rng, DType.FLOAT64, shape).mul(scale), w = Inputs.randn(rng, DType.FLOAT64, shape);
                Tensor as = a.detach().requiresGrad(true);
                Tensor got = Autograd.grad(List.of(as.matrixExp().mul(w).sum()), List.of(as), null, false, false, false).getFirst();
                try (NDManager m = Torch.scope()) {
                    var want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\ny = (torch.linalg_matrix_exp(a) * b).sum()\nreturn torch.autograd.grad([y], [a])", a, w);
                    assertClose(got, want.get(0), "matrix_exp gradient " + java.util.Arrays.toString(shape) + " scale " + scale, TorchAssert.Tolerance.of(1e-8, 1e-8));
                }
            }
        }
    }

    @Test
    void frexpMatchesLibtorch() {
        try (NDManager m = Torch.scope()) {
            for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
                Tensor subnormals = d == DType.FLOAT32 ? Tensor.of(new float[] {Float.MIN_VALUE * 3, -Float.MIN_NORMAL / 4}, 2) : Tensor.of(new double[] {Double.MIN_VALUE * 5, -Double.MIN_NORMAL / 8}, 2);
                for (Tensor x : List.of(Inputs.randn(rng, d, 3, 4).mul(100.0), Inputs.specials(d), subnormals, Inputs.randn(rng, d), Inputs.randn(rng, d, 0, 2))) {
                    for (Inputs.Layout in : Inputs.layouts(x)) {
                        List<Tensor> got = in.tensor().frexp();
                        var want = Torch.callList(m, "torch.frexp(a)", in.tensor());
                        assertClose(got.get(0), want.get(0), "mantissa " + d + " " + in, TorchAssert.Tolerance.of(0, 0));
                        // libtorch's exponent of ±inf and NaN is whatever its C library leaves: compare the finite ones
                        Tensor finite = in.tensor().isfinite();
                        assertClose(got.get(1).where(finite, Tensor.scalar(0L).to(DType.INT32)),
                                dev.ember.testing.Torch.fromNd(want.get(1)).where(finite, Tensor.scalar(0L).to(DType.INT32)), "exponent " + d + " " + in);
                    }
                }
            }
            Tensor ints = Tensor.ofLongs(4, 8);
            ScatterConformanceTest.refused(m, "integers", () -> ints.frexp().getFirst(), "torch.frexp(a)", ints);
            Tensor x = Inputs.randn(rng, DType.FLOAT64, 5).mul(10.0), w = Inputs.randn(rng, DType.FLOAT64, 5);
            Tensor xs = x.detach().requiresGrad(true);
            Tensor got = Autograd.grad(List.of(xs.frexp().getFirst().mul(w).sum()), List.of(xs), null, false, false, false).getFirst();
            var want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\ny = (torch.frexp(a)[0] * b).sum()\nreturn torch.autograd.grad([y], [a])", x, w);
            assertClose(got, want.get(0), "frexp's mantissa gradient");
        }
    }

    static Tensor useBoth(Tensor a) {
        List<Tensor> parts = a.mul(3.0).frexp();
        return a.matrixExp().add(parts.get(0)).mul(parts.get(1).to(DType.FLOAT32));
    }

    @Test
    void compiledGivesEagersValuesAndGradients() {
        Tensor a = Inputs.randn(rng, DType.FLOAT32, 4, 4);
        var compiled = Ember.compile((Fn1<Tensor, Tensor>) MatrixExpFrexpTest::useBoth, Options.backend("inductor").fullgraph(true));
        assertClose(compiled.apply(a), useBoth(a), "compiled", TorchAssert.Tolerance.of(0, 0));
        var training = Ember.compile((Fn1<Tensor, Tensor>) MatrixExpFrexpTest::useBoth, Options.backend("aot_eager").fullgraph(true));
        Tensor ae = a.detach().requiresGrad(true), ac = a.detach().requiresGrad(true);
        useBoth(ae).sum().backward();
        training.apply(ac).sum().backward();
        assertClose(ac.grad(), ae.grad(), "a's gradient, compiled");
    }
}
