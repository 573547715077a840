package dev.ember.ops;

import ai.djl.ndarray.NDList;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.dynamo.ExplainOutput;
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
 * unique (values, inverse indices, counts) and bincount (counts, weighted sums, minlength) against
 * libtorch's _unique2 and bincount over dtypes, repeated values, signed zeros, 2-d and empty
 * inputs, and ATen's errors; under Ember.compile each breaks the graph (a dynamic output shape)
 * and the function still gives eager's result.
 */
class UniqueBincountTest {
    private final Random rng = new Random(3);

    private static void checkUnique(Tensor x, String label) {
        NDList want = Torch.callList("torch._unique2(a, True, True, True)", x);
        List<Tensor> got = x.unique(true, true, true);
        assertClose(got.get(0), want.get(0), label + " values");
        assertClose(got.get(1), want.get(1), label + " inverse");
        assertClose(got.get(2), want.get(2), label + " counts");
    }

    @Test
    void uniqueMatchesLibtorch() {
        checkUnique(Inputs.randint(rng, DType.INT64, -5, 5, 40), "int64");
        checkUnique(Inputs.randint(rng, DType.INT32, 0, 4, 3, 7), "int32 2-d (inverse in its shape)");
        checkUnique(Inputs.randint(rng, DType.INT64, 0, 6, 5, 6).to(DType.FLOAT32).mul(0.5), "float32 with repeats");
        checkUnique(Tensor.of(new double[] {2.5, -0.0, 0.0, -1, 2.5, Double.NEGATIVE_INFINITY, 0.0}, 7), "float64, signed zeros one value, -inf");
        checkUnique(Tensor.of(new boolean[] {true, false, true, true}, 4), "bool");
        checkUnique(Tensor.zeros(DType.FLOAT32, 0), "empty");
        Tensor x = Tensor.ofLongs(3, 1, 3, 2, 1);
        assertClose(x.unique(), Tensor.ofLongs(1, 2, 3), "unique()");
        List<Tensor> onlyCounts = x.unique(true, false, true);
        assertEquals(2, onlyCounts.size(), "values and counts, as PyTorch's tuple");
        assertClose(onlyCounts.get(1), Tensor.ofLongs(2, 1, 2), "counts");
    }

    @Test
    void bincountMatchesLibtorch() {
        Tensor x = Inputs.randint(rng, DType.INT64, 0, 7, 50);
        assertClose(x.bincount(), Torch.call("torch.bincount(a)", x), "counts");
        assertClose(x.bincount(null, 12), Torch.call("torch.bincount(a, None, 12)", x), "minlength past the max");
        Tensor w32 = Inputs.randn(rng, DType.FLOAT32, 50), w64 = Inputs.randn(rng, DType.FLOAT64, 50);
        assertClose(x.bincount(w32, 0), Torch.call("torch.bincount(a, b)", x, w32), "float32 weights: float32 sums");
        assertClose(x.bincount(w64, 3), Torch.call("torch.bincount(a, b, 3)", x, w64), "float64 weights");
        Tensor i32 = Tensor.of(new int[] {0, 0, 5}, 3), intWeights = Tensor.ofLongs(2, 3, 4);
        assertClose(i32.bincount(intWeights, 0), Torch.call("torch.bincount(a, b)", i32, intWeights), "int32 input, int64 weights: float64");
        assertClose(Tensor.zeros(DType.INT64, 0).bincount(null, 4), Torch.call("torch.bincount(a, None, 4)", Tensor.zeros(DType.INT64, 0)), "empty");

        Tensor negative = Tensor.ofLongs(1, -1);
        var e = assertThrows(IllegalArgumentException.class, negative::bincount);
        String torch = assertThrows(RuntimeException.class, () -> Torch.call("torch.bincount(a)", negative)).getMessage();
        assertTrue(e.getMessage().contains("bincount only supports 1-d non-negative integral inputs.") && torch.contains("bincount only supports 1-d non-negative integral inputs."),
                e.getMessage() + "\n" + torch);
        Tensor floats = Tensor.of(1f, 2f);
        e = assertThrows(IllegalArgumentException.class, floats::bincount);
        torch = assertThrows(RuntimeException.class, () -> Torch.call("torch.bincount(a)", floats)).getMessage();
        assertTrue(e.getMessage().contains("\"bincount_cpu\" not implemented for 'Float'") && torch.contains("\"bincount_cpu\" not implemented for 'Float'"),
                e.getMessage() + "\n" + torch);
    }

    @Test
    void compiledFunctionsBreakAtThemAndMatchEager() {
        Fn1<Tensor, Tensor> fn = x -> {
            Tensor labels = x.abs().mul(3.0).floor().to(DType.INT64);
            Tensor counts = labels.bincount();
            List<Tensor> u = labels.unique(true, true, false);
            return counts.to(DType.FLOAT32).sum().add(u.get(1).to(DType.FLOAT32).mean()).add(u.get(0).to(DType.FLOAT32).sum());
        };
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 20);
        ExplainOutput explain = Ember.explain(fn).with(x);
        assertTrue(explain.graphBreakCount() >= 1, explain.toString());
        assertTrue(explain.toString().contains("dynamic shape operator") || explain.toString().contains("GB0021"), explain.toString());
        assertClose(Ember.compile(fn).apply(x), fn.apply(x), "compiled");
    }
}
