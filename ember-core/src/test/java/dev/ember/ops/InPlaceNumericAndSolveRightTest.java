package dev.ember.ops;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * float_power_ and ldexp_ (in-place ops whose ATen overload names differ from their functional
 * ops': float_power_.Scalar computes float_power.Tensor_Scalar, not float_power.Scalar) and
 * linalg.solve(left=False), against libtorch.
 */
class InPlaceNumericAndSolveRightTest {
    private final Random rng = new Random(17);

    @Test
    void inPlaceOpsFindTheirFunctionalOpByArgumentsNotByOverloadName() {
        assertSame(NumericOps.FLOAT_POWER_TENSOR_SCALAR, OpRegistry.functionalOf(NumericOps.FLOAT_POWER__SCALAR));
        assertSame(NumericOps.FLOAT_POWER_TENSOR_TENSOR, OpRegistry.functionalOf(NumericOps.FLOAT_POWER__TENSOR));
        assertSame(NumericOps.LDEXP, OpRegistry.functionalOf(NumericOps.LDEXP_));
        assertSame(PointwiseOps.ADD_TENSOR, OpRegistry.functionalOf(OpRegistry.get("aten.add_.Tensor")));
    }

    @Test
    void floatPowerInPlaceMatchesLibtorch() {
        Tensor base = Inputs.uniform(rng, DType.FLOAT64, 0.5, 2.0, 3, 4), exponent = Inputs.randn(rng, DType.FLOAT32, 4);
        assertClose(base.clone().floatPower_(exponent), Torch.call("a.float_power_(b)", base.clone(), exponent), "float_power_ tensor exponent");
        assertClose(base.clone().floatPower_(2.5), Torch.call("a.float_power_(2.5)", base.clone()), "float_power_ scalar exponent");
        try (NDManager m = Torch.scope()) {
            Tensor f32 = base.to(DType.FLOAT32);
            refused(m, "float32 base, scalar", () -> f32.clone().floatPower_(2.0), "a.float_power_(2.0)", f32);
            refused(m, "float32 base, tensor", () -> f32.clone().floatPower_(exponent), "a.float_power_(b)", f32, exponent);
            refused(m, "int base", () -> Tensor.ofLongs(1, 2).floatPower_(2.0), "a.float_power_(2.0)", Tensor.ofLongs(1, 2));
        }
    }

    @Test
    void ldexpInPlaceMatchesLibtorch() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 3, 4), e = Inputs.randint(rng, DType.INT64, -3, 4, 4);
        assertClose(x.clone().ldexp_(e), Torch.call("a.ldexp_(b)", x.clone(), e), "ldexp_");
        Tensor x64 = Inputs.randn(rng, DType.FLOAT64, 3, 4);
        assertClose(x64.clone().ldexp_(e), Torch.call("a.ldexp_(b)", x64.clone(), e), "ldexp_ float64");
        try (NDManager m = Torch.scope()) {
            refused(m, "int self", () -> Tensor.ofLongs(1, 2).ldexp_(Tensor.ofLongs(1, 1)), "a.ldexp_(b)", Tensor.ofLongs(1, 2), Tensor.ofLongs(1, 1));
        }
    }

    /** ATen's ldexp_ is mul_out(self, self, 2^other): an out= call, which autograd refuses for self or other requiring grad. */
    @Test
    void ldexpInPlaceIsRefusedAsLibtorchWhenAnArgumentRequiresGrad() {
        Tensor e = Inputs.randint(rng, DType.INT64, -3, 4, 4), fe = Inputs.randn(rng, DType.FLOAT32, 4);
        Tensor x0 = Inputs.randn(rng, DType.FLOAT32, 3, 4).requiresGrad(true);
        refusedUnderGrad("non-leaf self", () -> x0.mul(1.0).ldexp_(e), "return [a.detach().requires_grad_(True).mul(1.0).ldexp_(b)]", x0.detach(), e);
        refusedUnderGrad("leaf self", () -> x0.ldexp_(e), "return [a.detach().requires_grad_(True).ldexp_(b)]", x0.detach(), e);
        refusedUnderGrad("exponent requires grad", () -> x0.detach().clone().ldexp_(fe.detach().requiresGrad(true)),
                "return [a.ldexp_(b.detach().requires_grad_(True))]", x0.detach(), fe);
        // without grad mode, as in libtorch, it is an ordinary in-place write
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 3, 4).requiresGrad(true);
        var want = Torch.call("a.ldexp(b)", x.detach(), e);
        try (var unused = Ember.noGrad()) {
            assertClose(x.clone().ldexp_(e), want, "ldexp_ under no_grad");
        }
    }

    @Test
    void floatPowerInPlaceDifferentiatesAndCompilesThroughItsFunctionalOp() {
        Tensor x = Inputs.uniform(rng, DType.FLOAT64, 0.5, 2.0, 5).requiresGrad(true), e = Inputs.randn(rng, DType.FLOAT64, 5).requiresGrad(true);
        Fn2<Tensor, Tensor, Tensor> fn = (a, b) -> a.mul(1.5).floatPower_(b).mul(1.0).add(a.mul(2.0).floatPower_(0.5));
        Tensor y = fn.apply(x, e);
        List<Tensor> grads = Autograd.grad(y.sum(), x, e);
        try (NDManager m = Torch.scope()) {
            NDList want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\n"
                    + "y = ((a * 1.5).float_power_(b) * 1.0) + (a * 2.0).float_power_(0.5)\nreturn (y, torch.autograd.grad([y.sum()], [a, b]))", x, e);
            assertClose(y, want.get(0), "eager");
            assertClose(grads.get(0), want.get(1), "gradient of the base");
            assertClose(grads.get(1), want.get(2), "gradient of the exponent");
        }
        Tensor compiled = Ember.compile(fn, dev.ember.Options.fullgraph()).apply(x, e);
        assertClose(compiled, y.detach(), "compiled");
        List<Tensor> compiledGrads = Autograd.grad(compiled.sum(), x, e);
        assertClose(compiledGrads.get(0), grads.get(0), "compiled gradient of the base");
        assertClose(compiledGrads.get(1), grads.get(1), "compiled gradient of the exponent");
    }

    @Test
    void solveFromTheRightMatchesLibtorch() {
        for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            for (int[][] shapes : new int[][][] {{{4, 4}, {3, 4}}, {{2, 1, 4, 4}, {3, 2, 4}}, {{2, 3, 3}, {3, 3}}}) {
                Tensor a = Inputs.randn(rng, dtype, shapes[0]).add(Tensor.eye(shapes[0][shapes[0].length - 1]).mul(3.0).to(dtype)).requiresGrad(true);
                Tensor b = Inputs.randn(rng, dtype, shapes[1]).requiresGrad(true);
                Tensor x = Tensor.linalgSolve(a, b, false);
                Tensor g = Inputs.randn(rng, dtype, x.shape());
                List<Tensor> grads = Autograd.grad(List.of(x), List.of(a, b), List.of(g), false, false, false);
                String context = "solve left=False " + dtype + " A " + java.util.Arrays.toString(shapes[0]) + " B " + java.util.Arrays.toString(shapes[1]);
                try (NDManager m = Torch.scope()) {
                    NDList want = Torch.callListWithGrad(m, "a = a.double().detach().requires_grad_(True)\nb = b.double().detach().requires_grad_(True)\n"
                            + "x = torch.linalg_solve(a, b, left=False)\nreturn (x, torch.autograd.grad([(x * c.double()).sum()], [a, b]))", a.detach(), b.detach(), g);
                    // libtorch in float64 (the exact reference) against Ember in each dtype
                    var tol = dev.ember.testing.TorchAssert.Tolerance.of(dtype == DType.FLOAT32 ? 1e-4 : 1e-7, dtype == DType.FLOAT32 ? 1e-5 : 1e-7).ignoringDtype();
                    assertClose(x, want.get(0), context, tol);
                    assertClose(grads.get(0), want.get(1), context + ": gradient of A", tol);
                    assertClose(grads.get(1), want.get(2), context + ": gradient of B", tol);
                }
            }
        }
        Tensor a = Tensor.eye(3).mul(2.0).add(Inputs.randn(rng, DType.FLOAT32, 3, 3).mul(0.1)), b = Inputs.randn(rng, DType.FLOAT32, 2, 3);
        Fn2<Tensor, Tensor, Tensor> fn = (p, q) -> Tensor.linalgSolve(p, q, false).mul(2.0);
        assertClose(Ember.compile(fn).apply(a, b), fn.apply(a, b), "compiled solve left=False");
        try (NDManager m = Torch.scope()) {
            refused(m, "vector B", () -> Tensor.linalgSolve(a, Tensor.ones(3), false), "torch.linalg_solve(a, b, left=False)", a, Tensor.ones(3));
            refused(m, "incompatible shapes", () -> Tensor.linalgSolve(a, Tensor.ones(3, 2), false), "torch.linalg_solve(a, b, left=False)", a, Tensor.ones(3, 2));
        }
    }

    /** libtorch (with grad mode on) and Ember both refuse, Ember's message carrying libtorch's. */
    private static void refusedUnderGrad(String context, java.util.function.Supplier<Tensor> ember, String torch, Object... args) {
        String aten;
        try (NDManager m = Torch.scope()) {
            Throwable t = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class, () -> Torch.callListWithGrad(m, torch, args), context + ": libtorch accepts it");
            aten = Torch.refusalText(t);
        }
        RuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class, ember::get, context + ": libtorch says " + aten);
        String first = e.getMessage().substring(0, e.getMessage().indexOf(" (ldexp_"));
        org.junit.jupiter.api.Assertions.assertTrue(aten.contains(first), context + ": Ember says '" + e.getMessage() + "', libtorch '" + aten + "'");
    }

    private static void refused(NDManager m, String context, java.util.function.Supplier<Tensor> ember, String torch, Object... args) {
        ScatterConformanceTest.refused(m, context, ember, torch, args);
    }
}
