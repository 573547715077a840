package dev.ember.ops;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.autograd.Autograd;
import dev.ember.autograd.GradCheck;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.BinaryOperator;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The everyday pointwise ops (copysign, signbit, logit, sinc, heaviside, fmax, fmin, gcd, lcm)
 * against libtorch: broadcast shapes, every dtype and type promotion, the special values (±0,
 * ±inf, NaN, extremes) crossed with each other, ATen's refusals message for message, gradients
 * against libtorch's (ties, zeros, NaN and out-of-domain points included) and finite differences,
 * and Ember.compile giving eager's values and gradients in one graph.
 */
class EverydayPointwiseOpsTest {
    private static final List<DType> DTYPES = List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32, DType.BOOL);

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    private static void sameRefusal(Class<? extends Throwable> type, String words, Executable ember, String torchExpr, Object... args) {
        Throwable e = assertThrows(type, ember, words);
        String torch = assertThrows(RuntimeException.class, () -> Torch.call(torchExpr, args), torchExpr).getMessage();
        assertTrue(e.getMessage().contains(words), "Ember: " + e.getMessage());
        assertTrue(torch.contains(words), "libtorch: " + torch);
    }

    /** Every special value of {@code a} against every one of {@code b}: a column [n, 1] and a row [m]. */
    private static Tensor[] crossed(Tensor a, Tensor b) { return new Tensor[] {a.reshape(-1, 1), b}; }

    /** A binary op over broadcast shapes and layouts, every dtype pair, and the special values crossed. */
    private static void binaryMatches(String torchOp, BinaryOperator<Tensor> op, List<DType> dtypes) {
        Random rng = new Random(torchOp.hashCode());
        for (int[][] s : Inputs.BROADCAST_SHAPES) {
            Tensor a = Inputs.randn(rng, DType.FLOAT32, s[0]), b = Inputs.randn(rng, DType.FLOAT32, s[1]);
            for (Inputs.Layout in : Inputs.layouts(a)) {
                assertClose(op.apply(in.tensor(), b), Torch.call("torch." + torchOp + "(a, b)", in.tensor(), b), torchOp + " " + in + " " + Arrays.toString(s[1]));
            }
        }
        for (DType da : dtypes) {
            for (DType db : dtypes) {
                Tensor[] x = crossed(Inputs.specials(da), Inputs.specials(db));
                assertClose(op.apply(x[0], x[1]), Torch.call("torch." + torchOp + "(a, b)", x[0], x[1]), torchOp + " specials " + da + " with " + db);
            }
        }
    }

    @Test
    void copysignAndSignbitMatchLibtorch() {
        binaryMatches("copysign", Tensor::copysign, DTYPES);
        Tensor x = Inputs.specials(DType.FLOAT32), i = Inputs.specials(DType.INT32);
        for (double other : new double[] {2.5, -0.0, 0.0, -3, Double.NEGATIVE_INFINITY}) {
            assertClose(x.copysign(other), Torch.call("torch.copysign(a, b)", x, other), "copysign float32 by " + other);
            assertClose(i.copysign(other), Torch.call("torch.copysign(a, b)", i, other), "copysign int32 by " + other);
        }
        for (DType d : DTYPES) {
            Tensor s = Inputs.specials(d);
            assertClose(s.signbit(), Torch.call("torch.signbit(a)", s), "signbit " + d);
            assertClose(Inputs.nonContiguous(s.reshape(-1, 1).expand(s.numel(), 2)).signbit(),
                    Torch.call("torch.signbit(a)", Inputs.nonContiguous(s.reshape(-1, 1).expand(s.numel(), 2))), "signbit non-contiguous " + d);
        }
        Tensor empty = Tensor.zeros(0, 3);
        assertClose(empty.copysign(Tensor.ones(3)), Torch.call("torch.copysign(a, b)", empty, Tensor.ones(3)), "empty");
        Tensor a = Tensor.randn(2, 3), b = Tensor.randn(4);
        sameRefusal(IllegalArgumentException.class, "must match the size of tensor b", () -> a.copysign(b), "torch.copysign(a, b)", a, b);
    }

    @Test
    void logitAndSincMatchLibtorch() {
        Random rng = new Random(7);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor x = Tensor.cat(List.of(Inputs.uniform(rng, d, -0.25, 1.25, 40), Inputs.specials(d)), 0);
            assertClose(x.logit(), Torch.call("torch.logit(a)", x), "logit " + d);
            for (double eps : new double[] {1e-6, 0.25, 0.0, -1.0}) {
                assertClose(x.logit(eps), Torch.call("torch.logit(a, " + eps + ")", x), "logit eps " + eps + " " + d);
            }
            Tensor y = Tensor.cat(List.of(Inputs.randn(rng, d, 40).mul(3.0), Inputs.specials(d), Tensor.of(new double[] {1, 2, -3, 1e-8, -1e-30}, 5).to(d)), 0);
            assertClose(y.sinc(), Torch.call("torch.sinc(a)", y), "sinc " + d);
        }
        for (DType d : List.of(DType.INT64, DType.INT32, DType.BOOL)) {
            Tensor s = Inputs.specials(d);
            assertClose(s.sinc(), Torch.call("torch.sinc(a)", s), "sinc " + d);
            assertClose(s.logit(), Torch.call("torch.logit(a)", s), "logit " + d);
            assertClose(s.logit(0.1), Torch.call("torch.logit(a, 0.1)", s), "logit eps " + d);
        }
        Tensor grid = Inputs.nonContiguous(Tensor.rand(4, 5));
        assertClose(grid.logit(), Torch.call("torch.logit(a)", grid), "non-contiguous logit");
        assertClose(grid.sinc(), Torch.call("torch.sinc(a)", grid), "non-contiguous sinc");
    }

    @Test
    void heavisideMatchesLibtorch() {
        for (DType d : DTYPES) {
            Tensor[] x = crossed(Inputs.specials(d), Inputs.specials(d));
            assertClose(x[0].heaviside(x[1]), Torch.call("torch.heaviside(a, b)", x[0], x[1]), "heaviside specials " + d);
        }
        Tensor x = Tensor.randn(3, 4), values = Tensor.of(0.5f, -2f, 7f, 0f);
        assertClose(x.heaviside(values), Torch.call("torch.heaviside(a, b)", x, values), "broadcast values");
        Tensor ints = Tensor.ofLongs(1, 2);
        sameRefusal(IllegalArgumentException.class, "heaviside is not yet implemented for tensors with different dtypes",
                () -> x.heaviside(ints), "torch.heaviside(a, b)", x, ints);
    }

    @Test
    void fmaxAndFminMatchLibtorch() {
        List<DType> numeric = List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32);
        binaryMatches("fmax", Tensor::fmax, numeric);
        binaryMatches("fmin", Tensor::fmin, numeric);
        Tensor b = Tensor.of(new boolean[] {true, false, true, false}, 4), c = Tensor.of(new boolean[] {true, true, false, false}, 4);
        assertClose(b.fmax(c), Torch.call("torch.fmax(a, b)", b, c), "fmax bool");
        assertClose(b.fmin(c), Torch.call("torch.fmin(a, b)", b, c), "fmin bool");
        assertClose(b.fmax(Tensor.ofLongs(-1, 3, 0, 1)), Torch.call("torch.fmax(a, b)", b, Tensor.ofLongs(-1, 3, 0, 1)), "bool with int64");
    }

    @Test
    void gcdAndLcmMatchLibtorch() {
        Random rng = new Random(9);
        for (DType da : List.of(DType.INT64, DType.INT32)) {
            for (DType db : List.of(DType.INT64, DType.INT32)) {
                Tensor a = Inputs.randint(rng, da, -40, 41, 6, 1), c = Inputs.randint(rng, db, -40, 41, 7);
                assertClose(a.gcd(c), Torch.call("torch.gcd(a, b)", a, c), "gcd " + da + " " + db);
                assertClose(a.lcm(c), Torch.call("torch.lcm(a, b)", a, c), "lcm " + da + " " + db);
            }
            // no MIN_VALUE: libtorch's lcm divides it by -1 there, which traps (SIGFPE) and kills the process
            Tensor values = Tensor.ofLongs(0, 1, -1, 7, -7, 12, -18, da == DType.INT32 ? Integer.MAX_VALUE : Long.MAX_VALUE).to(da);
            Tensor[] s = crossed(values, values);
            assertClose(s[0].gcd(s[1]), Torch.call("torch.gcd(a, b)", s[0], s[1]), "gcd specials " + da);
            assertClose(s[0].lcm(s[1]), Torch.call("torch.lcm(a, b)", s[0], s[1]), "lcm specials (wrapping as ATen's) " + da);
        }
        Tensor big = Tensor.of(new int[] {65536, 46341, 0, 7}, 4), other = Tensor.of(new int[] {65537, 46343, 0, -21}, 4);
        assertClose(big.lcm(other), Torch.call("torch.lcm(a, b)", big, other), "int32 lcm overflow wraps as ATen's");
        Tensor f = Tensor.of(1f, 2f), i = Tensor.ofLongs(2, 4), bools = Tensor.of(new boolean[] {true, false}, 2);
        sameRefusal(IllegalArgumentException.class, "\"gcd_cpu\" not implemented for 'Float'", () -> f.gcd(i), "torch.gcd(a, b)", f, i);
        sameRefusal(IllegalArgumentException.class, "\"lcm_cpu\" not implemented for 'Bool'", () -> bools.lcm(bools), "torch.lcm(a, b)", bools, bools);
    }

    @Test
    void inPlaceFormsMatchLibtorch() {
        Random rng = new Random(12);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor x = Tensor.cat(List.of(Inputs.randn(rng, d, 12), Inputs.specials(d)), 0), y = Tensor.cat(List.of(Inputs.randn(rng, d, 12), Inputs.specials(d).flip(0)), 0);
            Tensor p = Inputs.uniform(rng, d, -0.2, 1.2, 25);
            assertClose(x.clone().copysign_(y), Torch.call("a.copysign_(b)", x.clone(), y), "copysign_ " + d);
            assertClose(x.clone().copysign_(-0.0), Torch.call("a.copysign_(b)", x.clone(), -0.0), "copysign_ scalar " + d);
            assertClose(p.clone().logit_(), Torch.call("a.logit_()", p.clone()), "logit_ " + d);
            assertClose(p.clone().logit_(0.1), Torch.call("a.logit_(0.1)", p.clone()), "logit_ eps " + d);
            assertClose(x.clone().sinc_(), Torch.call("a.sinc_()", x.clone()), "sinc_ " + d);
            assertClose(x.clone().heaviside_(y), Torch.call("a.heaviside_(b)", x.clone(), y), "heaviside_ " + d);
            Tensor rows = Inputs.nonContiguous(Inputs.randn(rng, d, 3, 4));
            Tensor mine = rows.clone().t(), theirs = rows.clone().t();
            mine.sinc_();
            assertClose(mine, Torch.call("a.sinc_()", theirs), "sinc_ into a transposed tensor " + d);
        }
        Tensor ints = Tensor.ofLongs(1, -2, 3), i2 = Tensor.ofLongs(0, 1, 2);
        sameRefusal(IllegalArgumentException.class, "result type Float can't be cast to the desired output type Long", () -> ints.clone().copysign_(i2),
                "a.copysign_(b)", ints.clone(), i2);
        sameRefusal(IllegalArgumentException.class, "result type Float can't be cast to the desired output type Long", () -> ints.clone().sinc_(), "a.sinc_()", ints.clone());
        // autograd records the functional op's derivative for the in-place write
        Tensor base = Tensor.rand(5).mul(0.8).add(0.1).to(DType.FLOAT64);
        Tensor leaf = base.clone().requiresGrad(true), other = base.clone().requiresGrad(true);
        leaf.mul(1.0).logit_().sum().backward();
        other.logit().sum().backward();
        assertClose(leaf.grad(), other.grad(), "logit_'s gradient is logit's");
    }

    /** Ember's gradients of {@code op(a, b)} for a seeded upstream gradient, against libtorch's of {@code torchExpr}. */
    private static void gradientsMatch(String torchExpr, BinaryOperator<Tensor> op, Tensor a, Tensor b, String what) {
        Tensor al = a.detach().requiresGrad(true), bl = b.detach().requiresGrad(true);
        Tensor y = op.apply(al, bl);
        Tensor go = Inputs.randn(new Random(1), y.dtype(), y.shape());
        List<Tensor> got = Autograd.grad(List.of(y), List.of(al, bl), List.of(go), false, false, false);
        try (NDManager m = Torch.scope()) {
            NDList want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\ny = " + torchExpr
                    + "\ngo: List[Optional[Tensor]] = [c]\nreturn torch.autograd.grad([y], [a, b], go)", a, b, go);
            assertClose(got.get(0), want.get(0), what + " d/dself");
            assertClose(got.get(1), want.get(1), what + " d/dother");
        }
    }

    @Test
    void gradientsMatchLibtorch() {
        Random rng = new Random(11);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor a = Tensor.cat(List.of(Inputs.randn(rng, d, 8), Tensor.of(0, -0.0, 1, 2, Double.NaN, 3, -1, 0.5).to(d)), 0).reshape(4, 4);
            Tensor b = Tensor.cat(List.of(Inputs.randn(rng, d, 8), Tensor.of(1, 2, 1, 2, 0, Double.NaN, -1, 0.5).to(d)), 0).reshape(4, 4);
            gradientsMatch("torch.fmax(a, b)", Tensor::fmax, a, b, "fmax (ties, NaN) " + d);
            gradientsMatch("torch.fmin(a, b)", Tensor::fmin, a, b, "fmin (ties, NaN) " + d);
            gradientsMatch("torch.fmax(a, b)", Tensor::fmax, a, b.narrow(0, 0, 1), "fmax broadcast " + d);
            gradientsMatch("torch.copysign(a, b)", Tensor::copysign, a, b, "copysign (zeros) " + d);
            Tensor al = a.detach().requiresGrad(true), bl = b.detach().requiresGrad(true);
            Tensor step = al.heaviside(bl).sum();
            String words = "derivative for aten::heaviside is not implemented";
            Throwable ember = assertThrows(UnsupportedOperationException.class, step::backward, "heaviside is not differentiable, as in ATen");
            String torch = assertThrows(RuntimeException.class, () -> Torch.callListWithGrad(Torch.manager(),
                    "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([torch.heaviside(a, b).sum()], [a])", a, b)).getMessage();
            assertTrue(ember.getMessage().contains(words) && torch.contains(words), ember.getMessage() + "\n" + torch);
            Tensor p = Tensor.cat(List.of(Inputs.uniform(rng, d, -0.5, 1.5, 12), Tensor.of(0, 1, 0.1, 0.9).to(d)), 0);
            gradientsMatch("torch.logit(a) + b", (x, y) -> x.logit().add(y), p, p, "logit (outside [0, 1]: NaN) " + d);
            gradientsMatch("torch.logit(a, 0.1) + b", (x, y) -> x.logit(0.1).add(y), p, p, "logit eps (outside: 0) " + d);
            Tensor z = Tensor.cat(List.of(Inputs.randn(rng, d, 12), Tensor.of(0, -0.0, 1, -2).to(d)), 0);
            gradientsMatch("torch.sinc(a) * b", (x, y) -> x.sinc().mul(y), z, z, "sinc (0 included) " + d);
        }
        Tensor x = Tensor.rand(3, 4).mul(0.8).add(0.1).to(DType.FLOAT64).requiresGrad(true);
        Tensor y = Tensor.randn(3, 4).to(DType.FLOAT64).requiresGrad(true);
        GradCheck.check(in -> in.get(0).logit(), x);
        GradCheck.check(in -> in.get(0).logit(0.2), x);
        GradCheck.check(in -> in.get(0).sinc(), y);
        GradCheck.check(in -> in.get(0).copysign(in.get(1)), y, x);
        GradCheck.check(in -> in.get(0).fmax(in.get(1)).add(in.get(0).fmin(in.get(1))), x, y);
    }

    static Tensor everyday(Tensor x, Tensor y) {
        Tensor p = x.sigmoid();
        return Tensor.cat(List.of(x.copysign(y), x.copysign(-2.0), p.logit(), p.logit(0.3), x.sinc(), x.detach().heaviside(y.detach()), x.fmax(y), x.fmin(y.reshape(-1).narrow(0, 0, 4)),
                x.signbit().to(DType.FLOAT32), x.mul(0.5).sinc_(), p.mul(1.0).logit_(0.2),
                x.mul(10.0).to(DType.INT64).gcd(y.mul(10.0).to(DType.INT64)).to(DType.FLOAT32), x.mul(10.0).to(DType.INT64).lcm(Tensor.ofLongs(6)).to(DType.FLOAT32)), 0);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        Tensor.manualSeed(13);
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(3, 4);
        x = Tensor.cat(List.of(x, Tensor.of(new float[] {0, -0f, Float.NaN, 1}, 1, 4)), 0);
        y = Tensor.cat(List.of(y, Tensor.of(new float[] {-0f, 2, 1, Float.NaN}, 1, 4)), 0);
        CompiledOpsCheck.oneGraphWithEagersValuesAndGradients(EverydayPointwiseOpsTest::everyday, x, y, backend, "x", "y");
    }
}
