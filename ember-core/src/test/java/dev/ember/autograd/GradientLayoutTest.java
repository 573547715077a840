package dev.ember.autograd;

import dev.ember.Ember;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.nn.F;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A product's gradient keeps the layout of the matrix it is for, as ATen's
 * {@code mm_mat1_backward}/{@code mm_mat2_backward} make it: linear's weight enters its product
 * transposed, so a gradient computed plainly as {@code xᵀ·g} reached the weight as a transposed view,
 * and accumulating it into {@code .grad} was an element-by-element transposing copy of the whole
 * weight on every step (39% of a compiled MLP training step). PyTorch gives
 * {@code torch.autograd.grad(F.linear(x, w, b).sum(), w)[0].is_contiguous() == True}.
 */
class GradientLayoutTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor linearLoss(Tensor x, Tensor w, Tensor b) { return F.linear(x, w, b).tanh().sum(); }

    /** The same gradients in float64, computed by the plain formulas: dW = gᵀ·x, dx = g·W. */
    private static void assertLinearGradients(Tensor x, Tensor w, Tensor b, List<Tensor> grads) {
        Tensor x64 = x.to(DType.FLOAT64), w64 = w.to(DType.FLOAT64);
        Tensor y = x64.matmul(w64.t()).add(b.to(DType.FLOAT64));
        Tensor g = Tensor.onesLike(y).sub(y.tanh().pow(2.0));   // d tanh(y).sum() / dy
        assertClose(g.matmul(w64), grads.get(0));
        assertClose(g.t().matmul(x64), grads.get(1));
    }

    private static void assertClose(Tensor want, Tensor got) {
        assertArrayEquals(want.shape(), got.shape());
        double[] a = want.toDoubleArray(), b = got.toDoubleArray();
        for (int i = 0; i < a.length; i++) assertTrue(Math.abs(a[i] - b[i]) <= 1e-4 * (1 + Math.abs(a[i])), "element " + i + ": " + b[i] + ", float64 " + a[i]);
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void aLinearWeightsGradientIsContiguous(String backend) {
        Generator gen = new Generator(7);
        Tensor x = Tensor.randn(gen, 6, 5).requiresGrad(true), w = Tensor.randn(gen, 4, 5).requiresGrad(true), b = Tensor.randn(gen, 4).requiresGrad(true);
        Fn3<Tensor, Tensor, Tensor, Tensor> loss = backend.equals("eager") ? GradientLayoutTest::linearLoss
                : Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) GradientLayoutTest::linearLoss, Options.backend(backend));
        List<Tensor> grads = Autograd.grad(loss.apply(x, w, b), x, w);
        assertTrue(grads.get(1).isContiguous(), "the weight's gradient: strides " + java.util.Arrays.toString(grads.get(1).strides()));
        assertTrue(grads.get(0).isContiguous(), "the input's gradient: strides " + java.util.Arrays.toString(grads.get(0).strides()));
        assertLinearGradients(x, w, b, grads);
    }

    @ParameterizedTest
    @ValueSource(strings = {"eager", "inductor"})
    void aTransposedLeftMatrixGetsItsGradientInItsOwnLayout(String backend) {
        Generator gen = new Generator(8);
        Tensor base = Tensor.randn(gen, 5, 6).requiresGrad(true), m = Tensor.randn(gen, 5, 3);
        Fn3<Tensor, Tensor, Tensor, Tensor> f = (a, mat, unused) -> a.t().mm(mat).sin().sum();
        Fn3<Tensor, Tensor, Tensor, Tensor> fn = backend.equals("eager") ? f : Ember.compile(f, Options.backend(backend));
        Tensor grad = Autograd.grad(fn.apply(base, m, m), base).getFirst();
        assertTrue(grad.isContiguous(), "the gradient of the matrix transposed: strides " + java.util.Arrays.toString(grad.strides()));
        Tensor b64 = base.to(DType.FLOAT64), m64 = m.to(DType.FLOAT64);
        Tensor g = b64.t().mm(m64).cos();                 // d sin(p).sum() / dp, p = baseᵀ·m
        assertClose(g.mm(m64.t()).t(), grad);              // d/d(baseᵀ) = g·mᵀ, transposed back to base
    }
}
