package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;

/** max_pool2d, avg_pool2d and adaptive_avg_pool2d against libtorch: every option, layouts, dtypes, unbatched and empty inputs. */
class PoolConformanceTest {
    private static final OpOverload MAX = OpRegistry.get("aten.max_pool2d.default");
    private static final OpOverload AVG = OpRegistry.get("aten.avg_pool2d.default");
    private static final OpOverload ADAPTIVE = OpRegistry.get("aten.adaptive_avg_pool2d.default");

    /** kernel, stride ([] = kernel), padding, dilation. */
    private static final int[][][] WINDOWS = {
            {{2, 2}, {}, {0, 0}, {1, 1}},
            {{3, 3}, {2, 2}, {1, 1}, {1, 1}},
            {{3, 2}, {2, 1}, {1, 0}, {2, 1}},
            {{2, 3}, {3, 2}, {1, 1}, {1, 1}},
            {{1, 1}, {2, 3}, {0, 0}, {1, 1}},
            {{2, 2}, {1, 1}, {1, 1}, {2, 2}},
            {{4, 3}, {3, 3}, {2, 1}, {1, 1}},
    };

    private static final int[][] SHAPES = {{2, 3, 9, 8}, {3, 7, 7}, {1, 2, 5, 4}};

    private static Tensor random(Random rng, DType dtype, int... shape) {
        return dtype.isFloatingPoint() ? Inputs.randn(rng, dtype, shape) : Inputs.randint(rng, dtype, -20, 20, shape);
    }

    /**
     * The layouts to try for one window: all of them for float32 on the first two windows (the
     * kernels read any strides the same way for every window and dtype), else the contiguous one.
     */
    private static List<Inputs.Layout> layouts(DType dtype, Tensor x, int window) {
        return dtype == DType.FLOAT32 && window < 2 ? Inputs.layouts(x) : Inputs.layouts(x).subList(0, 1);
    }

