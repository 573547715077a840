package dev.ember.ops;

import dev.ember.autograd.GradCheck;
import dev.ember.tensor.DType;
import dev.ember.tensor.Linalg;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * torch.linalg's multi_dot, vecdot, tensorinv and tensorsolve against libtorch (float32 and
 * float64, vectors at the ends of the chain, broadcasting, dims), ATen's refusals with libtorch's
 * words, gradients against finite differences, and Ember.compile giving eager's values and
 * gradients in one graph.
 */
class MultiDotVecdotTensorSolveTest {
    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    private static void sameRefusal(String words, Executable ember, String torchExpr, Object... args) {
        Throwable torch = assertThrows(RuntimeException.class, () -> Torch.call(torchExpr, args), torchExpr);
        assertTrue(Torch.refusalText(torch).contains(words), "libtorch: " + Torch.refusalText(torch));
        Throwable e = assertThrows(IllegalArgumentException.class, ember, words);
        assertTrue(e.getMessage().contains(words), "Ember: " + e.getMessage());
    }

    /** A float64 leaf {@code n x n} (or batched), n times the identity plus noise: far from singular. */
    private static Tensor wellConditioned(Random rng, DType dtype, int n) {
        return Inputs.randn(rng, DType.FLOAT64, n, n).mul(0.3).add(Tensor.eye(n).to(DType.FLOAT64).mul((double) n)).to(dtype);
    }

