package dev.ember.ops;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.autograd.Autograd;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The in-place forms of the unary math ops (log_, sin_, erf_, asinh_, …), bitwise_*_, square_,
 * addcmul_, addcdiv_ and lerp_ against libtorch's in-place ops: the same values written into the
 * same tensor (its version bumped), ATen's refusal to write a float result into an integer tensor,
 * gradients through an in-place op on a non-leaf, and a compiled function using them equal to eager.
 */
class InPlaceMathTest {
    private final Random rng = new Random(5);

    /** Method, torch name, and the domain: 0 any real, 1 positive, 2 in (-1, 1), 3 at least 1. */
    private record Case(String torch, UnaryOperator<Tensor> op, int domain) {}

    private static final List<Case> UNARY = List.of(
            new Case("log_", Tensor::log_, 1), new Case("log1p_", Tensor::log1p_, 1), new Case("log2_", Tensor::log2_, 1), new Case("log10_", Tensor::log10_, 1),
            new Case("exp2_", Tensor::exp2_, 0), new Case("expm1_", Tensor::expm1_, 0), new Case("rsqrt_", Tensor::rsqrt_, 1), new Case("sin_", Tensor::sin_, 0),
            new Case("cos_", Tensor::cos_, 0), new Case("tan_", Tensor::tan_, 2), new Case("asin_", Tensor::asin_, 2), new Case("acos_", Tensor::acos_, 2),
            new Case("atan_", Tensor::atan_, 0), new Case("sinh_", Tensor::sinh_, 0), new Case("cosh_", Tensor::cosh_, 0), new Case("asinh_", Tensor::asinh_, 0),
            new Case("acosh_", Tensor::acosh_, 3), new Case("atanh_", Tensor::atanh_, 2), new Case("erf_", Tensor::erf_, 0), new Case("square_", Tensor::square_, 0));

    private Tensor inDomain(int domain, DType dtype) {
        Tensor u = Inputs.rand(rng, dtype, 3, 4);
        return switch (domain) {
            case 1 -> u.mul(3.0).add(0.1);
            case 2 -> u.mul(1.8).sub(0.9);
            case 3 -> u.mul(3.0).add(1.0);
            default -> Inputs.randn(rng, dtype, 3, 4).mul(2.0);
        };
    }

