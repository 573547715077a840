package dev.ember.optim;

import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.IntToDoubleFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * PolynomialLR and CyclicLR epoch by epoch against the schedules PyTorch's documentation describes,
 * written here as closed forms (a polynomial of the epoch; a triangle wave of the iteration with
 * each mode's scale), and CyclicLR's momentum cycling for SGD's momentum and Adam's first beta.
 */
class PolynomialAndCyclicLRTest {

    private static SGD sgd(double lr0, double lr1) {
        return new SGD(List.of(Tensor.of(1.0).requiresGrad(true)), SGD.options().lr(lr0).momentum(0.9))
                .addParamGroup(List.of(Tensor.of(2.0).requiresGrad(true)), o -> o.lr(lr1));
    }

    private static void check(LRScheduler s, Optimizer opt, int epochs, List<IntToDoubleFunction> closedForms) {
        for (int epoch = 0; epoch < epochs; epoch++) {
            if (epoch > 0) {
                opt.step();
                s.step();
            }
            for (int g = 0; g < closedForms.size(); g++) {
                double expected = closedForms.get(g).applyAsDouble(epoch);
                assertEquals(expected, s.getLastLr().get(g), 1e-12 * Math.abs(expected) + 1e-15, s.getClass().getSimpleName() + " epoch " + epoch + " group " + g);
                assertEquals(s.getLastLr().get(g), opt.paramGroups().get(g).lr());
            }
        }
    }

    @Test
    void polynomialLRDecaysToZeroThenStays() {
        SGD opt = sgd(0.1, 0.03);
        PolynomialLR s = new PolynomialLR(opt, 6, 2.0);
        check(s, opt, 10, List.of(e -> 0.1 * Math.pow(1 - Math.min(6, e) / 6.0, 2), e -> 0.03 * Math.pow(1 - Math.min(6, e) / 6.0, 2)));
        SGD opt2 = sgd(0.2, 0.2);
        PolynomialLR linear = new PolynomialLR(opt2);   // PyTorch's defaults: 5 epochs, power 1
        check(linear, opt2, 4, List.of(e -> 0.2 * (1 - e / 5.0)));
        assertEquals("total_iters must be a positive number of epochs, got 0",
                assertThrows(IllegalArgumentException.class, () -> new PolynomialLR(sgd(0.1, 0.1), 0, 1.0)).getMessage());
    }

    /** Where iteration {@code e} is on the triangle: 0 at the bottom, 1 at the top (after {@code up} steps), back to 0 after {@code down} more. */
    private static double triangle(int e, int up, int down) {
        int pos = e % (up + down);
        return pos <= up ? (double) pos / up : 1 - (double) (pos - up) / down;
    }

    @Test
    void cyclicLRTriangularWithSgdMomentum() {
        SGD opt = sgd(0.5, 0.5);
        CyclicLR s = new CyclicLR(opt, CyclicLR.options(0.01, 0.11).stepSizeUp(4).stepSizeDown(6));
        IntToDoubleFunction lr = e -> 0.01 + 0.1 * triangle(e, 4, 6);
        for (int e = 0; e < 25; e++) {
            if (e > 0) s.step();
            assertEquals(lr.applyAsDouble(e), s.getLastLr().get(0), 1e-14, "epoch " + e);
            assertEquals(lr.applyAsDouble(e), s.getLastLr().get(1), 1e-14);
            // momentum goes the other way, from max_momentum (0.9) down to base_momentum (0.8)
            assertEquals(0.9 - 0.1 * triangle(e, 4, 6), opt.paramGroups().get(0).getDouble("momentum"), 1e-14, "momentum at epoch " + e);
        }
        assertEquals(0.8, opt.paramGroups().get(1).getDouble("base_momentum"));
    }

    @Test
    void cyclicLRTriangular2HalvesEachCycleAndExpRangeDecaysByIteration() {
        SGD opt = sgd(1.0, 1.0);
        CyclicLR s = new CyclicLR(opt, CyclicLR.options(0.1, 0.5).stepSizeUp(3).mode("triangular2").cycleMomentum(false));
        check(s, opt, 20, List.of(e -> 0.1 + 0.4 * triangle(e, 3, 3) / Math.pow(2, e / 6)));
        assertEquals(0.9, opt.paramGroups().get(0).getDouble("momentum"));   // untouched without cycleMomentum

        SGD opt2 = sgd(1.0, 1.0);
        CyclicLR s2 = new CyclicLR(opt2, CyclicLR.options(0.1, 0.5).stepSizeUp(2).stepSizeDown(5).mode("exp_range").gamma(0.9));
        check(s2, opt2, 20, List.of(e -> 0.1 + 0.4 * triangle(e, 2, 5) * Math.pow(0.9, e)));

        // a custom scale by cycle number
        SGD opt3 = sgd(1.0, 1.0);
        CyclicLR s3 = new CyclicLR(opt3, CyclicLR.options(0.0, 1.0).stepSizeUp(2).scaleFn(c -> 1.0 / c, "cycle"));
        check(s3, opt3, 13, List.of(e -> triangle(e, 2, 2) / (e / 4 + 1)));
    }

    @Test
    void cyclicLRCyclesAdamsFirstBeta() {
        Adam opt = new Adam(List.of(Tensor.of(1.0).requiresGrad(true)), Adam.options().lr(0.3).betas(0.95, 0.99));
        CyclicLR s = new CyclicLR(opt, CyclicLR.options(1e-3, 1e-2).stepSizeUp(5).baseMomentum(0.85).maxMomentum(0.95));
        for (int e = 0; e < 12; e++) {
            if (e > 0) s.step();
            double[] betas = opt.paramGroups().get(0).getPair("betas");
            assertEquals(0.95 - 0.1 * triangle(e, 5, 5), betas[0], 1e-14);
            assertEquals(0.99, betas[1]);
        }
    }

    @Test
    void cyclicLRErrors() {
        var rms = new Adagrad(List.of(Tensor.of(1.0).requiresGrad(true)), Adagrad.options());
        assertEquals("optimizer must support momentum or beta1 with `cycle_momentum` option enabled",
                assertThrows(IllegalArgumentException.class, () -> new CyclicLR(rms, CyclicLR.options(0.1, 1.0))).getMessage());
        assertEquals("mode is invalid and scale_fn is None",
                assertThrows(IllegalArgumentException.class, () -> new CyclicLR(sgd(0.1, 0.1), CyclicLR.options(0.1, 1.0).mode("sawtooth"))).getMessage());
    }
}
