package dev.ember.ops;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;

/** conv2d and convolution against libtorch: strides, padding, dilation, groups, bias, layouts, dtypes, empty inputs. */
class ConvConformanceTest {
    private static final OpOverload CONV2D = OpRegistry.get("aten.conv2d.default");
    private static final OpOverload CONVOLUTION = OpRegistry.get("aten.convolution.default");

    /** One conv2d configuration: input shape, weight shape, stride, padding, dilation, groups (also {@link ConvBackwardSweepTest}'s). */
    record Case(int[] input, int[] weight, int[] stride, int[] padding, int[] dilation, int groups) {
        @Override
        public String toString() {
            return "input " + Arrays.toString(input) + " weight " + Arrays.toString(weight) + " stride " + Arrays.toString(stride)
                    + " padding " + Arrays.toString(padding) + " dilation " + Arrays.toString(dilation) + " groups " + groups;
        }
    }

    static Case c(int[] input, int[] weight, int[] stride, int[] padding, int[] dilation, int groups) {
        return new Case(input, weight, stride, padding, dilation, groups);
    }

    private static final Case[] CASES = {
            c(new int[] {2, 3, 7, 6}, new int[] {4, 3, 3, 3}, new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1}, 1),
            c(new int[] {2, 3, 7, 6}, new int[] {4, 3, 3, 2}, new int[] {2, 1}, new int[] {1, 2}, new int[] {1, 1}, 1),
            c(new int[] {1, 2, 9, 8}, new int[] {3, 2, 3, 3}, new int[] {1, 2}, new int[] {2, 1}, new int[] {2, 3}, 1),
            c(new int[] {2, 4, 6, 6}, new int[] {6, 2, 3, 3}, new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 2),
            c(new int[] {2, 4, 6, 5}, new int[] {4, 1, 3, 3}, new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 4),
            c(new int[] {2, 3, 7, 7}, new int[] {6, 1, 3, 2}, new int[] {2, 3}, new int[] {1, 0}, new int[] {2, 1}, 3),
            c(new int[] {2, 5, 4, 6}, new int[] {3, 5, 1, 1}, new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1}, 1),
            c(new int[] {1, 4, 5, 5}, new int[] {2, 2, 1, 1}, new int[] {2, 2}, new int[] {1, 0}, new int[] {1, 1}, 2),
            c(new int[] {2, 4, 5, 3}, new int[] {6, 2, 1, 1}, new int[] {1, 1}, new int[] {0, 0}, new int[] {2, 2}, 2),
            c(new int[] {1, 2, 3, 3}, new int[] {2, 2, 3, 3}, new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1}, 1),
            c(new int[] {3, 1, 1, 1}, new int[] {2, 1, 1, 1}, new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1}, 1),
            c(new int[] {0, 3, 5, 5}, new int[] {2, 3, 3, 3}, new int[] {1, 1}, new int[] {1, 1}, new int[] {1, 1}, 1),
            c(new int[] {2, 0, 5, 5}, new int[] {2, 0, 3, 3}, new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1}, 1),
    };

    private static Tensor random(Random rng, DType dtype, int... shape) {
        return dtype.isFloatingPoint() ? Inputs.randn(rng, dtype, shape) : Inputs.randint(rng, dtype, -4, 5, shape);
    }

    @Test
    void conv2dEveryConfigurationDtypeAndLayout() {
        Random rng = new Random(20);
        try (NDManager m = Torch.scope()) {
            for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.INT64}) {
                for (Case k : CASES) {
                    if (dtype == DType.INT32 && (k.dilation[0] != 1 || k.dilation[1] != 1)) continue; // libtorch: no int32 dilated kernel
                    Tensor x = random(rng, dtype, k.input), w = random(rng, dtype, k.weight), b = random(rng, dtype, k.weight[0]);
                    // every layout for float32; the others run the same kernels, so two layouts suffice
                    List<Inputs.Layout> xs = dtype == DType.FLOAT32 ? Inputs.layouts(x) : Inputs.layouts(x).subList(0, 2);
                    List<Inputs.Layout> ws = dtype == DType.FLOAT32
                            ? List.of(new Inputs.Layout("contiguous", w), new Inputs.Layout("reversed", Inputs.layout(w, new int[] {3, 2, 1, 0}, 1, 0)))
                            : List.of(new Inputs.Layout("contiguous", w));
                    for (Inputs.Layout lx : xs) {
                        for (Inputs.Layout lw : ws) {
                            String ctx = "conv2d " + dtype + " " + k + " x " + lx + " w " + lw;
                            assertClose(CONV2D.callTensor(lx.tensor(), lw.tensor(), b, k.stride, k.padding, k.dilation, k.groups),
                                    Torch.call(m, "torch.conv2d(a, b, c, d, e, f, g)", lx.tensor(), lw.tensor(), b, k.stride, k.padding, k.dilation, k.groups), ctx);
                        }
                    }
                    assertClose(CONV2D.callTensor(x, w, null, k.stride, k.padding, k.dilation, k.groups),
                            Torch.call(m, "torch.conv2d(a, b, None, c, d, e, f)", x, w, k.stride, k.padding, k.dilation, k.groups), "conv2d no bias " + dtype + " " + k);
                }
            }
        }
    }

    @Test
    void unbatchedInputAndScalarParameters() {
        Random rng = new Random(21);
        try (NDManager m = Torch.scope()) {
            Tensor x = Inputs.randn(rng, DType.FLOAT32, 3, 8, 7), w = Inputs.randn(rng, DType.FLOAT32, 5, 3, 3, 3), b = Inputs.randn(rng, DType.FLOAT32, 5);
            Tensor out = CONV2D.callTensor(x, w, b, 2, 1, 1, 1);
            assertClose(out, Torch.call(m, "torch.conv2d(a, b, c, 2, 1, 1, 1)", x, w, b), "unbatched");
            assertClose(CONV2D.callTensor(x, w), Torch.call(m, "torch.conv2d(a, b)", x, w), "defaults");
            Tensor pointwise = Inputs.randn(rng, DType.FLOAT32, 4, 3, 1, 1);
            for (Tensor in : new Tensor[] {x, Inputs.transposed(x)}) {
                assertClose(CONV2D.callTensor(in, pointwise, b.slice(0, 0, 4, 1)), Torch.call(m, "torch.conv2d(a, b, c)", in, pointwise, b.slice(0, 0, 4, 1)),
                        "unbatched 1x1 (input planes read in place when they can be), strides " + Arrays.toString(in.strides()));
            }
            Tensor empty = Inputs.randn(rng, DType.FLOAT32, 0, 8, 7), w0 = Inputs.randn(rng, DType.FLOAT32, 5, 0, 3, 3);
            assertClose(CONV2D.callTensor(empty, w0, b), Torch.call(m, "torch.conv2d(a, b, c)", empty, w0, b), "unbatched zero channels");
        }
    }

    @Test
    void convolutionOpDirectly() {
        Random rng = new Random(22);
        try (NDManager m = Torch.scope()) {
            Tensor x = Inputs.randn(rng, DType.FLOAT64, 2, 4, 6, 7), w = Inputs.randn(rng, DType.FLOAT64, 6, 2, 2, 3), b = Inputs.randn(rng, DType.FLOAT64, 6);
            assertClose(CONVOLUTION.callTensor(x, w, b, new int[] {2}, new int[] {1, 0}, new int[] {1}, false, new int[] {0}, 2),
                    Torch.call(m, "torch.convolution(a, b, c, [2], [1, 0], [1], False, [0], 2)", x, w, b), "convolution, one-value lists");
        }
    }

    @Test
    void largeConvolutionsMatchAFloat64Reference() {
        Random rng = new Random(23);
        Tolerance f32 = Tolerance.of(1e-5, 1e-4);
        try (NDManager m = Torch.scope()) {
            // per-image GEMMs big enough for OpenBLAS threads, after a parallel im2col (stride 2: stride 1 runs the direct kernel)
            Tensor x = Inputs.randn(rng, DType.FLOAT32, 2, 16, 48, 40), w = Inputs.randn(rng, DType.FLOAT32, 32, 16, 3, 3), b = Inputs.randn(rng, DType.FLOAT32, 32);
            assertClose(CONV2D.callTensor(x, w, b, 2, 1), Torch.call(m, "torch.conv2d(a.double(), b.double(), c.double(), 2, 1).float()", x, w, b), "threaded GEMMs", f32);
            // grouped, several images per wide GEMM
            Tensor xg = Inputs.randn(rng, DType.FLOAT32, 3, 16, 40, 40), wg = Inputs.randn(rng, DType.FLOAT32, 32, 8, 3, 3);
            assertClose(CONV2D.callTensor(xg, wg, b, 2, 1, 1, 2), Torch.call(m, "torch.conv2d(a.double(), b.double(), c.double(), 2, 1, 1, 2).float()", xg, wg, b),
                    "grouped threaded GEMMs", f32);
            // many small images, one per core
            Tensor xs = Inputs.randn(rng, DType.FLOAT32, 9, 3, 12, 12), ws = Inputs.randn(rng, DType.FLOAT32, 8, 3, 5, 5);
            assertClose(CONV2D.callTensor(xs, ws, null, 2, 2), Torch.call(m, "torch.conv2d(a.double(), b.double(), None, 2, 2).float()", xs, ws), "images in parallel", f32);
            // pointwise, channels-last input read in place
            Tensor cl = Inputs.layout(Inputs.randn(rng, DType.FLOAT32, 3, 24, 10, 9), new int[] {0, 2, 3, 1}, 1, 0), w1 = Inputs.randn(rng, DType.FLOAT32, 40, 24, 1, 1);
            assertClose(CONV2D.callTensor(cl, w1), Torch.call(m, "torch.conv2d(a.double(), b.double()).float()", cl, w1), "1x1 channels-last", f32);
            // depthwise with a channel multiplier
            Tensor xd = Inputs.randn(rng, DType.FLOAT32, 2, 16, 20, 20), wd = Inputs.randn(rng, DType.FLOAT32, 32, 1, 3, 3), bd = Inputs.randn(rng, DType.FLOAT32, 32);
            assertClose(CONV2D.callTensor(xd, wd, bd, 1, 1, 1, 16), Torch.call(m, "torch.conv2d(a.double(), b.double(), c.double(), 1, 1, 1, 16).float()", xd, wd, bd),
                    "depthwise", f32);
        }
    }

    /**
     * The direct float32 kernel (stride 1, kernels above 1x1): several pixel tiles per image and a
     * last partial one, output channels that do not fill a register block, groups, dilation,
     * unequal and large padding, non-square kernels, strided inputs, one image split across cores.
     */
    @Test
    void directKernelMatchesAFloat64Reference() {
        Random rng = new Random(24);
        Tolerance f32 = Tolerance.of(1e-5, 1e-4);
        record Direct(int[] input, int[] weight, int[] padding, int[] dilation, int groups, boolean bias) {}
        Direct[] cases = {
                new Direct(new int[] {3, 16, 30, 27}, new int[] {12, 16, 3, 3}, new int[] {1, 1}, new int[] {1, 1}, 1, true),
                new Direct(new int[] {1, 24, 33, 31}, new int[] {21, 8, 3, 3}, new int[] {2, 0}, new int[] {2, 1}, 3, true),
                new Direct(new int[] {2, 6, 17, 40}, new int[] {9, 6, 5, 2}, new int[] {4, 3}, new int[] {1, 2}, 1, false),
                new Direct(new int[] {1, 64, 56, 56}, new int[] {64, 64, 3, 3}, new int[] {1, 1}, new int[] {1, 1}, 1, false),
                new Direct(new int[] {2, 8, 12, 12}, new int[] {3, 8, 3, 1}, new int[] {0, 5}, new int[] {1, 1}, 1, true),
        };
        try (NDManager m = Torch.scope()) {
            for (Direct k : cases) {
                Tensor x = Inputs.randn(rng, DType.FLOAT32, k.input), w = Inputs.randn(rng, DType.FLOAT32, k.weight);
                Tensor b = k.bias ? Inputs.randn(rng, DType.FLOAT32, k.weight[0]) : null;
                int[] stride = {1, 1};
                for (Tensor in : new Tensor[] {x, Inputs.layout(x, new int[] {0, 2, 3, 1}, 1, 0)}) {
                    String ctx = "direct conv2d input " + Arrays.toString(k.input) + " weight " + Arrays.toString(k.weight) + " padding " + Arrays.toString(k.padding)
                            + " dilation " + Arrays.toString(k.dilation) + " groups " + k.groups + " input strides " + Arrays.toString(in.strides());
                    NDArray expected = b == null
                            ? Torch.call(m, "torch.conv2d(a.double(), b.double(), None, c, d, e, f).float()", in, w, stride, k.padding, k.dilation, k.groups)
                            : Torch.call(m, "torch.conv2d(a.double(), b.double(), c.double(), d, e, f, g).float()", in, w, b, stride, k.padding, k.dilation, k.groups);
                    assertClose(CONV2D.callTensor(in, w, b, stride, k.padding, k.dilation, k.groups), expected, ctx, f32);
                }
            }
        }
    }
}