    @Test
    void unaryInPlaceOpsMatchLibtorch() {
        for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            for (Case c : UNARY) {
                Tensor x = inDomain(c.domain(), dtype), y = x.clone();
                int before = y.version();
                Tensor returned = c.op().apply(y);
                assertSame(y, returned, c.torch() + " returns self");
                assertTrue(y.version() > before, c.torch() + " bumps the version");
                assertClose(y, Torch.call("b = a.clone()\nb." + c.torch() + "()\nreturn b", x), c.torch() + " " + dtype);
            }
        }
        // written through a view into its base
        Tensor base = inDomain(1, DType.FLOAT32), expected = base.clone();
        base.narrow(1, 1, 2).log_();
        expected.narrow(1, 1, 2).copy_(expected.narrow(1, 1, 2).log());
        assertClose(base, expected, "log_ on a view");
    }

    @Test
    void floatResultsIntoIntegersAreRefusedAsInATen() {
        Tensor ints = Tensor.ofLongs(1, 2, 3);
        var e = assertThrows(RuntimeException.class, ints::log_);
        String torch = assertThrows(RuntimeException.class, () -> Torch.call("b = a.clone()\nb.log_()\nreturn b", ints)).getMessage();
        String words = "result type Float can't be cast to the desired output type Long";
        assertTrue(e.getMessage().contains(words), e.getMessage());
        assertTrue(torch.contains(words), torch);
        assertEquals(List.of(1L, 2L, 3L), java.util.Arrays.stream(ints.toLongArray()).boxed().toList(), "nothing written");
    }

    @Test
    void bitwiseAndCompositeInPlaceOpsMatchLibtorch() {
        Tensor a = Inputs.randint(rng, DType.INT64, -50, 50, 3, 4), b = Inputs.randint(rng, DType.INT64, -50, 50, 4);
        assertClose(a.clone().bitwiseAnd_(b), Torch.call("c = a.clone()\nc.bitwise_and_(b)\nreturn c", a, b), "bitwise_and_");
        assertClose(a.clone().bitwiseOr_(6L), Torch.call("c = a.clone()\nc.bitwise_or_(6)\nreturn c", a), "bitwise_or_ with a number");
        assertClose(a.clone().bitwiseXor_(b), Torch.call("c = a.clone()\nc.bitwise_xor_(b)\nreturn c", a, b), "bitwise_xor_");
        assertClose(a.clone().bitwiseNot_(), Torch.call("c = a.clone()\nc.bitwise_not_()\nreturn c", a), "bitwise_not_");
        Tensor flags = Tensor.of(new boolean[] {true, false, true}, 3);
        assertClose(flags.clone().bitwiseNot_(), Torch.call("c = a.clone()\nc.bitwise_not_()\nreturn c", flags), "bitwise_not_ of bools");

        Tensor x = Inputs.randn(rng, DType.FLOAT32, 3, 4), t1 = Inputs.randn(rng, DType.FLOAT32, 4), t2 = Inputs.rand(rng, DType.FLOAT32, 3, 4).add(0.5);
        assertClose(x.clone().addcmul_(t1, t2, 0.3), Torch.call("r = a.clone()\nr.addcmul_(b, c, value=0.3)\nreturn r", x, t1, t2), "addcmul_");
        assertClose(x.clone().addcdiv_(t1, t2, -2.0), Torch.call("r = a.clone()\nr.addcdiv_(b, c, value=-2.0)\nreturn r", x, t1, t2), "addcdiv_");
        assertClose(x.clone().lerp_(t2, 0.7), Torch.call("c = a.clone()\nc.lerp_(b, 0.7)\nreturn c", x, t2), "lerp_ scalar weight");
        assertClose(x.clone().lerp_(t2, t1), Torch.call("r = a.clone()\nr.lerp_(b, c)\nreturn r", x, t2, t1), "lerp_ tensor weight");
        // the result must fit self: a broadcast that would grow it is refused
        Tensor row = Inputs.randn(rng, DType.FLOAT32, 4);
        assertThrows(RuntimeException.class, () -> row.addcmul_(x, x, 1.0));
    }

    @Test
    void gradientsFlowThroughInPlaceOpsOnNonLeaves() {
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 5).requiresGrad(true);
        Tensor y = x.mul(1.0);
        y.sin_();
        y.asinh_();
        Tensor g = Autograd.grad(y.sum(), x).get(0);
        // d/dx asinh(sin x) = cos x / sqrt(1 + sin² x)
        Tensor s = x.detach().sin();
        assertClose(g, x.detach().cos().div(s.mul(s).add(1.0).sqrt()), "chain through sin_ then asinh_");
        Tensor leaf = Inputs.randn(rng, DType.FLOAT64, 3).requiresGrad(true);
        assertThrows(RuntimeException.class, leaf::log_, "a leaf that requires grad is not written in place");
    }

    @Test
    void compiledInPlaceOpsEqualEager() {
        Fn1<Tensor, Tensor> fn = x -> {
            Tensor y = x.mul(2.0).abs().add(0.5);
            y.log1p_();
            y.addcmul_(x, x, 0.25);
            y.lerp_(x.exp(), 0.1);
            y.erf_();
            return y.sum();
        };
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 4, 6).requiresGrad(true);
        ExplainOutput explain = Ember.explain(fn).with(x);
        assertEquals(1, explain.graphCount(), explain.toString());
        assertEquals(0, explain.graphBreakCount(), explain.toString());
        Tensor eager = fn.apply(x);
        Tensor eagerGrad = Autograd.grad(eager, x).get(0);
        Tensor compiled = Ember.compile(fn).apply(x);
        assertClose(compiled, eager, "value", TorchAssert.Tolerance.of(1e-5, 1e-5));
        assertClose(Autograd.grad(compiled, x).get(0), eagerGrad, "gradient", TorchAssert.Tolerance.of(1e-5, 1e-5));
    }
}