    @Test
    void multiDotMatchesLibtorch() {
        Random rng = new Random(1);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor a = Inputs.randn(rng, d, 3, 4), b = Inputs.randn(rng, d, 4, 5), c = Inputs.randn(rng, d, 5, 2), u = Inputs.randn(rng, d, 3), w = Inputs.randn(rng, d, 2);
            assertClose(Linalg.multiDot(a, b), Torch.call("torch.linalg_multi_dot([a, b])", a, b), "two " + d);
            assertClose(Linalg.multiDot(a, b, c), Torch.call("torch.linalg_multi_dot([a, b, c])", a, b, c), "three " + d);
            assertClose(Linalg.multiDot(u, a, b, c), Torch.call("torch.linalg_multi_dot([a, b, c, d])", u, a, b, c), "a row vector first " + d);
            assertClose(Linalg.multiDot(a, b, c, w), Torch.call("torch.linalg_multi_dot([a, b, c, d])", a, b, c, w), "a column vector last " + d);
            assertClose(Linalg.multiDot(u, a, b, c, w), Torch.call("torch.linalg_multi_dot([a, b, c, d, e])", u, a, b, c, w), "vectors at both ends: 0-d " + d);
            Tensor empty = Inputs.randn(rng, d, 4, 0), e2 = Inputs.randn(rng, d, 0, 3);
            assertClose(Linalg.multiDot(empty, e2), Torch.call("torch.linalg_multi_dot([a, b])", empty, e2), "an empty inner dim gives zeros " + d);
            Tensor nc = Inputs.nonContiguous(Inputs.randn(rng, d, 4, 3));
            assertClose(Linalg.multiDot(a, nc, c.t().narrow(0, 0, 2).t().narrow(0, 0, 3)), Torch.call("torch.linalg_multi_dot([a, b, c])", a, nc, c.t().narrow(0, 0, 2).t().narrow(0, 0, 3)),
                    "strided " + d);
        }
        Tensor a = Tensor.randn(2, 3), b = Tensor.randn(4, 5), v = Tensor.randn(3), cube = Tensor.randn(2, 2, 2);
        sameRefusal("multi_dot(): expected at least 2 tensors but got 1", () -> Linalg.multiDot(a), "torch.linalg_multi_dot([a])", a);
        sameRefusal("multi_dot(): tensors 0 and 1 with shapes [2, 3] and [4, 5] cannot be multiplied", () -> Linalg.multiDot(a, b), "torch.linalg_multi_dot([a, b])", a, b);
        sameRefusal("multi_dot(): tensor 1 must be 2D but got 1D", () -> Linalg.multiDot(a, v, a), "torch.linalg_multi_dot([a, b, c])", a, v, a);
        sameRefusal("multi_dot(): the first tensor must be 1D or 2D but got 3D", () -> Linalg.multiDot(cube, a), "torch.linalg_multi_dot([a, b])", cube, a);
        Tensor f64 = Tensor.randn(3, 2).to(DType.FLOAT64);
        sameRefusal("multi_dot(): all tensors must have be the same dtype but tensor 0 is float and tensor 1 double",
                () -> Linalg.multiDot(a, f64), "torch.linalg_multi_dot([a, b])", a, f64);
    }

    @Test
    void vecdotMatchesLibtorch() {
        Random rng = new Random(2);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            for (int[][] s : Inputs.BROADCAST_SHAPES) {
                if (s[0].length == 0 && s[1].length == 0) continue;   // a 0-d pair has no last dim
                Tensor x = Inputs.randn(rng, d, s[0]), y = Inputs.randn(rng, d, s[1]);
                assertClose(Linalg.vecdot(x, y), Torch.call("torch.linalg_vecdot(a, b)", x, y), "vecdot " + d + " " + java.util.Arrays.toString(s[0]));
            }
            Tensor x = Inputs.randn(rng, d, 3, 4, 5), y = Inputs.randn(rng, d, 4, 1);
            assertClose(Linalg.vecdot(x, y, 1), Torch.call("torch.linalg_vecdot(a, b, dim=1)", x, y), "vecdot dim 1 " + d);
        }
        Tensor ints = Tensor.ofLongs(1, 2), f = Tensor.randn(2), g = Tensor.randn(2).to(DType.FLOAT64);
        sameRefusal("linalg.vecdot: Expected a floating point or complex tensor as input. Got Long", () -> Linalg.vecdot(ints, ints), "torch.linalg_vecdot(a, b)", ints, ints);
        sameRefusal("linalg.vecdot: Expected x and y to have the same dtype, but found x of type Float and y of type Double instead",
                () -> Linalg.vecdot(f, g), "torch.linalg_vecdot(a, b)", f, g);
    }

    @Test
    void tensorinvAndTensorsolveMatchLibtorch() {
        Random rng = new Random(3);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor m = wellConditioned(rng, d, 6);
            Tensor a = m.reshape(2, 3, 6), b = m.reshape(6, 2, 3), c = m.reshape(2, 3, 3, 2);
            assertClose(Linalg.tensorinv(a, 2), Torch.call("torch.linalg_tensorinv(a, ind=2)", a), "tensorinv [2, 3, 6] " + d);
            assertClose(Linalg.tensorinv(b, 1), Torch.call("torch.linalg_tensorinv(a, ind=1)", b), "tensorinv [6, 2, 3] ind 1 " + d);
            assertClose(Linalg.tensorinv(c), Torch.call("torch.linalg_tensorinv(a)", c), "tensorinv [2, 3, 3, 2] " + d);
            Tensor rhs = Inputs.randn(rng, d, 2, 3);
            assertClose(Linalg.tensorsolve(a, rhs), Torch.call("torch.linalg_tensorsolve(a, b)", a, rhs), "tensorsolve " + d);
            Tensor e = m.reshape(2, 3, 2, 3);
            assertClose(Linalg.tensorsolve(e, rhs, new int[] {1, 2}), Torch.call("torch.linalg_tensorsolve(a, b, dims=[1, 2])", e, rhs), "tensorsolve dims " + d);
            Tensor flatRhs = Inputs.randn(rng, d, 6);
            assertClose(Linalg.tensorsolve(b, flatRhs), Torch.call("torch.linalg_tensorsolve(a, b)", b, flatRhs), "tensorsolve [6, 2, 3] by [6] " + d);
        }
        Tensor bad = Tensor.randn(2, 3, 4);
        sameRefusal("Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got 4 != 6",
                () -> Linalg.tensorinv(bad, 2), "torch.linalg_tensorinv(a, ind=2)", bad);
        sameRefusal("Expected a strictly positive integer for 'ind', but got 0", () -> Linalg.tensorinv(bad, 0), "torch.linalg_tensorinv(a, ind=0)", bad);
        Tensor rhs = Tensor.randn(2, 3);
        sameRefusal("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got 4 != 6",
                () -> Linalg.tensorsolve(bad, rhs), "torch.linalg_tensorsolve(a, b)", bad, rhs);
    }

    @Test
    void gradientsMatchFiniteDifferences() {
        Random rng = new Random(4);
        Tensor a = Inputs.randn(rng, DType.FLOAT64, 3, 4).requiresGrad(true), b = Inputs.randn(rng, DType.FLOAT64, 4, 2).requiresGrad(true);
        Tensor c = Inputs.randn(rng, DType.FLOAT64, 2, 5).requiresGrad(true), u = Inputs.randn(rng, DType.FLOAT64, 3).requiresGrad(true);
        GradCheck.check(in -> Linalg.multiDot(in.get(0), in.get(1), in.get(2)), a, b, c);
        GradCheck.check(in -> Linalg.multiDot(in.get(0), in.get(1), in.get(2)), u, a, b);
        GradCheck.check(in -> Linalg.vecdot(in.get(0), in.get(1)), a, Inputs.randn(rng, DType.FLOAT64, 4).requiresGrad(true));
        Tensor m = wellConditioned(rng, DType.FLOAT64, 6).reshape(2, 3, 6).detach().requiresGrad(true);
        GradCheck.check(in -> Linalg.tensorinv(in.get(0), 2), m);
        GradCheck.check(in -> Linalg.tensorsolve(in.get(0), in.get(1)), m, Inputs.randn(rng, DType.FLOAT64, 2, 3).requiresGrad(true));
    }

    static Tensor chain(Tensor x, Tensor v) {
        Tensor square = x.matmul(x.t()).add(Tensor.eye(3).mul(5.0));
        Tensor p = Linalg.multiDot(v.narrow(0, 0, 3), square, x, v);
        Tensor q = Linalg.vecdot(x, v);
        Tensor r = Linalg.tensorinv(square.reshape(3, 3), 1).sum();
        Tensor s = Linalg.tensorsolve(square, v.narrow(0, 0, 3));
        return Tensor.cat(List.of(p.reshape(-1), q, r.reshape(-1), s), 0);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        Tensor.manualSeed(5);
        Tensor x = Tensor.randn(3, 4), v = Tensor.randn(4);
        CompiledOpsCheck.oneGraphWithEagersValuesAndGradients(MultiDotVecdotTensorSolveTest::chain, x, v, backend, "x", "v");
    }
}
