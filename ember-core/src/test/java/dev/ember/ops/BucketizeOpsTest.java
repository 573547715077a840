package dev.ember.ops;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * searchsorted and bucketize against libtorch: both sides, 1-d and batched sequences, ties, values
 * outside the sequence, NaN values and NaN boundaries, integer dtypes, a sorter, int32 results, a
 * scalar value, ATen's refusals; and under Ember.compile, eager's result.
 */
class BucketizeOpsTest {
    private final Random rng = new Random(17);

    @AfterEach
    void reset() { Ember.reset(); }

    private static void same(Tensor got, ai.djl.ndarray.NDArray want, String what) { assertClose(got, want, what); }

    @Test
    void searchsortedMatchesLibtorch() {
        Tensor seq = Tensor.of(new double[] {-1, 0, 0, 2.5, 3, 3, 7}, 7);
        Tensor values = Tensor.of(new double[] {-5, -1, 0, 1, 3, 7, 8, Double.NaN, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY}, 2, 5);
        same(Tensor.searchsorted(seq, values), Torch.call("torch.searchsorted(a, b)", seq, values), "left, ties and outside values, NaN");
        same(Tensor.searchsorted(seq, values, true), Torch.call("torch.searchsorted(a, b, right=True)", seq, values), "right");
        same(Tensor.searchsorted(seq, values, false, false, "right", null), Torch.call("torch.searchsorted(a, b, side='right')", seq, values), "side='right'");
        Tensor int32 = Tensor.searchsorted(seq, values, true, false, null, null);
        assertEquals(DType.INT32, int32.dtype());
        same(int32, Torch.call("torch.searchsorted(a, b, out_int32=True)", seq, values), "out_int32");
        Tensor withNan = Tensor.of(new double[] {0, 1, 2, Double.NaN, Double.NaN}, 5);
        Tensor probe = Tensor.of(new double[] {-1, 0.5, 2, 3, Double.NaN}, 5);
        same(Tensor.searchsorted(withNan, probe), Torch.call("torch.searchsorted(a, b)", withNan, probe), "NaN boundaries, left");
        same(Tensor.searchsorted(withNan, probe, true), Torch.call("torch.searchsorted(a, b, right=True)", withNan, probe), "NaN boundaries, right");
        // batched: each row of values searches its own row
        Tensor rows = Inputs.randn(rng, DType.FLOAT64, 3, 6).sort(-1, false).get(0), rowValues = Inputs.randn(rng, DType.FLOAT64, 3, 4);
        same(Tensor.searchsorted(rows, rowValues), Torch.call("torch.searchsorted(a, b)", rows, rowValues), "batched rows");
        same(Tensor.searchsorted(rows, rowValues, true), Torch.call("torch.searchsorted(a, b, right=True)", rows, rowValues), "batched rows, right");
        // float32 and integers
        Tensor f32 = Inputs.randn(rng, DType.FLOAT32, 9).sort(-1, false).get(0), v32 = Inputs.randn(rng, DType.FLOAT32, 3, 3);
        same(Tensor.searchsorted(f32, v32), Torch.call("torch.searchsorted(a, b)", f32, v32), "float32");
        Tensor ints = Tensor.ofLongs(1, 3, 3, 5, 9), intValues = Tensor.ofLongs(0, 3, 4, 9, 10);
        same(Tensor.searchsorted(ints, intValues), Torch.call("torch.searchsorted(a, b)", ints, intValues), "int64");
        same(Tensor.searchsorted(ints, intValues, true), Torch.call("torch.searchsorted(a, b, right=True)", ints, intValues), "int64, right");
        // a sorter: the sequence unsorted, its argsort given
        Tensor unsorted = Tensor.of(new double[] {3, -1, 7, 0, 2.5}, 5), sorter = unsorted.argsort(-1, false);
        same(Tensor.searchsorted(unsorted, values, false, false, null, sorter), Torch.call("torch.searchsorted(a, b, sorter=c)", unsorted, values, sorter), "sorter");
        // one number
        Tensor at = Tensor.searchsorted(seq, 2.5, false);
        assertEquals(0, at.dim());
        same(at, Torch.call("torch.searchsorted(a, 2.5)", seq), "a scalar value");
    }

    @Test
    void bucketizeMatchesLibtorch() {
        Tensor boundaries = Tensor.of(new double[] {1, 3, 5, 7, 9}, 5);
        Tensor x = Tensor.of(new double[] {0, 1, 2, 3, 9, 10, Double.NaN, 5}, 2, 4);
        same(x.bucketize(boundaries), Torch.call("torch.bucketize(a, b)", x, boundaries), "left-closed buckets");
        same(x.bucketize(boundaries, false, true), Torch.call("torch.bucketize(a, b, right=True)", x, boundaries), "right");
        assertEquals(DType.INT32, x.bucketize(boundaries, true, false).dtype());
        Tensor ints = Tensor.ofLongs(0, 4, 9, 12);
        same(ints.bucketize(boundaries), Torch.call("torch.bucketize(a, b)", ints, boundaries), "int64 values, float64 boundaries");
    }

    @Test
    void badInputIsRefusedAsAtenRefusesIt() {
        Tensor seq = Tensor.of(new double[] {0, 1, 2}, 3), values = Tensor.of(new double[] {0.5}, 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Tensor.searchsorted(seq, values, false, true, "left", null));
        assertEquals("torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Tensor.searchsorted(seq, values, false, false, "middle", null));
        assertEquals("torch.searchsorted(): side can only be 'left' or 'right' but got middle", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Tensor.searchsorted(Tensor.zeros(DType.FLOAT64, 2, 3), Tensor.zeros(DType.FLOAT64, 3, 3)));
        assertTrue(e.getMessage().startsWith("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Tensor.searchsorted(seq, values, false, false, null, Tensor.ofLongs(0, 1)));
        assertTrue(e.getMessage().startsWith("torch.searchsorted(): boundary and sorter must have the same size"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> values.bucketize(Tensor.zeros(DType.FLOAT64, 2, 2)));
        assertEquals("bucketize: boundaries tensor must be 1 dimension, but got dim(2)", e.getMessage());
        for (String call : new String[] {"torch.searchsorted(a, b, side='left', right=True)", "torch.bucketize(b, c)"}) {
            assertThrows(RuntimeException.class, () -> Torch.call(call, seq, values, Tensor.zeros(DType.FLOAT64, 2, 2)), "libtorch refuses " + call + " too");
        }
    }

    static Tensor binCenters(Tensor x, Tensor edges) {
        Tensor bucket = x.bucketize(edges).clamp(1.0, (double) (edges.numel() - 1));
        return bucket.to(DType.FLOAT32).mul(0.5).add(x.mul(2));
    }

    @Test
    void compiledGivesEagersResult() {
        Tensor edges = Tensor.of(new float[] {-1, -0.25f, 0, 0.5f, 1.5f}, 5);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 4, 7);
        Fn2<Tensor, Tensor, Tensor> compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) BucketizeOpsTest::binCenters, Options.backend("inductor"));
        assertClose(compiled.apply(x, edges), binCenters(x, edges), "compiled", dev.ember.testing.TorchAssert.Tolerance.of(0, 0));
    }
}
