package dev.ember.nn;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The activations of {@link F} against libtorch: values in float32 and float64 on random inputs,
 * the special values (±0, ±1, ±inf, NaN, subnormals, ±max) and each activation's kinks and
 * thresholds; gradients in float64 through Ember's autograd against libtorch's, at the kinks too
 * (where a formula differentiated naively would pick the other side or give NaN); and bad input.
 */
class ActivationsTest {
    private static final Random RNG = new Random(31);

    /** One activation: its name, Ember's function, libtorch's expression over {@code a}. */
    record Activation(String name, UnaryOperator<Tensor> ember, String torch) {}

    static final List<Activation> ACTIVATIONS = List.of(
            new Activation("leaky_relu", x -> F.leakyRelu(x), "ops.aten.leaky_relu(a)"),
            new Activation("leaky_relu 0.2", x -> F.leakyRelu(x, 0.2), "ops.aten.leaky_relu(a, 0.2)"),
            new Activation("elu", x -> F.elu(x), "ops.aten.elu(a)"),
            new Activation("elu 1.5", x -> F.elu(x, 1.5), "ops.aten.elu(a, 1.5)"),
            new Activation("selu", F::selu, "ops.aten.selu(a)"),
            new Activation("celu", x -> F.celu(x), "ops.aten.celu(a)"),
            new Activation("celu 0.7", x -> F.celu(x, 0.7), "ops.aten.celu(a, 0.7)"),
            new Activation("softplus", x -> F.softplus(x), "ops.aten.softplus(a)"),
            new Activation("softplus beta 2 threshold 5", x -> F.softplus(x, 2.0, 5.0), "ops.aten.softplus(a, 2.0, 5.0)"),
            new Activation("hardtanh", x -> F.hardtanh(x), "ops.aten.hardtanh(a)"),
            new Activation("hardtanh -0.5 2", x -> F.hardtanh(x, -0.5, 2.0), "ops.aten.hardtanh(a, -0.5, 2.0)"),
            new Activation("relu6", F::relu6, "ops.aten.relu6(a)"),
            new Activation("hardsigmoid", F::hardsigmoid, "ops.aten.hardsigmoid(a)"),
            new Activation("hardswish", F::hardswish, "ops.aten.hardswish(a)"),
            new Activation("mish", F::mish, "ops.aten.mish(a)"),
            new Activation("log_sigmoid", F::logSigmoid, "ops.aten.log_sigmoid(a)"),
            new Activation("softsign", F::softsign, "a / (a.abs() + 1)"),
            new Activation("tanhshrink", F::tanhshrink, "a - a.tanh()"));

    /** Each activation's kinks and thresholds (and either side of them), where a formula's branches meet. */
    static final double[] KINKS = {0, -3, 3, 6, -1, 1, -0.5, 2, 2.5, 5, 20, 21, 19.5, 100, -100, 1e-4, -1e-4, 1e-7, -1e-7, 0.3, -0.3};

    static Tensor kinks(DType dtype) { return Tensor.of(KINKS, KINKS.length).to(dtype); }

