package dev.ember.ops;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * torch.unique and torch.unique_consecutive with {@code dim}: distinct slices, inverse indices and
 * counts against libtorch over dtypes, ranks, dims and layouts, with few distinct slices so that
 * most repeat; and the raw aten.unique_dim's three outputs whatever its flags.
 */
class UniqueDimTest {

    private static final DType[] DTYPES = {DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.INT64, DType.BOOL};

    @Test
    void uniqueAndUniqueConsecutiveAlongADimMatchLibtorch() {
        Random rng = new Random(17);
        try (NDManager m = Torch.scope()) {
            for (DType d : DTYPES) {
                for (int[] shape : new int[][] {{7, 2}, {5, 3, 2}, {4, 1, 3}}) {
                    Tensor x = Inputs.randint(rng, d, 0, 2, shape);
                    for (Inputs.Layout in : Inputs.layouts(x)) {
                        Tensor t = in.tensor();
                        for (int dim = -1; dim < shape.length; dim++) {
                            String ctx = d + " " + in + " dim " + dim;
                            List<Tensor> got = t.unique(true, true, true, dim);
                            NDList want = Torch.callList(m, "ops.aten.unique_dim(a, " + dim + ", True, True, True)", t);
                            for (int k = 0; k < 3; k++) assertClose(got.get(k), want.get(k), "unique " + ctx + " output " + k);
                            assertClose(t.unique(true, false, false, dim).getFirst(), Torch.callList(m, "ops.aten.unique_dim(a, " + dim + ")", t).get(0), "unique values only " + ctx);

                            List<Tensor> runs = t.uniqueConsecutive(true, true, dim);
                            NDList wantRuns = Torch.callList(m, "ops.aten.unique_consecutive(a, True, True, " + dim + ")", t);
                            for (int k = 0; k < 3; k++) assertClose(runs.get(k), wantRuns.get(k), "unique_consecutive " + ctx + " output " + k);
                        }
                    }
                }
            }
        }
    }

    @Test
    void theRawOpsOutputsWhateverItsFlagsAreAtens() {
        Tensor x = Tensor.of(new long[] {1, 2, 1, 2, 0, 0, 1, 2}, 4, 2);
        try (NDManager m = Torch.scope()) {
            for (boolean inverse : new boolean[] {true, false}) {
                for (boolean counts : new boolean[] {true, false}) {
                    List<Tensor> got = CountingOps.UNIQUE_DIM.callList(x, 0L, false, inverse, counts);
                    NDList want = Torch.callList(m, "ops.aten.unique_dim(a, 0, False, " + (inverse ? "True" : "False") + ", " + (counts ? "True" : "False") + ")", x);
                    for (int k = 0; k < 3; k++) assertClose(got.get(k), want.get(k), "unique_dim inverse " + inverse + " counts " + counts + " output " + k);
                }
            }
        }
        assertEquals(3, x.unique(true, true, true, 0).size());
    }

    /** (TorchScript has no torch.unique, a Python function; its dim form calls aten.unique_dim, as here.) */
    @Test
    void aBadDimIsRefusedAsInAten() {
        Tensor x = Tensor.of(new long[] {1, 2, 1, 2}, 2, 2);
        var e = assertThrows(IndexOutOfBoundsException.class, () -> x.unique(true, false, false, 2));
        String aten = Torch.refusalText(assertThrows(RuntimeException.class, () -> Torch.callList("ops.aten.unique_dim(a, 2)", x)));
        assertTrue(aten.contains("Dimension out of range (expected to be in range of [-2, 1], but got 2)"), aten);
        assertTrue(e.getMessage().contains("Dimension out of range (expected to be in range of [-2, 1], but got 2)"), e.getMessage());
    }
}
