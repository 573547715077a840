package dev.ember.aot;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.nn.F;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * Where eager's result is exact, a compiled one must be too, or an operation that magnifies a
 * last-bit difference (sqrt near 0, an argmax tie) turns it into a visible one. Two classes the
 * differential fuzzer found:
 * <ul>
 *   <li>mean, var, std and layer_norm decomposed as {@code sum(x) / n} rounded the sum, so for a
 *       row of equal values {@code x - mean} was not 0 where eager's is (seed 5002363:
 *       {@code layerNorm(x).abs().sqrt()} gave 0.006 for eager's 0);</li>
 *   <li>matmul of a 3-d activation by a weight ran as batched GEMMs eagerly but as one folded mm
 *       compiled; a GEMM may round a row by its position in the block, so equal batches came out a
 *       bit apart and an argmax over them picked another index (seed 5006633).</li>
 * </ul>
 */
class ExactWhereEagerIsExactTest {

    @AfterEach
    void reset() { Ember.reset(); }

    static Tensor layerNormOfEqualValues(Tensor x) { return F.layerNorm(x, new int[] {7}).abs().sqrt(); }

    static Tensor stdOfEqualValues(Tensor x) { return x.std(-1, true).sqrt(); }

    static Tensor centeredByMean(Tensor x) { return x.sub(x.mean(new int[] {-1}, true)).abs().sqrt(); }

    static Tensor argmaxOverEqualBatches(Tensor x, Tensor w) { return x.matmul(w).argmax(-3, false); }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"aot_eager, default", "inductor, default", "inductor, max-autotune"})
    void reductionsOfEqualValuesAreExact(String backend, String mode) {
        for (DType dtype : List.of(DType.FLOAT32, DType.FLOAT64)) {
            Tensor.manualSeed(5002363);
            Tensor x = Tensor.randn(3, 1).to(dtype).expand(3, 7);   // rows of equal values
            for (Fn1<Tensor, Tensor> program : List.<Fn1<Tensor, Tensor>>of(
                    ExactWhereEagerIsExactTest::layerNormOfEqualValues, ExactWhereEagerIsExactTest::stdOfEqualValues,
                    ExactWhereEagerIsExactTest::centeredByMean)) {
                Ember.reset();
                Tensor eager = program.apply(x);
                Tensor compiled = Ember.compile(program, Options.backend(backend).mode(mode)).apply(x);
                assertArrayEquals(eager.toDoubleArray(), compiled.toDoubleArray(), 0.0, backend + " " + mode + " " + dtype);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"aot_eager, default", "inductor, default", "inductor, max-autotune"})
    void argmaxOverEqualMatmulBatchesKeepsTheFirstIndex(String backend, String mode) {
        for (int rows : new int[] {2, 3, 5}) {
            Tensor.manualSeed(5006633);
            Tensor x = Tensor.randn(1, rows, 8).expand(5, rows, 8), w = Tensor.randn(8, 16);
            Tensor eager = argmaxOverEqualBatches(x, w);
            Tensor compiled = Ember.compile((Fn2<Tensor, Tensor, Tensor>) ExactWhereEagerIsExactTest::argmaxOverEqualBatches,
                    Options.backend(backend).mode(mode)).apply(x, w);
            assertArrayEquals(eager.toLongArray(), compiled.toLongArray(), backend + " " + mode + " rows " + rows);
            Ember.reset();
        }
    }

    /** log_softmax over a dimension of one element is exactly 0 in eager: x·σ(x) minus its own max. */
    static Tensor logSoftmaxOverOneChannel(Tensor x) { return x.mul(x.sigmoid()).logSoftmax(1); }

    /**
     * A value the inductor computes in two kernels rounds the same in both: here x·σ(x) in a scalar
     * row kernel (for the max) and in a vector loop (for the sum). Float sigmoid's scalar form was
     * {@code Math.exp} through double and its vector form Ember's polynomial, so x − max(x) was not
     * 0 over one element, and a branch on the sum flipped (differential fuzzer, seed 53765). The
     * scalar forms are now the vector formulas lane for lane (VectorMathTest).
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"inductor, default", "inductor, max-autotune"})
    void aValueComputedInTwoKernelsCancelsExactly(String backend, String mode) {
        for (int seed = 0; seed < 5; seed++) {
            Tensor.manualSeed(53765 + seed);
            Tensor x = Tensor.randn(2, 1, 3, 5);
            Ember.reset();
            Tensor compiled = Ember.compile((Fn1<Tensor, Tensor>) ExactWhereEagerIsExactTest::logSoftmaxOverOneChannel, Options.backend(backend).mode(mode)).apply(x);
            assertArrayEquals(logSoftmaxOverOneChannel(x).toFloatArray(), compiled.toFloatArray(), 0f, backend + " " + mode + " seed " + seed);
        }
    }
}