    @TestFactory
    List<DynamicTest> valuesMatchLibtorch() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Activation act : ACTIVATIONS) {
            for (DType dtype : List.of(DType.FLOAT32, DType.FLOAT64)) {
                tests.add(DynamicTest.dynamicTest(act.name() + " " + dtype, () -> {
                    Tensor random = Inputs.randn(RNG, dtype, 4, 6).mul(4.0);
                    for (Tensor x : List.of(random, Inputs.specials(dtype), kinks(dtype), random.t())) {
                        assertClose(act.ember().apply(x), Torch.call(act.torch(), x), act.name() + " of " + x);
                    }
                }));
            }
        }
        return tests;
    }

    @TestFactory
    List<DynamicTest> gradientsMatchLibtorch() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Activation act : ACTIVATIONS) {
            tests.add(DynamicTest.dynamicTest(act.name(), () -> {
                checkGradient(act.name(), act.ember(), act.torch(), Inputs.randn(RNG, DType.FLOAT64, 3, 5).mul(4.0));
                checkGradient(act.name() + " at its kinks", act.ember(), act.torch(), kinks(DType.FLOAT64));
            }));
        }
        return tests;
    }

    /** Where exp(x) overflows, the branch softplus, mish and elu discard must not turn the gradient into NaN. */
    @Test
    void gradientsStayFiniteWhereTheDiscardedBranchOverflows() {
        Tensor big = Tensor.of(new float[] {100f, 1000f, -1000f, 3e38f}, 4);
        for (Activation act : ACTIVATIONS) {
            checkGradient(act.name() + " (float32, large)", act.ember(), act.torch(), big);
        }
    }

    @Test
    void gluHalvesTheDimAndMatchesLibtorch() {
        for (DType dtype : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor x = Inputs.randn(RNG, dtype, 3, 4, 6);
            assertClose(F.glu(x), Torch.call("ops.aten.glu(a)", x), "glu last dim " + dtype);
            assertClose(F.glu(x, 1), Torch.call("ops.aten.glu(a, 1)", x), "glu dim 1 " + dtype);
            assertClose(F.glu(x, -2), Torch.call("ops.aten.glu(a, -2)", x), "glu dim -2 " + dtype);
        }
        Tensor x = Inputs.randn(RNG, DType.FLOAT64, 4, 6);
        checkGradient("glu", t -> F.glu(t, 1), "ops.aten.glu(a, 1)", x);
        assertEquals(List.of(2, 6), java.util.Arrays.stream(F.glu(x, 0).shape()).boxed().toList());
    }

    @Test
    void softminIsTheSoftmaxOfTheNegation() {
        Tensor x = Inputs.randn(RNG, DType.FLOAT32, 3, 5);
        assertClose(F.softmin(x, 1), Torch.call("torch.softmax(-a, 1)", x), "softmin");
        checkGradient("softmin", t -> F.softmin(t, 0), "torch.softmax(-a, 0)", Inputs.randn(RNG, DType.FLOAT64, 3, 5));
    }

    @Test
    void badInputIsRefusedWithTheFunctionsName() {
        Tensor ints = Tensor.ofLongs(1, 2, 3);
        for (UnaryOperator<Tensor> f : List.<UnaryOperator<Tensor>>of(F::leakyRelu, F::elu, F::selu, F::softplus, F::hardsigmoid, F::hardswish, F::mish, F::logSigmoid)) {
            var e = assertThrows(IllegalArgumentException.class, () -> f.apply(ints));
            assertTrue(e.getMessage().contains("not implemented for 'Long'"), e.getMessage());
        }
        var odd = assertThrows(IllegalArgumentException.class, () -> F.glu(Tensor.ones(2, 5)));
        assertEquals("glu: Halving dimension must be even, but dimension 1 is size 5", odd.getMessage());
        var scalar = assertThrows(IllegalArgumentException.class, () -> F.glu(Tensor.scalar(1.0)));
        assertTrue(scalar.getMessage().startsWith("glu: glu does not support scalars"), scalar.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> F.glu(Tensor.ones(2, 4), 2));
        var celu = assertThrows(IllegalArgumentException.class, () -> F.celu(Tensor.ones(2), 0.0));
        assertEquals("celu: ZeroDivisionError: alpha cannot be 0 for CELU", celu.getMessage());
        var bool = assertThrows(IllegalArgumentException.class, () -> F.hardtanh(Tensor.of(new boolean[] {true}, 1)));
        assertEquals("hardtanh: Bool inputs not supported for hardtanh", bool.getMessage());
    }

    @Test
    void hardtanhKeepsAnIntegerInputsDtypeAndBoundsGivenTheWrongWayRoundGiveTheUpperOne() {
        Tensor ints = Tensor.ofLongs(-7, 0, 3, 9);
        assertClose(F.relu6(ints), Torch.call("ops.aten.relu6(a)", ints), "relu6 of int64");
        Tensor x = Inputs.randn(RNG, DType.FLOAT32, 8);
        assertClose(F.hardtanh(x, 1.0, -1.0), Torch.call("ops.aten.hardtanh(a, 1.0, -1.0)", x), "hardtanh min > max");
    }

    /**
     * The gradient of {@code ember(x)} with a random output gradient, through Ember's autograd,
     * against libtorch's for {@code torch} (float64 to tight tolerance).
     */
    static void checkGradient(String context, UnaryOperator<Tensor> ember, String torch, Tensor x) {
        Tensor leaf = x.detach().requiresGrad(true);
        Tensor y = ember.apply(leaf);
        Tensor v = Inputs.randn(RNG, y.dtype(), y.shape());
        List<Tensor> got = Autograd.grad(List.of(y), List.of(leaf), List.of(v), false, false, false);
        String body = "a = a.detach().requires_grad_(True)\ny = " + torch + "\ngo: List[Optional[Tensor]] = [b]\nreturn torch.autograd.grad([y], [a], go)";
        try (NDManager m = Torch.scope()) {
            NDList want = Torch.callListWithGrad(m, body, x, v);
            assertClose(got.getFirst(), want.getFirst(), context + ": gradient at " + x);
        }
    }
}
