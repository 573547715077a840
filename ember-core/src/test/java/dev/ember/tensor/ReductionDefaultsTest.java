package dev.ember.tensor;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The reductions as PyTorch code writes them, {@code x.sum(1)}, {@code x.max()}: the dim goes away
 * (keepdim false, torch's default), and compiled code captures them in one graph.
 */
class ReductionDefaultsTest {
    @AfterEach
    void reset() { Ember.reset(); }

    static final Map<String, Function<Tensor, Tensor>> SHORT = Map.of(
            "sum", x -> x.sum(1), "mean", x -> x.mean(-1), "amax", x -> x.amax(0), "amin", x -> x.amin(1),
            "argmax", x -> x.argmax(1), "argmin", x -> x.argmin(0), "var", x -> x.var(1), "std", x -> x.std(0),
            "max", Tensor::max, "min", Tensor::min);

    static final Map<String, Function<Tensor, Tensor>> LONG = Map.of(
            "sum", x -> x.sum(1, false), "mean", x -> x.mean(-1, false), "amax", x -> x.amax(0, false), "amin", x -> x.amin(1, false),
            "argmax", x -> x.argmax(1, false), "argmin", x -> x.argmin(0, false), "var", x -> x.var(1, false), "std", x -> x.std(0, false),
            "max", Tensor::amax, "min", Tensor::amin);

    @Test
    void eachShortFormIsTheKeepdimFalseForm() {
        Tensor x = Tensor.randn(new Generator(3), 4, 5);
        for (String name : SHORT.keySet()) {
            Tensor a = SHORT.get(name).apply(x), b = LONG.get(name).apply(x);
            assertArrayEquals(b.shape(), a.shape(), name);
            assertArrayEquals(b.to(DType.FLOAT64).toDoubleArray(), a.to(DType.FLOAT64).toDoubleArray(), name);
        }
        assertArrayEquals(new int[] {4}, x.sum(1).shape());
        assertArrayEquals(new int[] {}, x.max().shape());
    }

    static Tensor allOfThem(Tensor x) {
        return x.sum(1).add(x.mean(-1)).add(x.amax(1)).add(x.amin(1)).add(x.var(1)).add(x.std(1))
                .add(x.argmax(1).to(DType.FLOAT32)).add(x.argmin(1).to(DType.FLOAT32)).add(x.max()).sub(x.min());
    }

    @Test
    void compiledTheyAreOneGraphAndEqualEager() {
        Tensor x = Tensor.randn(new Generator(4), 6, 7);
        Fn1<Tensor, Tensor> f = Ember.compile((Fn1<Tensor, Tensor>) ReductionDefaultsTest::allOfThem, Options.backend("inductor").fullgraph(true));
        Tensor want = allOfThem(x), got = f.apply(x);
        double[] a = want.toDoubleArray(), b = got.toDoubleArray();
        assertEquals(a.length, b.length);
        for (int i = 0; i < a.length; i++) assertEquals(a[i], b[i], 1e-5 * (1 + Math.abs(a[i])), "element " + i);
    }
}
