package dev.ember.inductor;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.debug.Accuracy;
import dev.ember.nn.F;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Found by the differential fuzzer (seed 1001524): a pointwise kernel over no elements still ran
 * its hoisted loop-invariant loads, and a load along a size-0 dim reads element 0 of an empty
 * array. layer_norm over a [0] dim with a [0] weight threw in inductor where eager returned an
 * empty tensor. Kernels over empty iteration spaces compute nothing; empty reductions give their
 * initial value. And a reduction whose output has no elements (seed 5051993: amin of a
 * [16, 0, 2] input over dim 0) looped over bounds made by merging dims with the size-0 one, and
 * wrote 16 rows into an empty array. And a reduction over a size-0 dim of an expanded input
 * (seed 201468: the sum of a [1, 0] input expanded to [5, 0]) hoisted its term, constant along the
 * stride-0 dim, out of the empty loop, and read element 0 of an empty array.
 */
class ZeroSizeKernelTest {
    static Tensor layerNormThenView(Tensor x, Tensor w) { return F.layerNorm(x, new int[] {0}, w, w, 1e-5).unsqueeze(1); }

    static Tensor scaledEmptyRows(Tensor x, Tensor w) { return x.mul(w).add(1.0).relu(); }

    static Tensor sumOfEmptyRows(Tensor x, Tensor w) { return x.mul(w).sum(1, false).add(1.0); }

    static Tensor sumOfAnExpandedEmptyInput(Tensor x, Tensor unused) { return x.abs().transpose(0, 1).sum().add(x.sum(0, false).sum()); }

    @ParameterizedTest
    @ValueSource(strings = {"default", "max-autotune", "reduce-overhead"})
    void reductionsOverAnEmptyDimOfAnExpandedInputGiveTheIdentity(String mode) {
        Tensor x = Tensor.randn(1, 0).expand(5, 0), w = Tensor.randn(2);
        Tensor eager = sumOfAnExpandedEmptyInput(x, w);
        Tensor compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) ZeroSizeKernelTest::sumOfAnExpandedEmptyInput,
                Options.backend("inductor").mode(mode)).apply(x, w);
        assertTrue(eager.item() == 0.0 && compiled.item() == 0.0, mode + ": " + compiled);
    }

    static Tensor reductionsToNoElements(Tensor x, Tensor w) {
        Tensor m = x.amin(0, true);                                          // [16, 0, 2] → [1, 0, 2]
        return F.layerNorm(m, new int[] {2}, w, w, 1e-5).matmul(w.unsqueeze(1).expand(2, 2)).add(x.sum(0, true));
    }

    @ParameterizedTest
    @ValueSource(strings = {"default", "max-autotune", "reduce-overhead"})
    void reductionsWhoseOutputIsEmptyMatchEager(String mode) {
        Tensor x = Tensor.randn(16, 0, 2), w = Tensor.randn(2);
        Tensor eager = reductionsToNoElements(x, w);
        Tensor compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) ZeroSizeKernelTest::reductionsToNoElements,
                Options.backend("inductor").mode(mode)).apply(x, w);
        assertTrue(java.util.Arrays.equals(eager.shape(), compiled.shape()), mode + ": " + compiled);
    }

    /** A fresh disk cache: a class cached by another build of the same graph must not stand in for this one's. */
    @BeforeEach
    void freshCache(@TempDir Path dir) { System.setProperty("ember.cache.dir", dir.toString()); }

    @AfterEach
    void reset() {
        Ember.reset();
        System.clearProperty("ember.cache.dir");
    }

    @ParameterizedTest
    @ValueSource(strings = {"default", "max-autotune", "reduce-overhead"})
    void kernelsOverNoElementsMatchEager(String mode) {
        Tensor x = Tensor.randn(16, 3, 0), w = Tensor.randn(0), rows = Tensor.randn(5, 0);
        for (Fn2<Tensor, Tensor, Tensor> f : List.<Fn2<Tensor, Tensor, Tensor>>of(ZeroSizeKernelTest::layerNormThenView,
                ZeroSizeKernelTest::scaledEmptyRows, ZeroSizeKernelTest::sumOfEmptyRows)) {
            Tensor eager = f.apply(x, w), again = f.apply(rows, w);
            var compiled = Ember.compile(f, Options.backend("inductor").mode(mode));
            Accuracy.Verdict v = Accuracy.compare(List.of(eager, again), List.of(compiled.apply(x, w).clone(), compiled.apply(rows, w).clone()), null, 1e-5);
            assertTrue(v.passed(), mode + ": " + v);
        }
    }

    static Tensor batchedProduct(Tensor a, Tensor b) { return a.bmm(b).add(1.0); }

    /** Fuzzer seed 501265: a batched product over zero matrices, compiled, in training too. */
    @ParameterizedTest
    @ValueSource(strings = {"default", "max-autotune", "reduce-overhead"})
    void aBatchOfNoMatricesMatchesEager(String mode) {
        Tensor a = Tensor.randn(0, 1, 7), b = Tensor.randn(0, 7, 32);
        var compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) ZeroSizeKernelTest::batchedProduct, Options.backend("inductor").mode(mode));
        Tensor got = compiled.apply(a, b);
        assertTrue(java.util.Arrays.equals(new int[] {0, 1, 32}, got.shape()), mode + ": " + got);
        Ember.reset();
        Tensor ta = a.clone().requiresGrad(true), tb = b.clone().requiresGrad(true);
        Ember.compile((Fn2<Tensor, Tensor, Tensor>) ZeroSizeKernelTest::batchedProduct, Options.backend("inductor").mode(mode)).apply(ta, tb).sum().backward();
        assertTrue(java.util.Arrays.equals(new int[] {0, 7, 32}, tb.grad().shape()), mode + ": " + tb.grad());
    }
}
