package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ATen's alias ops (AliasOps) against libtorch's own aliases: values with broadcasting and type
 * promotion (float32, int64 and bool inputs), the in-place aliases writing self, views staying
 * views, gradients through them, the alias's name in a captured graph, and Ember.compile giving
 * eager's values and gradients.
 */
class AliasOpsTest {
    private final Random rng = new Random(161);

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    @AfterEach
    void reset() { Ember.reset(); }

    @Test
    void unaryAliasesMatchLibtorch() {
        Tensor inside = Inputs.uniform(rng, DType.FLOAT32, -0.9, 0.9, 3, 4), above = Inputs.uniform(rng, DType.FLOAT32, 1.1, 4, 3, 4);
        Tensor any = Inputs.randn(rng, DType.FLOAT32, 3, 4).mul(3.0), ints = Tensor.ofLongs(-3, 0, 2, 7).reshape(2, 2);
        assertClose(inside.arccos(), Torch.call("torch.arccos(a)", inside), "arccos");
        assertClose(inside.arcsin(), Torch.call("torch.arcsin(a)", inside), "arcsin");
        assertClose(any.arctan(), Torch.call("torch.arctan(a)", any), "arctan");
        assertClose(inside.arctanh(), Torch.call("torch.arctanh(a)", inside), "arctanh");
        assertClose(any.arcsinh(), Torch.call("torch.arcsinh(a)", any), "arcsinh");
        assertClose(above.arccosh(), Torch.call("torch.arccosh(a)", above), "arccosh");
        assertClose(any.absolute(), Torch.call("torch.absolute(a)", any), "absolute");
        assertClose(any.negative(), Torch.call("torch.negative(a)", any), "negative");
        assertClose(any.fix(), Torch.call("torch.fix(a)", any), "fix");
        // integer inputs: arccos of an int is float32, absolute and negative keep int64, as in ATen
        assertClose(ints.arccos(), Torch.call("torch.arccos(a)", ints), "arccos of int64");
        assertClose(ints.absolute(), Torch.call("torch.absolute(a)", ints), "absolute of int64");
        assertClose(ints.negative(), Torch.call("torch.negative(a)", ints), "negative of int64");
        assertClose(ints.fix(), Torch.call("torch.fix(a)", ints), "fix of int64");
        Tensor special = Inputs.specials(DType.FLOAT32);
        assertClose(special.arctan(), Torch.call("torch.arctan(a)", special), "arctan of special values");
        assertClose(special.fix(), Torch.call("torch.fix(a)", special), "fix of special values");
    }

