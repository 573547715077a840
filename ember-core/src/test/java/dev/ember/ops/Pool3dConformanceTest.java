package dev.ember.ops;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.ops.LinalgOpsTest.assertSameError;
import static dev.ember.testing.TorchAssert.assertClose;

/**
 * max_pool3d (with indices) and avg_pool3d against libtorch: values, indices and gradients over
 * kernels, strides, padding, dilation, ceil mode, count_include_pad, divisor_override, unbatched
 * and non-contiguous inputs, NaN and integer inputs, and libtorch's messages for bad input.
 */
class Pool3dConformanceTest {
    private static final OpOverload MAX = OpRegistry.get("aten.max_pool3d_with_indices.default");
    private static final OpOverload MAX_POOL3D = OpRegistry.get("aten.max_pool3d.default");
    private static final OpOverload AVG = OpRegistry.get("aten.avg_pool3d.default");

    private static int[] v(int... values) { return values; }

    /** kernel, stride, padding, dilation, ceil_mode. */
    record MaxCase(int[] input, int[] kernel, int[] stride, int[] padding, int[] dilation, boolean ceil) {}

    private static final List<MaxCase> MAX_CASES = List.of(
            new MaxCase(v(2, 3, 4, 6, 5), v(2, 2, 2), v(), v(0), v(1), false),
            new MaxCase(v(2, 3, 5, 6, 7), v(3, 2, 3), v(2, 1, 2), v(1, 1, 1), v(1, 1, 1), true),
            new MaxCase(v(1, 2, 7, 6, 8), v(2, 3, 2), v(2, 2, 3), v(1, 1, 0), v(2, 1, 3), false),
            new MaxCase(v(2, 5, 6, 5), v(3), v(2), v(1), v(1), true));                      // unbatched

    private static final String MAX_GRADIENT = """
            x = a.detach().requires_grad_(True)
            y = torch.max_pool3d(x, c, d, e, f, g)
            go: List[Optional[Tensor]] = [b]
            return torch.autograd.grad([y], [x], go)""";

