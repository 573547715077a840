package dev.ember.debug;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The accuracy rule's rounding floor: eager run on inputs one rounding away tells float32's noise
 * at a cancellation (where eager alone may round to the exact answer by luck) from a wrong value.
 * The values are real float32 computations, not made up: a layer norm over two nearly equal
 * numbers, whose gradient is exactly 0 and in float32 is whatever the rounding of x − mean leaves.
 */
class AccuracyTest {
    /**
     * The gradient of {@code layerNorm(x).sum()} for one row of two nearly equal values, in the
     * closed form layer norm's backward computes (g = 1): {@code −rstd·x̂·mean(x̂)}, rounded in the
     * dtype of {@code x}.
     */
    private static Tensor cancellingGradient(Tensor x) {
        Tensor centered = x.sub(x.mean());
        Tensor rstd = centered.pow(2.0).mean().add(1e-5).rsqrt();
        Tensor normalized = centered.mul(rstd);
        return normalized.mul(normalized.mean()).mul(rstd).neg();
    }

    private static Tensor row(double a, double b, DType dtype) {
        return Tensor.of(new double[] {a, b}).to(dtype);
    }

    @Test
    void aCompiledResultWithinTheRoundingFloorPassesThoughEagerRoundedToTheExactAnswer() {
        // eager's inputs happen to cancel exactly; a compiled result that summed in another order did not
        Tensor eager = cancellingGradient(row(5.0, 5.0009765625, DType.FLOAT32));
        Tensor fp64 = cancellingGradient(row(5.0, 5.0009765625, DType.FLOAT64));
        Tensor nearby = cancellingGradient(row(Math.nextUp(5.0f), 5.0009765625, DType.FLOAT32));   // the sum no longer fits: mean rounds
        Tensor compiled = nearby.mul(0.9);   // within the floor the inputs' own rounding makes
        assertTrue(eager.abs().amax().item() < 1e-6, "eager cancels exactly here: " + eager);
        assertTrue(nearby.abs().amax().item() > 1e-3, "one rounding away the same program gives noise above the tolerance: " + nearby);

        assertFalse(Accuracy.compare(List.of(eager), List.of(compiled), List.of(fp64), 1e-3).passed(),
                "without the rounding floor, eager's lucky exact answer makes the noise a failure");
        assertTrue(Accuracy.compare(List.of(eager), List.of(compiled), List.of(fp64), List.of(List.of(nearby)), 1e-3).passed());
    }

    @Test
    void aWrongValueStaysAFailureWithTheRoundingFloor() {
        Tensor x = Tensor.randn(64).mul(3.0);
        Tensor eager = x.sigmoid();
        Tensor nearby = x.add(1e-6).sigmoid();
        var verdict = Accuracy.compare(List.of(eager), List.of(eager.add(0.01)), List.of(x.to(DType.FLOAT64).sigmoid()), List.of(List.of(nearby)), 1e-3);
        assertFalse(verdict.passed(), verdict.toString());
        assertTrue(verdict.toString().contains("eager on inputs one rounding away"), verdict.toString());
    }

    @Test
    void aNonFiniteElementPassesOnlyWhereEagerOneRoundingAwayIsNonFiniteToo() {
        Tensor eager = Tensor.of(new double[] {1.0, 2.0});
        Tensor compiled = Tensor.of(new double[] {Double.NaN, 2.0});
        Tensor nearbyNaN = Tensor.of(new double[] {Double.NaN, 2.0});
        Tensor nearbyFinite = Tensor.of(new double[] {1.0, 2.0});
        assertFalse(Accuracy.compare(List.of(eager), List.of(compiled), null, 1e-3).passed());
        assertFalse(Accuracy.compare(List.of(eager), List.of(compiled), null, List.of(List.of(nearbyFinite)), 1e-3).passed());
        assertTrue(Accuracy.compare(List.of(eager), List.of(compiled), null, List.of(List.of(nearbyNaN)), 1e-3).passed());
    }

    @Test
    void theFloorIsTheLargestOfSeveralNearbyRunsSoOneLuckyRunDoesNotDecide() {
        Tensor eager = cancellingGradient(row(5.0, 5.0009765625, DType.FLOAT32));
        Tensor fp64 = cancellingGradient(row(5.0, 5.0009765625, DType.FLOAT64));
        Tensor lucky = cancellingGradient(row(Math.nextDown(5.0f), Math.nextDown(5.0009765625f), DType.FLOAT32));   // both down: exact again
        Tensor noisy = cancellingGradient(row(Math.nextUp(5.0f), 5.0009765625, DType.FLOAT32));
        Tensor compiled = noisy.mul(0.9);
        assertTrue(lucky.abs().amax().item() < 1e-6, "this way of moving the inputs cancels exactly too: " + lucky);

        assertFalse(Accuracy.compare(List.of(eager), List.of(compiled), List.of(fp64), List.of(List.of(lucky)), 1e-3).passed(),
                "a single lucky nearby run leaves the floor at eager's exact answer");
        var verdict = Accuracy.compare(List.of(eager), List.of(compiled), List.of(fp64), List.of(List.of(lucky), List.of(noisy)), 1e-3);
        assertTrue(verdict.passed(), verdict.toString());
        var wrong = Accuracy.compare(List.of(eager), List.of(noisy.add(0.05)), List.of(fp64), List.of(List.of(lucky), List.of(noisy)), 1e-3);
        assertFalse(wrong.passed());
        assertTrue(wrong.toString().contains("the largest of 2 runs"), wrong.toString());
    }