    @Test
    void binaryAliasesMatchLibtorch() {
        for (int[][] s : Inputs.BROADCAST_SHAPES) {
            Tensor a = Inputs.randn(rng, DType.FLOAT32, s[0]), b = Inputs.randn(rng, DType.FLOAT32, s[1]).add(0.1);
            String c = java.util.Arrays.toString(s[0]) + " " + java.util.Arrays.toString(s[1]);
            assertClose(a.arctan2(b), Torch.call("torch.arctan2(a, b)", a, b), "arctan2 " + c);
            assertClose(a.subtract(b), Torch.call("torch.subtract(a, b)", a, b), "subtract " + c);
            assertClose(a.subtract(b, 2.5), Torch.call("torch.subtract(a, b, alpha=2.5)", a, b), "subtract alpha " + c);
            assertClose(a.multiply(b), Torch.call("torch.multiply(a, b)", a, b), "multiply " + c);
            assertClose(a.divide(b), Torch.call("torch.divide(a, b)", a, b), "divide " + c);
            assertClose(a.divide(b, "floor"), Torch.call("torch.divide(a, b, rounding_mode='floor')", a, b), "divide floor " + c);
            assertClose(a.divide(b, "trunc"), Torch.call("torch.divide(a, b, rounding_mode='trunc')", a, b), "divide trunc " + c);
            assertClose(a.greater(b), Torch.call("torch.greater(a, b)", a, b), "greater " + c);
            assertClose(a.greaterEqual(b), Torch.call("torch.greater_equal(a, b)", a, b), "greater_equal " + c);
            assertClose(a.less(b), Torch.call("torch.less(a, b)", a, b), "less " + c);
            assertClose(a.lessEqual(b), Torch.call("torch.less_equal(a, b)", a, b), "less_equal " + c);
            assertClose(a.notEqual(b), Torch.call("torch.not_equal(a, b)", a, b), "not_equal " + c);
            assertClose(a.clip(b.neg().abs().neg(), b.abs()), Torch.call("torch.clip(a, b.abs().neg(), b.abs())", a, b), "clip tensor bounds " + c);
        }
        // promotion: int64 with float32 and a Python scalar, as ATen promotes
        Tensor ints = Tensor.ofLongs(-7, -2, 3, 9).reshape(2, 2), floats = Inputs.randn(rng, DType.FLOAT32, 2, 2);
        assertClose(ints.divide(floats), Torch.call("torch.divide(a, b)", ints, floats), "int64 / float32");
        assertClose(ints.divide(2.0, "floor"), Torch.call("torch.divide(a, 2.0, rounding_mode='floor')", ints), "int64 // 2.0");
        assertClose(ints.divide(Tensor.ofLongs(2, 3), "trunc"), Torch.call("torch.divide(a, b, rounding_mode='trunc')", ints, Tensor.ofLongs(2, 3)), "int64 trunc-divided");
        assertClose(ints.subtract(1.5), Torch.call("torch.subtract(a, 1.5)", ints), "int64 - 1.5");
        assertClose(ints.multiply(3.0), Torch.call("torch.multiply(a, 3.0)", ints), "int64 * 3.0");
        assertClose(ints.greater(0.5), Torch.call("torch.greater(a, 0.5)", ints), "int64 > 0.5");
        assertClose(ints.lessEqual(3.0), Torch.call("torch.less_equal(a, 3.0)", ints), "int64 <= 3");
        assertClose(ints.notEqual(floats), Torch.call("torch.not_equal(a, b)", ints, floats), "int64 != float32");
        assertClose(ints.clip(-3.0, 4.0), Torch.call("torch.clip(a, -3.0, 4.0)", ints), "clip int64 by float bounds: float32");
        assertClose(floats.clip(null, 0.0), Torch.call("torch.clip(a, None, 0.0)", floats), "clip, max only");
        // bad input: the target's refusal, in ATen's words (PyTorch 2.13's; libtorch 2.7 through DJL refuses these without its words)
        Tensor bools = Tensor.of(new boolean[] {true, false}, 2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> bools.subtract(bools));
        assertThrows(RuntimeException.class, () -> Torch.call("torch.subtract(a, b)", bools, bools));
        assertTrue(e.getMessage().endsWith("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."),
                e.getMessage());
        IllegalArgumentException noBounds = assertThrows(IllegalArgumentException.class, () -> floats.clip(null, (Double) null));
        assertThrows(RuntimeException.class, () -> Torch.call("torch.clip(a)", floats));
        assertTrue(noBounds.getMessage().endsWith("At least one of 'min' or 'max' must not be None"), noBounds.getMessage());
    }