    @Test
    void maxPoolValuesIndicesAndGradientsMatchLibtorch() {
        Random rng = new Random(3301);
        try (NDManager m = Torch.scope()) {
            for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT64}) {
                for (MaxCase k : MAX_CASES) {
                    Tensor x = dtype.isFloatingPoint() ? Inputs.randn(rng, dtype, k.input()) : Inputs.randint(rng, dtype, -50, 50, k.input());
                    String ctx = dtype + " " + java.util.Arrays.toString(k.input()) + " kernel " + java.util.Arrays.toString(k.kernel());
                    for (Inputs.Layout lx : Inputs.layouts(x).subList(0, 2)) {
                        List<Tensor> got = MAX.callList(lx.tensor(), k.kernel(), k.stride(), k.padding(), k.dilation(), k.ceil());
                        NDList expected = Torch.callList(m, "torch.max_pool3d_with_indices(a, b, c, d, e, f)", lx.tensor(), k.kernel(), k.stride(),
                                k.padding(), k.dilation(), k.ceil());
                        assertClose(got, expected, "max_pool3d_with_indices " + ctx + " x " + lx, Tolerance.EXACT);
                        assertClose(MAX_POOL3D.callTensor(lx.tensor(), k.kernel(), k.stride(), k.padding(), k.dilation(), k.ceil()), expected.get(0),
                                "max_pool3d " + ctx, Tolerance.EXACT);
                    }
                    if (dtype != DType.FLOAT64) continue;
                    Tensor y = MAX_POOL3D.callTensor(x, k.kernel(), k.stride(), k.padding(), k.dilation(), k.ceil());
                    Tensor gy = Inputs.randn(rng, dtype, y.shape());
                    Tensor leaf = x.detach().requiresGrad(true);
                    MAX_POOL3D.callTensor(leaf, k.kernel(), k.stride(), k.padding(), k.dilation(), k.ceil()).mul(gy).sum().backward();
                    assertClose(List.of(leaf.grad()), Torch.callListWithGrad(m, MAX_GRADIENT, x, gy, k.kernel(), k.stride(), k.padding(), k.dilation(), k.ceil()),
                            "max_pool3d gradient " + ctx);
                }
            }
            // NaN wins its window (the last NaN), as in ATen's kernel
            Tensor nan = Tensor.of(new double[] {1, Double.NaN, 3, 4, 5, Double.NaN, 0, 2}, 1, 1, 2, 2, 2);
            assertClose(MAX.callList(nan, v(2), v(), v(0), v(1), false), Torch.callList(m, "torch.max_pool3d_with_indices(a, [2])", nan),
                    "NaN", Tolerance.EXACT);
        }
    }

    /** kernel, stride, padding, ceil_mode, count_include_pad, divisor_override. */
    record AvgCase(int[] input, int[] kernel, int[] stride, int[] padding, boolean ceil, boolean countPad, Integer divisor) {}

    private static final List<AvgCase> AVG_CASES = List.of(
            new AvgCase(v(2, 3, 4, 6, 5), v(2, 2, 2), v(), v(0), false, true, null),
            new AvgCase(v(2, 3, 5, 6, 7), v(3, 2, 3), v(2, 1, 2), v(1, 1, 1), true, false, null),
            new AvgCase(v(1, 2, 5, 6, 7), v(3, 2, 3), v(2, 1, 2), v(1, 1, 1), true, true, null),
            new AvgCase(v(2, 6, 5, 6), v(3), v(2), v(1), false, true, 5));                   // unbatched, divisor

    private static final String AVG_GRADIENT = """
            x = a.detach().requires_grad_(True)
            y = torch.avg_pool3d(x, c, d, e, f, g)
            go: List[Optional[Tensor]] = [b]
            return torch.autograd.grad([y], [x], go)""";

    @Test
    void avgPoolValuesAndGradientsMatchLibtorch() {
        Random rng = new Random(3302);
        try (NDManager m = Torch.scope()) {
            for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
                for (AvgCase k : AVG_CASES) {
                    Tensor x = Inputs.randn(rng, dtype, k.input());
                    Long divisor = k.divisor() == null ? null : (long) k.divisor();
                    String ctx = dtype + " " + k;
                    for (Inputs.Layout lx : Inputs.layouts(x).subList(0, 2)) {
                        Tensor got = AVG.callTensor(lx.tensor(), k.kernel(), k.stride(), k.padding(), k.ceil(), k.countPad(), divisor);
                        String expr = divisor == null ? "torch.avg_pool3d(a, b, c, d, e, f)" : "torch.avg_pool3d(a, b, c, d, e, f, g)";
                        assertClose(got, divisor == null
                                ? Torch.call(m, expr, lx.tensor(), k.kernel(), k.stride(), k.padding(), k.ceil(), k.countPad())
                                : Torch.call(m, expr, lx.tensor(), k.kernel(), k.stride(), k.padding(), k.ceil(), k.countPad(), divisor), "avg_pool3d " + ctx + " x " + lx);
                    }
                    if (dtype != DType.FLOAT64 || divisor != null) continue;
                    Tensor y = AVG.callTensor(x, k.kernel(), k.stride(), k.padding(), k.ceil(), k.countPad(), null);
                    Tensor gy = Inputs.randn(rng, dtype, y.shape());
                    Tensor leaf = x.detach().requiresGrad(true);
                    AVG.callTensor(leaf, k.kernel(), k.stride(), k.padding(), k.ceil(), k.countPad(), null).mul(gy).sum().backward();
                    assertClose(List.of(leaf.grad()), Torch.callListWithGrad(m, AVG_GRADIENT, x, gy, k.kernel(), k.stride(), k.padding(), k.ceil(), k.countPad()),
                            "avg_pool3d gradient " + ctx);
                }
            }
            // integers: sums divided as ATen divides them, truncating
            Tensor xi = Inputs.randint(rng, DType.INT64, -50, 50, 2, 3, 5, 6, 7);
            assertClose(AVG.callTensor(xi, v(3, 2, 3), v(2, 1, 2), v(1, 1, 1), true, false, null),
                    Torch.call(m, "torch.avg_pool3d(a, [3, 2, 3], [2, 1, 2], [1, 1, 1], True, False)", xi), "avg_pool3d int64", Tolerance.EXACT);
        }
    }

    private static final String ADAPTIVE_GRADIENT = """
            x = a.detach().requires_grad_(True)
            y = torch.adaptive_avg_pool3d(x, c)
            go: List[Optional[Tensor]] = [b]
            return torch.autograd.grad([y], [x], go)""";

    @Test
    void adaptiveAvgPoolValuesAndGradientsMatchLibtorch() {
        Random rng = new Random(3303);
        OpOverload adaptive = OpRegistry.get("aten.adaptive_avg_pool3d.default");
        try (NDManager m = Torch.scope()) {
            for (int[][] k : new int[][][] {{v(2, 3, 5, 7, 6), v(3, 4, 2)}, {v(2, 4, 4, 5), v(3, 2, 5)}, {v(1, 2, 3, 4, 5), v(1, 1, 1)}, {v(1, 2, 3, 4, 5), v(6, 5, 7)}}) {
                for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
                    Tensor x = Inputs.randn(rng, dtype, k[0]);
                    String ctx = dtype + " " + java.util.Arrays.toString(k[0]) + " to " + java.util.Arrays.toString(k[1]);
                    for (Inputs.Layout lx : Inputs.layouts(x).subList(0, 2)) {
                        assertClose(adaptive.callTensor(lx.tensor(), k[1]), Torch.call(m, "torch.adaptive_avg_pool3d(a, b)", lx.tensor(), k[1]), "adaptive " + ctx + " x " + lx);
                    }
                    if (dtype != DType.FLOAT64) continue;
                    Tensor gy = Inputs.randn(rng, dtype, adaptive.callTensor(x, k[1]).shape());
                    Tensor leaf = x.detach().requiresGrad(true);
                    adaptive.callTensor(leaf, k[1]).mul(gy).sum().backward();
                    assertClose(List.of(leaf.grad()), Torch.callListWithGrad(m, ADAPTIVE_GRADIENT, x, gy, k[1]), "adaptive gradient " + ctx);
                }
            }
        }
        String op = "aten.adaptive_avg_pool3d.default";
        assertSameError("torch.adaptive_avg_pool3d(a, b)", op, Tensor.ones(1, 2, 4, 4, 4), v(2, 2));
        assertSameError("torch.adaptive_avg_pool3d(a, b)", op, Tensor.ones(1, 2, 4, 4, 4), v(2, -1, 2));
        assertSameError("torch.adaptive_avg_pool3d(a, b)", op, Tensor.ones(4, 4, 4), v(2, 2, 2));
        assertSameError("torch.adaptive_avg_pool3d(a, b)", op, Tensor.ones(1, 0, 4, 4, 4), v(2, 2, 2));
        assertSameError("torch.adaptive_avg_pool3d(a, b)", op, Tensor.ones(DType.INT64, 1, 2, 4, 4, 4), v(2, 2, 2));
    }

    @Test
    void badInputRaisesLibtorchsMessages() {
        String max = "aten.max_pool3d_with_indices.default", avg = "aten.avg_pool3d.default";
        Tensor x = Tensor.ones(1, 2, 4, 4, 4);
        assertSameError("torch.max_pool3d_with_indices(a, b)", max, x, v(2, 2));
        assertSameError("torch.max_pool3d_with_indices(a, b, c)", max, x, v(2), v(1, 1));
        assertSameError("torch.max_pool3d_with_indices(a, b, c, d)", max, x, v(2), v(2), v(2));
        assertSameError("torch.max_pool3d_with_indices(a, b, c, d, e)", max, x, v(2), v(2), v(0), v(0));
        assertSameError("torch.max_pool3d_with_indices(a, b)", max, Tensor.ones(4, 4, 4), v(2));
        assertSameError("torch.max_pool3d_with_indices(a, b)", max, Tensor.ones(1, 2, 0, 4, 4), v(2));
        assertSameError("torch.max_pool3d_with_indices(a, b)", max, x, v(5));
        assertSameError("torch.max_pool3d_with_indices(a, b)", max, Tensor.ones(DType.BOOL, 1, 2, 4, 4, 4), v(2));
        assertSameError("torch.avg_pool3d(a, b)", avg, x, v(2, 2));
        assertSameError("torch.avg_pool3d(a, b, c, d)", avg, x, v(2), v(2), v(2));
        assertSameError("torch.avg_pool3d(a, b)", avg, x, v(5));
        assertSameError("torch.avg_pool3d(a, b, c, d, e, f, g)", avg, x, v(2), v(2), v(0), false, true, 0L);
        assertSameError("torch.avg_pool3d(a, b)", avg, Tensor.ones(4, 4, 4), v(2));
        assertSameError("torch.avg_pool3d(a, b)", avg, Tensor.ones(DType.INT32, 1, 2, 4, 4, 4), v(2));
    }
}
