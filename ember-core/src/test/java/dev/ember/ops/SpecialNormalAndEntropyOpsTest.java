package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;

/**
 * torch.special's ndtr, log_ndtr, erfcx, entr, xlog1py and the Bessel functions i0, i0e, i1, i1e against libtorch: edge values (0, ±inf, NaN, tails),
 * every dtype (integers to the default float), broadcasting, non-contiguous inputs; gradients
 * against libtorch's (at self = 0 and x = 0 too, where ATen's formulas differ from the
 * decompositions'); and Ember.compile giving eager's values and gradients in one graph.
 */
class SpecialNormalAndEntropyOpsTest {
    private static final List<DType> DTYPES = List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32, DType.BOOL);

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    @Test
    void valuesMatchLibtorch() {
        Random rng = new Random(1);
        for (DType d : DTYPES) {
            Tensor s = Inputs.specials(d);
            assertClose(s.ndtr(), Torch.call("torch.special_ndtr(a)", s), "ndtr specials " + d);
            assertClose(s.entr(), Torch.call("torch.special_entr(a)", s), "entr specials " + d);
            for (DType e : DTYPES) {
                Tensor a = s.reshape(-1, 1), b = Inputs.specials(e).reshape(1, -1);
                assertClose(a.xlog1py(b), Torch.call("torch.special_xlog1py(a, b)", a, b), "xlog1py " + d + " " + e);
            }
        }
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor tails = Inputs.fromDoubles(new double[] {-40, -38, -20, -8, -3, -1e-3, 1e-3, 3, 8, 20, 40}, d, 11);
            assertClose(tails.ndtr(), Torch.call("torch.special_ndtr(a)", tails), "ndtr tails " + d);
            Tensor x = Inputs.nonContiguous(Inputs.randn(rng, d, 4, 5).mul(3.0));
            assertClose(x.ndtr(), Torch.call("torch.special_ndtr(a)", x), "ndtr strided " + d);
            assertClose(x.abs().entr(), Torch.call("torch.special_entr(a)", x.abs()), "entr strided " + d);
            assertClose(x.xlog1py(x.abs()), Torch.call("torch.special_xlog1py(a, b)", x, x.abs()), "xlog1py strided " + d);
        }
        Tensor empty = Tensor.randn(0, 3);
        assertClose(empty.ndtr(), Torch.call("torch.special_ndtr(a)", empty), "ndtr empty");
    }

    @Test
    void erfcxAndLogNdtrMatchLibtorch() {
        for (DType d : DTYPES) {
            Tensor s = Inputs.specials(d);
            assertClose(s.erfcx(), Torch.call("torch.special_erfcx(a)", s), "erfcx specials " + d);
            assertClose(s.logNdtr(), Torch.call("torch.special_log_ndtr(a)", s), "log_ndtr specials " + d);
        }
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor x = Inputs.fromDoubles(new double[] {-30, -26.7, -26, -10, -3, -1, -0.5, 0, 0.5, 1, 3, 10, 25.9, 26, 26.1, 50, 1e3, 1e10, 1e300}, d, 19);
            assertClose(x.erfcx(), Torch.call("torch.special_erfcx(a)", x), "erfcx across its branches " + d);
            Tensor y = Inputs.fromDoubles(new double[] {-1e5, -200, -40, -38, -10, -1.5, -1, -0.999, -0.5, 0, 2, 6, 9, 40}, d, 14);
            assertClose(y.logNdtr(), Torch.call("torch.special_log_ndtr(a)", y), "log_ndtr across its branches " + d);
        }
        Tensor x = Tensor.of(new double[] {-3, -1.2, -1, 0, 0.8, 5, 30}, 7);
        Tensor ex = x.clone().requiresGrad(true), lx = x.clone().requiresGrad(true);
        ex.erfcx().sum().backward();
        lx.logNdtr().sum().backward();
        assertClose(ex.grad(), Torch.callListWithGrad(Torch.manager(), "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([torch.special_erfcx(a).sum()], [a])", x.clone()).get(0),
                "erfcx's gradient");
        assertClose(lx.grad(), Torch.callListWithGrad(Torch.manager(), "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([torch.special_log_ndtr(a).sum()], [a])", x.clone()).get(0),
                "log_ndtr's gradient");
    }

    @Test
    void besselFunctionsMatchLibtorch() {
        for (DType d : DTYPES) {
            Tensor s = Inputs.specials(d);
            assertClose(s.i0(), Torch.call("torch.i0(a)", s), "i0 specials " + d);
            assertClose(s.i0e(), Torch.call("torch.special_i0e(a)", s), "i0e specials " + d);
            assertClose(s.i1(), Torch.call("torch.special_i1(a)", s), "i1 specials " + d);
            assertClose(s.i1e(), Torch.call("torch.special_i1e(a)", s), "i1e specials " + d);
        }
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor x = Inputs.fromDoubles(new double[] {-750, -100, -30.5, -30, -8, -1, -1e-5, 0, 1e-5, 0.5, 2, 7.9, 8.1, 15, 29.9, 30.1, 45, 85, 700, 713, 720}, d, 21);
            assertClose(x.i0(), Torch.call("torch.i0(a)", x), "i0 across its branches " + d);
            assertClose(x.i0e(), Torch.call("torch.special_i0e(a)", x), "i0e across its branches " + d);
            assertClose(x.i1(), Torch.call("torch.special_i1(a)", x), "i1 across its branches " + d);
            assertClose(x.i1e(), Torch.call("torch.special_i1e(a)", x), "i1e across its branches " + d);
        }
        Tensor x = Tensor.of(new double[] {-12, -2, -0.3, 0, 0.7, 3, 40}, 7);
        for (String[] op : List.of(new String[] {"i0", "torch.i0"}, new String[] {"i0e", "torch.special_i0e"}, new String[] {"i1", "torch.special_i1"},
                new String[] {"i1e", "torch.special_i1e"})) {
            Tensor leaf = x.clone().requiresGrad(true);
            Tensor y = switch (op[0]) {
                case "i0" -> leaf.i0();
                case "i0e" -> leaf.i0e();
                case "i1" -> leaf.i1();
                default -> leaf.i1e();
            };
            y.sum().backward();
            assertClose(leaf.grad(), Torch.callListWithGrad(Torch.manager(), "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([" + op[1] + "(a).sum()], [a])",
                    x.clone()).get(0), op[0] + "'s gradient");
        }
    }

    @Test
    void gradientsMatchLibtorch() {
        Tensor x = Tensor.of(new double[] {0, 0, 0.5, -2, 3, 0}, 6);
        Tensor y = Tensor.of(new double[] {2, -1, -1, 0.5, -0.75, -3}, 6);
        String xlog1py = "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\nz = torch.special_xlog1py(a, b)\n"
                + "return torch.autograd.grad([z.sum()], [a, b])";
        for (Tensor[] pair : List.of(new Tensor[] {x, y.abs().add(0.1)}, new Tensor[] {x, y})) {
            Tensor a = pair[0].clone().requiresGrad(true), b = pair[1].clone().requiresGrad(true);
            a.xlog1py(b).sum().backward();
            var torch = Torch.callListWithGrad(Torch.manager(), xlog1py, pair[0].clone(), pair[1].clone());
            assertClose(List.of(a.grad(), b.grad()), torch, "xlog1py gradients");
        }
        Tensor p = Tensor.of(new double[] {0, 0.5, 2, 1e-3}, 4);
        Tensor leaf = p.clone().requiresGrad(true);
        leaf.entr().sum().backward();
        assertClose(leaf.grad(), Torch.callListWithGrad(Torch.manager(), "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([torch.special_entr(a).sum()], [a])", p.clone()).get(0),
                "entr's gradient, +inf at 0 as ATen's");
        Tensor n = Tensor.of(new double[] {-5, -1, 0, 0.7, 4}, 5);
        Tensor nl = n.clone().requiresGrad(true);
        nl.ndtr().sum().backward();
        assertClose(nl.grad(), Torch.callListWithGrad(Torch.manager(), "a = a.detach().requires_grad_(True)\nreturn torch.autograd.grad([torch.special_ndtr(a).sum()], [a])", n.clone()).get(0),
                "ndtr's gradient: the normal density");
    }

    static Tensor special(Tensor x, Tensor y) {
        return x.ndtr().add(y.abs().entr()).add(x.xlog1py(y.abs())).add(x.erfcx()).add(y.logNdtr()).add(x.i0()).add(x.i0e()).add(y.i1()).add(y.i1e());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        Tensor.manualSeed(3);
        Tensor x = Tensor.randn(3, 4), y = Tensor.randn(4).add(0.1);
        CompiledOpsCheck.oneGraphWithEagersValuesAndGradients(SpecialNormalAndEntropyOpsTest::special, x, y, backend, "x", "y");
    }
}