    @Test
    void shapeAliasesMatchLibtorchAndViewsStayViews() {
        Tensor a = Inputs.randn(rng, DType.FLOAT32, 2, 3, 4), b = Inputs.randn(rng, DType.FLOAT32, 2, 5, 4);
        assertClose(Tensor.concat(List.of(a, b), 1), Torch.call("torch.concat(a, 1)", List.of(a, b)), "concat");
        assertClose(Tensor.concatenate(List.of(a, b), -2), Torch.call("torch.concatenate(a, -2)", List.of(a, b)), "concatenate");
        Tensor v = Inputs.randn(rng, DType.FLOAT32, 4), w = Inputs.randn(rng, DType.FLOAT32, 3);
        assertClose(Tensor.rowStack(List.of(v, v.mul(2.0))), Torch.call("torch.row_stack(a)", List.of(v, v.mul(2.0))), "row_stack");
        assertClose(v.ger(w), Torch.call("torch.ger(a, b)", v, w), "ger");
        assertClose(a.swapdims(0, 2), Torch.call("torch.swapdims(a, 0, 2)", a), "swapdims");
        assertClose(a.moveaxis(0, -1), Torch.call("torch.moveaxis(a, 0, -1)", a), "moveaxis");
        assertClose(a.moveaxis(new int[] {0, 1}, new int[] {2, 0}), Torch.call("torch.moveaxis(a, [0, 1], [2, 0])", a), "moveaxis, lists");
        // views: a write through the alias's result shows in the input
        Tensor base = Tensor.zeros(DType.FLOAT32, 2, 3);
        base.swapdims(0, 1).select(0, 2).fill_(7.0);
        base.moveaxis(1, 0).select(0, 0).fill_(5.0);
        var want = Torch.call("b = a.clone()\nb.swapdims(0, 1).select(0, 2).fill_(7.0)\nb.moveaxis(1, 0).select(0, 0).fill_(5.0)\nreturn b",
                Tensor.zeros(DType.FLOAT32, 2, 3));
        assertClose(base, want, "writes through swapdims and moveaxis views");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Tensor.concat(List.of(a, Inputs.randn(rng, DType.FLOAT32, 3, 3, 4)), 1));
        assertTrue(e.getMessage().startsWith("concat: "), e.getMessage());
    }

    @Test
    void inPlaceAliasesWriteSelf() {
        Tensor x = Inputs.uniform(rng, DType.FLOAT64, -0.9, 0.9, 3, 3), y = Inputs.uniform(rng, DType.FLOAT64, 0.5, 2, 3, 3);
        record Case(String name, java.util.function.UnaryOperator<Tensor> ember, String torch) {}
        for (Case c : List.of(new Case("arccos_", t -> t.arccos_(), "a.arccos_()"), new Case("arcsin_", t -> t.arcsin_(), "a.arcsin_()"),
                new Case("arctan_", t -> t.arctan_(), "a.arctan_()"), new Case("arctanh_", t -> t.arctanh_(), "a.arctanh_()"),
                new Case("arcsinh_", t -> t.arcsinh_(), "a.arcsinh_()"), new Case("absolute_", t -> t.absolute_(), "a.absolute_()"),
                new Case("negative_", t -> t.negative_(), "a.negative_()"), new Case("fix_", t -> t.mul(5.0).fix_(), "a.mul(5.0).fix_()"),
                new Case("clip_", t -> t.clip_(-0.5, 0.25), "a.clip_(-0.5, 0.25)"), new Case("subtract_", t -> t.subtract_(y), "a.subtract_(b)"),
                new Case("multiply_", t -> t.multiply_(y), "a.multiply_(b)"), new Case("divide_", t -> t.divide_(y), "a.divide_(b)"))) {
            Tensor self = x.clone();
            Tensor returned = c.ember().apply(self);
            var want = Torch.call(c.torch() + "", x.clone(), y);
            assertClose(returned, want, c.name());
            if (!c.name().equals("fix_")) assertSame(self, returned, c.name() + " returns self");
        }
        Tensor above = y.add(1.0);
        assertClose(above.clone().arccosh_(), Torch.call("a.arccosh_()", above), "arccosh_");
    }

    @Test
    void gradientsFlowThroughAliases() {
        Tensor x = Inputs.uniform(rng, DType.FLOAT64, -0.8, 0.8, 2, 3), y = Inputs.uniform(rng, DType.FLOAT64, 0.5, 2, 2, 3);
        Tensor lx = x.detach().requiresGrad(true), ly = y.detach().requiresGrad(true);
        Tensor loss = lx.arccos().add(lx.arctan2(ly)).add(lx.subtract(ly, 2.0).multiply(ly)).add(lx.divide(ly)).add(lx.clip(-0.5, 0.5).mul(3.0))
                .add(lx.absolute().negative()).add(lx.swapdims(0, 1).moveaxis(0, 1)).add(lx.arcsinh().mul(lx.arctanh())).sum();
        List<Tensor> got = Autograd.grad(List.of(loss), List.of(lx, ly), null, false, false, false);
        String body = "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\n"
                + "y = (torch.arccos(a) + torch.arctan2(a, b) + torch.subtract(a, b, alpha=2.0) * b + torch.divide(a, b) + torch.clip(a, -0.5, 0.5) * 3.0"
                + " + torch.negative(torch.absolute(a)) + torch.moveaxis(torch.swapdims(a, 0, 1), 0, 1) + torch.arcsinh(a) * torch.arctanh(a)).sum()\n"
                + "return torch.autograd.grad([y], [a, b])";
        try (NDManager m = Torch.scope()) {
            assertClose(got, Torch.callListWithGrad(m, body, x, y), "gradients through the aliases", TorchAssert.Tolerance.of(1e-10, 1e-12));
        }
    }

    static Tensor aliasProgram(Tensor a, Tensor b) {
        Tensor c = a.arccos().add(a.arctan2(b)).add(a.subtract(b, 0.5).multiply(b)).add(a.divide(b.abs().add(1.0), "floor"));
        Tensor d = c.clip(-1.0, 2.0).add(a.greater(b).to(a.dtype())).add(a.swapdims(0, 1).moveaxis(0, 1)).negative();
        return Tensor.concat(List.of(d, a.fix(), a.arcsinh()), 0);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        Tensor a = Inputs.uniform(rng, DType.FLOAT32, -0.9, 0.9, 3, 3), b = Inputs.randn(rng, DType.FLOAT32, 3, 3);
        Fn2<Tensor, Tensor, Tensor> fn = AliasOpsTest::aliasProgram;
        ExplainOutput e = Ember.explain(fn).with(a, b);
        assertEquals(0, e.graphBreakCount(), e.toString());
        assertTrue(e.toString().contains("aten.arccos"), "the graph names the alias: " + e);
        CompiledOpsCheck.oneGraphWithEagersValuesAndGradients(AliasOpsTest::aliasProgram, a, b, backend, "a", "b");
        assertClose(Ember.compile(fn, Options.backend(backend).fullgraph(true)).apply(a, b), fn.apply(a, b), backend + " values");
    }

    /** docs/tensors.md, "ATen's aliases", as written there: each alias is its target. */
    @Test
    void docsExample() {
        Tensor x = Tensor.randn(3, 4);
        Tensor y = x.clip(-0.5, 0.5).arccos().divide(x.absolute().add(1.0), "floor");   // clamp, acos, div
        Tensor z = Tensor.concat(List.of(x, y), 0).swapdims(0, 1);                         // [4, 6], a view of the cat
        assertClose(y, x.clamp(-0.5, 0.5).acos().div(x.abs().add(1.0), "floor"), "the aliases' targets");
        assertEquals(List.of(4, 6), java.util.Arrays.stream(z.shape()).boxed().toList());
        assertClose(z, Tensor.cat(List.of(x, y), 0).transpose(0, 1), "concat and swapdims");
    }

    /**
     * torch.lu, the older spelling of linalg.lu_factor_ex (a Python function, which TorchScript lacks:
     * libtorch is called as torch/functional.py calls it): its results, and its refusal of a singular
     * matrix without get_infos.
     */
    @Test
    void luIsLuFactorEx() {
        Tensor a = Inputs.randn(rng, DType.FLOAT64, 2, 4, 4), singular = Tensor.zeros(DType.FLOAT64, 3, 3);
        List<Tensor> got = a.lu(), withInfos = singular.lu(true);
        var want = Torch.callList("torch.linalg_lu_factor_ex(a, check_errors=True)", a);
        assertClose(got.get(0), want.get(0), "LU");
        assertClose(got.get(1), want.get(1), "pivots");
        var wantInfos = Torch.callList("torch.linalg_lu_factor_ex(a, check_errors=False)", singular);
        assertClose(withInfos.get(2), wantInfos.get(2), "infos of a singular matrix");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, singular::lu);
        RuntimeException torch = assertThrows(RuntimeException.class, () -> Torch.callList("torch.linalg_lu_factor_ex(a, check_errors=True)", singular));
        assertTrue(Torch.refusalText(torch).contains(e.getMessage().substring(e.getMessage().indexOf(": ") + 2)), e.getMessage() + " / " + Torch.refusalText(torch));
    }
}