    @Test
    void aNonFiniteElementPassesWhereAnyNearbyRunIsNonFiniteThere() {
        Tensor eager = Tensor.of(new double[] {1.0, 2.0});
        Tensor compiled = Tensor.of(new double[] {Double.NaN, 2.0});
        List<Object> finite = List.of(Tensor.of(new double[] {1.0, 2.0}));
        List<Object> nan = List.of(Tensor.of(new double[] {Double.NaN, 2.0}));
        assertFalse(Accuracy.compare(List.of(eager), List.of(compiled), null, List.of(finite, finite), 1e-3).passed());
        assertTrue(Accuracy.compare(List.of(eager), List.of(compiled), null, List.of(finite, nan), 1e-3).passed());
    }

    @Test
    void aNonFiniteElementPassesWhereEagerOneRoundingAwayHasNoStableDigit() {
        // seed 472382: the gradient of a standard deviation over rows equal in exact arithmetic
        Tensor eager = Tensor.of(new double[] {-0.6262490301740572, 2.0});
        Tensor compiled = Tensor.of(new double[] {Double.NaN, 2.0});
        List<Object> noise = List.of(Tensor.of(new double[] {0.6262490301740573, 2.0}), Tensor.of(new double[] {0.0095074349522729, 2.0}));
        var verdict = Accuracy.compare(List.of(eager), List.of(compiled), null, List.of(List.of(noise.get(0))), 1e-3);
        assertFalse(verdict.passed(), "one nearby run is not enough to call an element noise: " + verdict);
        assertTrue(Accuracy.compare(List.of(eager), List.of(compiled), null, List.of(List.of(noise.get(0)), List.of(noise.get(1))), 1e-3).passed());

        List<Object> stable = List.of(List.of(Tensor.of(new double[] {-0.6262490301740573, 2.0})), List.of(Tensor.of(new double[] {-0.62624903017405, 2.0})));
        var wrong = Accuracy.compare(List.of(eager), List.of(compiled), null, stable, 1e-3);
        assertFalse(wrong.passed(), "an element whose digits one rounding does not move stays judged: " + wrong);
        Tensor finiteWrong = Tensor.of(new double[] {5.0, 2.0});
        assertFalse(Accuracy.compare(List.of(eager), List.of(finiteWrong), null, List.of(List.of(noise.get(0)), List.of(noise.get(1))), 1e-3).passed(),
                "a finite compiled value is judged by the rounding floor, not waved through");
    }

    @Test
    void anIntegerElementThatRoundingDecidesIsNotJudgedButEveryOtherMustMatch() {
        // argmax over a row whose values are equal in exact arithmetic: eager picked 0, one rounding away 2
        Tensor eager = Tensor.of(new long[] {0, 1}, 2), compiled = Tensor.of(new long[] {3, 1}, 2);
        List<Object> sameAsEager = List.of(Tensor.of(new long[] {0, 1}, 2)), movedByRounding = List.of(Tensor.of(new long[] {2, 1}, 2));
        assertFalse(Accuracy.compare(List.of(eager), List.of(compiled), null, 1e-3).passed(), "no reference: integers match exactly");
        assertFalse(Accuracy.compare(List.of(eager), List.of(compiled), List.of(eager), List.of(sameAsEager, sameAsEager), 1e-3).passed(),
                "no rounding moves element 0, so it is judged");
        assertTrue(Accuracy.compare(List.of(eager), List.of(compiled), null, List.of(sameAsEager, movedByRounding), 1e-3).passed());
        assertTrue(Accuracy.compare(List.of(eager), List.of(compiled), List.of(Tensor.of(new long[] {4, 1}, 2)), List.of(), 1e-3).passed(),
                "the float64 run disagrees with eager there too");
        var wrong = Accuracy.compare(List.of(eager), List.of(Tensor.of(new long[] {3, 7}, 2)), null, List.of(sameAsEager, movedByRounding), 1e-3);
        assertFalse(wrong.passed(), "element 1 is stable and wrong");
        assertTrue(wrong.toString().contains("element 1 is 7.0, eager 1.0"), wrong.toString());
    }
}
