package dev.ember.ops;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;

/**
 * _softmax and _log_softmax against libtorch along every dim (and -1) of every
 * test shape, in every layout, for float32 and float64; rows long enough for the SIMD loops and
 * their tails, and more inner positions than one block holds; large and special values.
 */
class ReductionSoftmaxTest {
    private static final List<int[]> SHAPES;

    static {
        List<int[]> s = new ArrayList<>(Inputs.SHAPES);
        s.add(new int[] {5, 1000});
        s.add(new int[] {3, 37, 40});
        SHAPES = List.copyOf(s);
    }

    @Test
    void softmaxAndLogSoftmaxMatchLibtorch() {
        Random rng = new Random(5);
        try (NDManager m = Torch.scope()) {
            for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
                for (int[] shape : SHAPES) {
                    // spread values widely: exp of unshifted inputs would overflow float32
                    Tensor x = Inputs.uniform(rng, dtype, -60, 60, shape);
                    int n = Math.max(1, shape.length);
                    for (int d = -1; d < n; d++) {
                        for (String op : List.of("softmax", "log_softmax")) {
                            NDArray expected = Torch.call(m, "torch." + op + "(a, b)", x, d);
                            for (Inputs.Layout in : Inputs.layouts(x)) {
                                Tensor actual = op.equals("softmax") ? in.tensor().softmax(d) : in.tensor().logSoftmax(d);
                                assertClose(actual, expected, op + " " + dtype + " dim=" + d + " " + in);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void infinitiesAndNanFollowLibtorch() {
        double inf = Double.POSITIVE_INFINITY, nan = Double.NaN;
        double[] rows = {
            1, 2, 3, 4,
            -inf, 0, 1, -inf,
            -inf, -inf, -inf, -inf,
            inf, 0, 1, 2,
            nan, 0, 1, 2,
            1e30, -1e30, 0, 1e30};
        for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            Tensor x = Inputs.fromDoubles(rows, d, 6, 4);
            for (int dim : new int[] {0, 1}) {
                assertClose(x.softmax(dim), Torch.call("torch.softmax(a, b)", x, dim), "softmax specials " + d + " dim " + dim);
                assertClose(x.logSoftmax(dim), Torch.call("torch.log_softmax(a, b)", x, dim), "log_softmax specials " + d + " dim " + dim);
            }
        }
    }

    @Test
    void wideRowsOfBenchmarkSize() {
        Tensor x = Inputs.randn(new Random(9), DType.FLOAT32, 64, 4096);
        try (NDManager m = Torch.scope()) {
            assertClose(x.softmax(-1), Torch.call(m, "torch.softmax(a, -1)", x), "softmax 64x4096");
            assertClose(x.logSoftmax(-1), Torch.call(m, "torch.log_softmax(a, -1)", x), "log_softmax 64x4096");
            assertClose(x.softmax(0), Torch.call(m, "torch.softmax(a, 0)", x), "softmax over dim 0 of 64x4096");
        }
    }
}