    @Test
    void maxPoolEveryWindowDtypeAndLayout() {
        Random rng = new Random(40);
        try (NDManager m = Torch.scope()) {
            for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.INT64}) {
                for (int[] shape : SHAPES) {
                    Tensor x = random(rng, dtype, shape);
                    for (int i = 0; i < WINDOWS.length; i++) {
                        int[][] w = WINDOWS[i];
                        for (Inputs.Layout lx : layouts(dtype, x, i)) {
                            for (boolean ceil : new boolean[] {false, true}) {
                                String ctx = "max_pool2d " + dtype + " " + lx + " window " + Arrays.deepToString(w) + " ceil " + ceil;
                                assertClose(MAX.callTensor(lx.tensor(), w[0], w[1], w[2], w[3], ceil),
                                        Torch.call(m, "torch.max_pool2d(a, b, c, d, e, f)", lx.tensor(), w[0], w[1], w[2], w[3], ceil), ctx);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void maxPoolPropagatesNaNAndKeepsInfinities() {
        try (NDManager m = Torch.scope()) {
            for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
                Tensor specials = Inputs.specials(dtype);
                Tensor x = specials.slice(0, 0, 12, 1).reshape(1, 1, 3, 4);
                for (int[][] w : new int[][][] {{{2, 2}, {1, 1}, {0, 0}, {1, 1}}, {{3, 3}, {1, 1}, {1, 1}, {1, 1}}}) {
                    assertClose(MAX.callTensor(x, w[0], w[1], w[2], w[3], false), Torch.call(m, "torch.max_pool2d(a, b, c, d, e)", x, w[0], w[1], w[2], w[3]),
                            "max_pool2d specials " + dtype + " " + Arrays.deepToString(w));
                }
            }
            Tensor ints = Inputs.specials(DType.INT64).slice(0, 0, 6, 1).reshape(1, 2, 3);
            assertClose(MAX.callTensor(ints, new int[] {2, 2}, new int[] {1, 1}, new int[] {1, 1}),
                    Torch.call(m, "torch.max_pool2d(a, [2, 2], [1, 1], [1, 1])", ints), "max_pool2d int64 extremes");
        }
    }

    @Test
    void avgPoolEveryOption() {
        Random rng = new Random(41);
        try (NDManager m = Torch.scope()) {
            for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT64}) {
                for (int[] shape : SHAPES) {
                    Tensor x = random(rng, dtype, shape);
                    for (int i = 0; i < WINDOWS.length; i++) {
                        int[][] w = WINDOWS[i];
                        for (Inputs.Layout lx : layouts(dtype, x, i)) {
                            for (boolean ceil : new boolean[] {false, true}) {
                                for (boolean includePad : new boolean[] {true, false}) {
                                    String ctx = "avg_pool2d " + dtype + " " + lx + " window " + Arrays.deepToString(w) + " ceil " + ceil + " count_include_pad " + includePad;
                                    assertClose(AVG.callTensor(lx.tensor(), w[0], w[1], w[2], ceil, includePad),
                                            Torch.call(m, "torch.avg_pool2d(a, b, c, d, e, f)", lx.tensor(), w[0], w[1], w[2], ceil, includePad), ctx);
                                }
                                assertClose(AVG.callTensor(lx.tensor(), w[0], w[1], w[2], ceil, true, 3),
                                        Torch.call(m, "torch.avg_pool2d(a, b, c, d, e, True, 3)", lx.tensor(), w[0], w[1], w[2], ceil),
                                        "avg_pool2d divisor_override " + dtype + " " + lx + " " + Arrays.deepToString(w) + " ceil " + ceil);
                            }
                        }
                    }
                }
            }
            Tensor x = Inputs.randint(rng, DType.INT64, -20, 20, 1, 5, 5);
            assertClose(AVG.callTensor(x, new int[] {2, 2}, new int[] {}, new int[] {1, 1}, false, true, -2),
                    Torch.call(m, "torch.avg_pool2d(a, [2, 2], [], [1, 1], False, True, -2)", x), "avg_pool2d negative divisor truncates");
        }
    }

    @Test
    void adaptiveAvgPoolEveryOutputSize() {
        Random rng = new Random(42);
        try (NDManager m = Torch.scope()) {
            for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
                for (int[] shape : new int[][] {{2, 3, 7, 5}, {3, 6, 6}, {1, 2, 3, 3}}) {
                    Tensor x = random(rng, dtype, shape);
                    for (Inputs.Layout lx : layouts(dtype, x, 0)) {
                        for (int[] size : new int[][] {{1, 1}, {3, 2}, {2, 5}, {4, 4}, {7, 1}, {0, 2}}) {
                            assertClose(ADAPTIVE.callTensor(lx.tensor(), size), Torch.call(m, "torch.adaptive_avg_pool2d(a, b)", lx.tensor(), size),
                                    "adaptive_avg_pool2d " + dtype + " " + lx + " to " + Arrays.toString(size));
                        }
                    }
                }
            }
            for (int[] shape : new int[][] {{5, 6}, {2, 3, 2, 4, 5}, {2, 0, 4}, {0, 3, 4, 4}}) {
                Tensor x = Inputs.randn(rng, DType.FLOAT32, shape);
                assertClose(ADAPTIVE.callTensor(x, new int[] {1, 1}), Torch.call(m, "torch.adaptive_avg_pool2d(a, [1, 1])", x), "adaptive (1, 1) = mean " + Arrays.toString(shape));
            }
            Tensor longs = Inputs.randint(rng, DType.INT64, 0, 9, 2, 4, 4);
            assertClose(ADAPTIVE.callTensor(longs, new int[] {0, 3}), Torch.call(m, "torch.adaptive_avg_pool2d(a, [0, 3])", longs), "adaptive empty output of int64");
        }
    }

    @Test
    void emptyBatchesAndScalarParameters() {
        Random rng = new Random(43);
        try (NDManager m = Torch.scope()) {
            Tensor empty = Inputs.randn(rng, DType.FLOAT32, 0, 3, 6, 6);
            assertClose(MAX.callTensor(empty, new int[] {2, 2}), Torch.call(m, "torch.max_pool2d(a, [2, 2])", empty), "max_pool2d zero batch");
            assertClose(AVG.callTensor(empty, new int[] {3, 3}, new int[] {2, 2}, new int[] {1, 1}, true), Torch.call(m, "torch.avg_pool2d(a, [3, 3], [2, 2], [1, 1], True)", empty), "avg_pool2d zero batch");
            assertClose(ADAPTIVE.callTensor(empty, new int[] {2, 3}), Torch.call(m, "torch.adaptive_avg_pool2d(a, [2, 3])", empty), "adaptive zero batch");
            Tensor x = Inputs.randn(rng, DType.FLOAT64, 2, 2, 7, 6);
            assertClose(MAX.callTensor(x, 3, 2, 1, 1, true), Torch.call(m, "torch.max_pool2d(a, 3, 2, 1, 1, True)", x), "max_pool2d single-int parameters");
            assertClose(AVG.callTensor(x, 3, 2, 1), Torch.call(m, "torch.avg_pool2d(a, 3, 2, 1)", x), "avg_pool2d single-int parameters");
        }
    }
}
