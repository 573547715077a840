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
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * argmax and argmin against libtorch: int64 positions of the first extremum, over one dim or the
 * flattened tensor, keepdim, in every layout. Values are drawn from a few integers so rows hold
 * ties, and NaN rows check that NaN counts as the extremum.
 */
class ReductionArgTest {
    private static final List<int[]> SHAPES;

    static {
        List<int[]> s = new ArrayList<>(Inputs.SHAPES);
        s.add(new int[] {37, 45});
        s.add(new int[] {3, 70, 33});
        SHAPES = List.copyOf(s);
    }

    @Test
    void argmaxAndArgminMatchLibtorch() {
        Random rng = new Random(11);
        try (NDManager m = Torch.scope()) {
            for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.INT64}) {
                for (int[] shape : SHAPES) {
                    Tensor x = Inputs.randint(rng, dtype, -3, 4, shape);
                    List<Integer> dims = new ArrayList<>();
                    dims.add(null);
                    for (int d = 0; d < Math.max(1, shape.length); d++) dims.add(d % 2 == 0 ? d - Math.max(1, shape.length) : d);
                    int choice = 0;
                    for (Integer dim : dims) {
                        if (x.numel() == 0 && (dim == null || x.size(dim) == 0)) continue;
                        boolean keepdim = choice++ % 2 == 1;
                        for (String op : List.of("argmax", "argmin")) {
                            NDArray expected = dim == null ? Torch.call(m, "torch." + op + "(a, None, b)", x, keepdim)
                                    : Torch.call(m, "torch." + op + "(a, c, b)", x, keepdim, dim);
                            for (Inputs.Layout in : Inputs.layouts(x)) {
                                Tensor t = in.tensor();
                                Tensor actual = dim == null
                                        ? OpRegistry.get("aten." + op + ".default").callTensor(t, null, keepdim)
                                        : op.equals("argmax") ? t.argmax(dim, keepdim) : t.argmin(dim, keepdim);
                                assertClose(actual, expected, op + " " + dtype + " dim=" + dim + " keepdim=" + keepdim + " " + in);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void nanIsTheExtremumAndTheFirstOneWins() {
        double nan = Double.NaN;
        for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            Tensor x = Inputs.fromDoubles(new double[] {
                1, nan, 5, nan,
                nan, 2, 9, 0,
                Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, -0.0, 0.0,
                3, 3, -1, -1}, d, 4, 4);
            for (Tensor t : List.of(x, x.t())) {
                assertClose(t.argmax(1, false), Torch.call("torch.argmax(a, 1)", t), "argmax rows " + d);
                assertClose(t.argmin(1, true), Torch.call("torch.argmin(a, 1, True)", t), "argmin rows " + d);
                assertClose(t.argmax(0, false), Torch.call("torch.argmax(a, 0)", t), "argmax columns " + d);
                assertClose(t.argmax(), Torch.call("torch.argmax(a)", t), "argmax flat " + d);
                assertClose(t.argmin(), Torch.call("torch.argmin(a)", t), "argmin flat " + d);
            }
        }
    }

    @Test
    void extremesOfInt64AreExact() {
        Tensor x = Tensor.of(new long[] {Long.MIN_VALUE, Long.MAX_VALUE - 1, Long.MAX_VALUE, Long.MIN_VALUE + 1}, 4);
        assertEquals(2, x.argmax().longItem());
        assertEquals(0, x.argmin().longItem());
    }

    @Test
    void flatPositionsFollowTheLogicalOrder() {
        Tensor x = Tensor.of(new double[] {0, 9, 1, 2, 3, 9}, 2, 3);
        Tensor t = x.t();                       // [[0, 2], [9, 3], [1, 9]]: the first 9 is logical position 2
        assertEquals(2, t.argmax().longItem());
        assertArrayEquals(new int[] {1, 2}, t.argmax(0, true).shape());
        assertArrayEquals(new int[] {1, 1}, OpRegistry.get("aten.argmax.default").callTensor(t, null, true).shape());
        assertEquals(DType.INT64, Tensor.scalar(2.5).argmax(0, false).dtype());
        assertEquals(0, Tensor.scalar(2.5).argmin(-1, true).longItem());
    }
}
