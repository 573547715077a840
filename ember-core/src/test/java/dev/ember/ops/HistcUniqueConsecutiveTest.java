package dev.ember.ops;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** histc and unique_consecutive against libtorch: ranges, edges, NaN, ties, signed zeros, refusals; compiled. */
class HistcUniqueConsecutiveTest {
    private final Random rng = new Random(41);

    @AfterEach
    void reset() { Ember.reset(); }

    @Test
    void histcMatchesLibtorch() {
        for (DType dtype : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor x = Inputs.randn(rng, dtype, 1000);
            assertClose(x.histc(10, 0, 0), Torch.call("torch.histc(a, 10)", x), dtype + " the data's range");
            assertClose(x.histc(7, -1, 1), Torch.call("torch.histc(a, 7, -1.0, 1.0)", x), dtype + " a range, outside values dropped");
            Tensor edges = Tensor.of(new double[] {0, 0.1, 0.2, 0.3, 0.7, 1.0, -0.0, 1.0000001, Double.NaN}, 9).to(dtype);
            assertClose(edges.histc(10, 0, 1), Torch.call("torch.histc(a, 10, 0.0, 1.0)", edges), dtype + " values on bin edges, max in the last bin, NaN dropped");
            Tensor same = Tensor.full(new int[] {4}, 2.5).to(dtype);
            assertClose(same.histc(4, 0, 0), Torch.call("torch.histc(a, 4)", same), dtype + " one value: the range widened");
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Tensor.ofLongs(1, 2).histc(3, 0, 0));
        assertTrue(e.getMessage().contains("not implemented for 'Long'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Tensor.of(new double[] {1, 2}, 2).histc(3, 2, 1));
        assertEquals("torch.histc(): max must be larger than min", e.getMessage());
        assertThrows(RuntimeException.class, () -> Torch.call("torch.histc(a, 3, 2.0, 1.0)", Tensor.of(new double[] {1, 2}, 2)), "libtorch refuses too");
    }

    @Test
    void uniqueConsecutiveMatchesLibtorch() {
        Tensor x = Tensor.of(new double[] {1, 1, 2, 2, 2, -0.0, 0.0, Double.NaN, Double.NaN, 3, 1, 1}, 3, 4);
        List<Tensor> got = x.uniqueConsecutive(true, true);
        assertClose(got.get(0), Torch.call("torch.unique_consecutive(a)[0]", x), "values");
        assertClose(got.get(1), Torch.call("torch.unique_consecutive(a, return_inverse=True)[1]", x), "inverse, in self's shape");
        assertClose(got.get(2), Torch.call("torch.unique_consecutive(a, return_counts=True)[2]", x), "counts");
        Tensor ints = Inputs.randint(rng, DType.INT64, 0, 3, 30);
        assertClose(ints.uniqueConsecutive(false, false).get(0), Torch.call("torch.unique_consecutive(a)[0]", ints), "int64");
        assertEquals(0, Tensor.zeros(DType.FLOAT32, 0).uniqueConsecutive(false, true).get(0).numel(), "empty");
    }

    static Tensor runsThenScale(Tensor x) {
        Tensor runs = x.uniqueConsecutive(false, false).get(0);
        return runs.mul(2.0).add(x.sum());
    }

    @Test
    void compiledBreaksTheGraphAndGivesEagersResult() {
        Tensor x = Tensor.of(new float[] {1, 1, 2, 3, 3, 3, 1}, 7);
        Fn1<Tensor, Tensor> compiled = Ember.compile((Fn1<Tensor, Tensor>) HistcUniqueConsecutiveTest::runsThenScale, Options.backend("inductor"));
        assertClose(compiled.apply(x), runsThenScale(x), "compiled", dev.ember.testing.TorchAssert.Tolerance.of(0, 0));
        Fn1<Tensor, Tensor> hist = Ember.compile((Fn1<Tensor, Tensor> & java.io.Serializable) t -> t.histc(5, -2, 2).mul(3.0), Options.backend("inductor").fullgraph(true));
        Tensor y = Inputs.randn(rng, DType.FLOAT32, 50);
        assertClose(hist.apply(y), y.histc(5, -2, 2).mul(3.0), "histc compiled in one graph");
    }
}
