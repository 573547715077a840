package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.autograd.GradCheck;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.nn.F;
import dev.ember.nn.Upsample;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static dev.ember.ops.ScatterConformanceTest.refused;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * F.interpolate (nearest, linear, bilinear; size or scale factor; align_corners) against libtorch's
 * upsample kernels, their gradients against libtorch's upsample backward, F.interpolate's errors,
 * nn.Upsample, and under Ember.compile: one graph computing what eager computes.
 */
class UpsampleTest {

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    static Stream<DType> floatDtypes() { return Stream.of(DType.FLOAT32, DType.FLOAT64); }

    /** libtorch's F.interpolate for one call: the .vec overload with the size or the scale factors, as F.interpolate calls it. */
    private static String torch(String op, int[] size, double[] scales, Boolean alignCorners) {
        String sizes = size == null ? "None" : Arrays.toString(size);
        String factors = scales == null ? "None" : Arrays.toString(scales);
        return "ops.aten." + op + "(a, " + sizes + (alignCorners == null ? "" : ", " + (alignCorners ? "True" : "False")) + ", " + factors + ")";
    }

    private static final Tolerance LINEAR = Tolerance.of(1e-6, 1e-6);

    @ParameterizedTest(name = "{0}")
    @MethodSource("floatDtypes")
    void nearestMatchesLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 5);
        try (NDManager m = Torch.scope()) {
            Tensor x2 = Inputs.randn(rng, d, 2, 3, 5, 7), x1 = Inputs.randn(rng, d, 2, 3, 7);
            for (Inputs.Layout in : Inputs.layouts(x2)) {
                for (int[] size : List.of(new int[] {10, 14}, new int[] {5, 7}, new int[] {3, 4}, new int[] {8, 20}, new int[] {1, 1})) {
                    assertClose(F.interpolate(in.tensor(), size, "nearest"), Torch.call(m, torch("upsample_nearest2d", size, null, null), in.tensor()),
                            "nearest2d " + in + " size " + Arrays.toString(size), Tolerance.EXACT);
                }
                for (double s : new double[] {2, 1.5, 0.7, 3.3, 1.1}) {
                    int[] size = {(int) Math.floor(5 * s), (int) Math.floor(7 * s)};
                    assertClose(F.interpolate(in.tensor(), s, "nearest"), Torch.call(m, torch("upsample_nearest2d", null, new double[] {s, s}, null), in.tensor()),
                            "nearest2d " + in + " scale " + s + " → " + Arrays.toString(size), Tolerance.EXACT);
                }
            }
            for (Inputs.Layout in : Inputs.layouts(x1)) {
                for (double s : new double[] {2, 0.5, 2.6}) {
                    assertClose(F.interpolate(in.tensor(), s, "nearest"), Torch.call(m, torch("upsample_nearest1d", null, new double[] {s}, null), in.tensor()),
                            "nearest1d " + in + " scale " + s, Tolerance.EXACT);
                }
                assertClose(F.interpolate(in.tensor(), new int[] {11}, "nearest"), Torch.call(m, torch("upsample_nearest1d", new int[] {11}, null, null), in.tensor()), "nearest1d size", Tolerance.EXACT);
            }
            Tensor noBatch = Inputs.randn(rng, d, 0, 3, 4, 4);
            assertClose(F.interpolate(noBatch, 2.0, "nearest"), Torch.call(m, torch("upsample_nearest2d", null, new double[] {2, 2}, null), noBatch), "empty batch");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("floatDtypes")
    void linearAndBilinearMatchLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 15);
        try (NDManager m = Torch.scope()) {
            Tensor x2 = Inputs.randn(rng, d, 2, 3, 5, 6), x1 = Inputs.randn(rng, d, 2, 3, 6);
            for (boolean corners : new boolean[] {false, true}) {
                for (Inputs.Layout in : Inputs.layouts(x2)) {
                    for (int[] size : List.of(new int[] {10, 12}, new int[] {5, 6}, new int[] {3, 4}, new int[] {7, 17}, new int[] {1, 1})) {
                        assertClose(F.interpolate(in.tensor(), size, null, "bilinear", corners, null), Torch.call(m, torch("upsample_bilinear2d", size, null, corners), in.tensor()),
                                "bilinear " + in + " size " + Arrays.toString(size) + " corners " + corners, LINEAR);
                    }
                    for (double s : new double[] {2, 1.5, 0.6, 2.3}) {
                        assertClose(F.interpolate(in.tensor(), null, new double[] {s}, "bilinear", corners, null),
                                Torch.call(m, torch("upsample_bilinear2d", null, new double[] {s, s}, corners), in.tensor()), "bilinear " + in + " scale " + s + " corners " + corners, LINEAR);
                    }
                    assertClose(F.interpolate(in.tensor(), null, new double[] {1.7, 0.8}, "bilinear", corners, null),
                            Torch.call(m, torch("upsample_bilinear2d", null, new double[] {1.7, 0.8}, corners), in.tensor()), "bilinear per-dim scales", LINEAR);
                }
                for (Inputs.Layout in : Inputs.layouts(x1)) {
                    for (double s : new double[] {2, 0.5, 2.6}) {
                        assertClose(F.interpolate(in.tensor(), null, new double[] {s}, "linear", corners, null),
                                Torch.call(m, torch("upsample_linear1d", null, new double[] {s}, corners), in.tensor()), "linear " + in + " scale " + s + " corners " + corners, LINEAR);
                    }
                    assertClose(F.interpolate(in.tensor(), new int[] {13}, null, "linear", corners, null),
                            Torch.call(m, torch("upsample_linear1d", new int[] {13}, null, corners), in.tensor()), "linear size", LINEAR);
                }
            }
            // recompute_scale_factor: the kernel computes as for the size alone
            Tensor r = F.interpolate(x2, null, new double[] {1.7}, "bilinear", false, true);
            assertClose(r, Torch.call(m, torch("upsample_bilinear2d", new int[] {8, 10}, null, false), x2), "recomputed scale", LINEAR);
        }
    }

    /** The modes F.interpolate reaches beyond nearest and (bi)linear: nearest-exact bit for bit, bicubic and trilinear within rounding. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("floatDtypes")
    void nearestExactBicubicAndTrilinearMatchLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 11);
        try (NDManager m = Torch.scope()) {
            Tensor x2 = Inputs.randn(rng, d, 2, 3, 5, 7), x1 = Inputs.randn(rng, d, 2, 3, 7), x3 = Inputs.randn(rng, d, 1, 2, 3, 4, 5);
            for (Inputs.Layout in : Inputs.layouts(x2)) {
                for (double s : new double[] {2, 1.5, 0.7, 3.3, 0.45}) {
                    assertClose(F.interpolate(in.tensor(), s, "nearest-exact"), Torch.call(m, torch("_upsample_nearest_exact2d", null, new double[] {s, s}, null), in.tensor()),
                            "nearest-exact2d " + in + " scale " + s, Tolerance.EXACT);
                    for (boolean corners : new boolean[] {false, true}) {
                        assertClose(F.interpolate(in.tensor(), null, new double[] {s}, "bicubic", corners, null),
                                Torch.call(m, torch("upsample_bicubic2d", null, new double[] {s, s}, corners), in.tensor()), "bicubic " + in + " scale " + s + " corners " + corners, LINEAR);
                    }
                }
                assertClose(F.interpolate(in.tensor(), new int[] {3, 11}, null, "bicubic", false, null),
                        Torch.call(m, torch("upsample_bicubic2d", new int[] {3, 11}, null, false), in.tensor()), "bicubic size " + in, LINEAR);
            }
            assertClose(F.interpolate(x1, new int[] {12}, "nearest-exact"), Torch.call(m, torch("_upsample_nearest_exact1d", new int[] {12}, null, null), x1), "nearest-exact1d", Tolerance.EXACT);
            for (boolean corners : new boolean[] {false, true}) {
                assertClose(F.interpolate(x3, null, new double[] {1.5, 2.0, 0.6}, "trilinear", corners, null),
                        Torch.call(m, torch("upsample_trilinear3d", null, new double[] {1.5, 2.0, 0.6}, corners), x3), "trilinear corners " + corners, LINEAR);
            }
            assertClose(F.interpolate(x3, 1.5, "nearest-exact"), Torch.call(m, torch("_upsample_nearest_exact3d", null, new double[] {1.5, 1.5, 1.5}, null), x3), "nearest-exact3d", Tolerance.EXACT);
            assertClose(F.interpolate(x3, new int[] {2, 5, 3}, "nearest"), Torch.call(m, torch("upsample_nearest3d", new int[] {2, 5, 3}, null, null), x3), "nearest3d", Tolerance.EXACT);
            Tensor ints = Tensor.zeros(DType.INT64, 1, 2, 2, 2);
            refused(m, "int64 bicubic", () -> F.interpolate(ints, new int[] {3, 3}, null, "bicubic", false, null), "ops.aten.upsample_bicubic2d(a, [3, 3], False, None)", ints);
        }
    }

    @Test
    void gradientsMatchLibtorchAndFiniteDifferences() {
        Random rng = new Random(7);
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 1, 2, 4, 5).requiresGrad(true), x1 = Inputs.randn(rng, DType.FLOAT64, 1, 2, 5).requiresGrad(true);
        GradCheck.check(in -> F.interpolate(in.get(0), null, new double[] {1.5}, "bilinear", false, null), x);
        GradCheck.check(in -> F.interpolate(in.get(0), new int[] {3, 7}, null, "bilinear", true, null), x);
        GradCheck.check(in -> F.interpolate(in.get(0), 2.5, "nearest"), x);
        GradCheck.check(in -> F.interpolate(in.get(0), null, new double[] {0.6}, "linear", false, null), x1);
        GradCheck.check(in -> F.interpolate(in.get(0), null, new double[] {1.5}, "bicubic", false, null), x);
        GradCheck.check(in -> F.interpolate(in.get(0), new int[] {3, 7}, null, "bicubic", true, null), x);
        GradCheck.check(in -> F.interpolate(in.get(0), 1.7, "nearest-exact"), x);
        try (NDManager m = Torch.scope()) {
            for (String[] c : List.of(
                    new String[] {"bilinear", "ops.aten.upsample_bilinear2d(a, None, False, [1.5, 1.5])"},
                    new String[] {"bilinear corners", "ops.aten.upsample_bilinear2d(a, [7, 3], True, None)"},
                    new String[] {"nearest", "ops.aten.upsample_nearest2d(a, None, [2.5, 2.5])"})) {
                Tensor leaf = Inputs.randn(rng, DType.FLOAT32, 2, 3, 4, 5).requiresGrad(true);
                Tensor y = switch (c[0]) {
                    case "bilinear" -> F.interpolate(leaf, null, new double[] {1.5}, "bilinear", false, null);
                    case "bilinear corners" -> F.interpolate(leaf, new int[] {7, 3}, null, "bilinear", true, null);
                    default -> F.interpolate(leaf, 2.5, "nearest");
                };
                Tensor v = Inputs.randn(rng, DType.FLOAT32, y.shape());
                y.backward(v);
                assertClose(leaf.grad(), Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\ngo: List[Optional[Tensor]] = [b]\n"
                        + "return torch.autograd.grad([" + c[1] + "], [a], go)", leaf.detach(), v).head(), "backward " + c[0], Tolerance.of(1e-5, 1e-5));
            }
        }
    }

    @Test
    void badCallsFailAsPyTorchsDo() {
        Tensor x = Tensor.randn(1, 2, 4, 4);
        assertMessage("only one of size or scale_factor should be defined", () -> F.interpolate(x, new int[] {8, 8}, new double[] {2}, "nearest", null, null));
        assertMessage("either size or scale_factor should be defined", () -> F.interpolate(x, null, null, "nearest", null, null));
        assertMessage("align_corners option can only be set with the interpolating modes", () -> F.interpolate(x, null, new double[] {2}, "nearest", true, null));
        assertMessage("Got 4D input, but linear mode needs 3D input", () -> F.interpolate(x, 2.0, "linear"));
        assertMessage("Got 3D input, but bilinear mode needs 4D input", () -> F.interpolate(Tensor.randn(1, 2, 4), 2.0, "bilinear"));
        assertMessage("Only 3D, 4D and 5D input Tensors supported (got 2D)", () -> F.interpolate(Tensor.randn(4, 4), 2.0, "nearest"));
        assertMessage("Input and output must have the same number of spatial dimensions", () -> F.interpolate(x, new int[] {2, 3, 4}, "nearest"));
        assertMessage("recompute_scale_factor is not meaningful with an explicit size", () -> F.interpolate(x, new int[] {8, 8}, null, "nearest", null, true));
        try (NDManager m = Torch.scope()) {
            refused(m, "output size 0", () -> F.interpolate(x, 0.1, "nearest"), "ops.aten.upsample_nearest2d(a, None, [0.1, 0.1])", x);
            Tensor ints = Tensor.zeros(DType.INT64, 1, 2, 2, 2);   // not channels-last too: libtorch names its generic kernel
            refused(m, "int64", () -> F.interpolate(ints, new int[] {3, 3}, null, "bilinear", false, null), "ops.aten.upsample_bilinear2d(a, [3, 3], False, None)", ints);
            refused(m, "int64 nearest", () -> F.interpolate(ints, new int[] {3, 3}, "nearest"), "ops.aten.upsample_nearest2d(a, [3, 3], None)", ints);
            Tensor ints1 = Tensor.zeros(DType.INT64, 1, 1, 2);
            refused(m, "int64 linear", () -> F.interpolate(ints1, new int[] {3}, null, "linear", false, null), "ops.aten.upsample_linear1d(a, [3], False, None)", ints1);
            refused(m, "int64 nearest1d", () -> F.interpolate(ints1, new int[] {3}, "nearest"), "ops.aten.upsample_nearest1d(a, [3], None)", ints1);
        }
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
        RuntimeException e = assertThrows(RuntimeException.class, call);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    /** docs/tensors.md, "nn", the interpolate example as written there. */
    @Test
    void docsExample() {
        Tensor img = Tensor.arange(0, 4, 1).to(DType.FLOAT32).reshape(1, 1, 2, 2);   // [[0, 1], [2, 3]]
        Tensor big = F.interpolate(img, 2.0, "nearest");                    // 4×4: each pixel twice in each dim
        Tensor smooth = F.interpolate(img, new int[] {3, 3}, null, "bilinear", true, null);   // middle pixel 1.5
        Tensor wide = new Upsample(new int[] {2, 4}, null, "bilinear", false).forward(img);  // row 0: 0, 0.25, 0.75, 1
        assertArrayEquals(new float[] {0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3}, big.toFloatArray());
        assertEquals(1.5, smooth.get(0, 0, 1, 1));
        assertArrayEquals(new float[] {0, 0.25f, 0.75f, 1}, wide.select(2, 0).reshape(-1).toFloatArray());
    }

    @Test
    void upsampleModuleIsInterpolate() {
        Tensor x = Tensor.randn(1, 2, 3, 3);
        Upsample up = new Upsample(2.0, "bilinear");
        assertEquals("Upsample(scale_factor=2.0, mode='bilinear')", up.toString());
        assertArrayEquals(F.interpolate(x, null, new double[] {2}, "bilinear", null, null).toFloatArray(), up.forward(x).toFloatArray());
        assertEquals("Upsample(size=(5, 4), mode='nearest')", new Upsample(new int[] {5, 4}, null, "nearest", null).toString());
    }

    // ------------------------------------------------------------------ under Ember.compile

    static Tensor resample(Tensor x) {
        Tensor a = F.interpolate(x, 2.0, "nearest");
        Tensor b = F.interpolate(x, null, new double[] {1.5}, "bilinear", false, null);
        Tensor c = F.interpolate(x.relu(), new int[] {7, 5}, null, "bilinear", true, null);
        Tensor l = F.interpolate(x.flatten(2, 3), null, new double[] {0.7}, "linear", true, null);
        return Tensor.cat(List.of(a.reshape(-1), b.reshape(-1), c.reshape(-1), l.reshape(-1)), 0);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        Tensor.manualSeed(3);
        Tensor x = Tensor.randn(2, 3, 4, 6);
        ExplainOutput e = Ember.explain((Fn1<Tensor, Tensor>) UpsampleTest::resample).with(x);
        assertEquals(0, e.graphBreakCount(), e.toString());
        Fn1<Tensor, Tensor> f = Ember.compile(UpsampleTest::resample, Options.backend(backend).fullgraph(true));
        assertArrayEquals(resample(x).toFloatArray(), f.apply(x).toFloatArray(), 1e-6f, backend);
        Tensor ex = x.to(DType.FLOAT64).requiresGrad(true), cx = x.to(DType.FLOAT64).requiresGrad(true);
        Tensor w = Tensor.randn(resample(x).numel()).to(DType.FLOAT64);
        resample(ex).mul(w).sum().backward();
        f.apply(cx).mul(w).sum().backward();
        assertArrayEquals(ex.grad().toDoubleArray(), cx.grad().toDoubleArray(), 1e-12, backend + " gradients");
    }
}
