package dev.ember.optim;

import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToDoubleFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ExponentialLR, MultiStepLR, ConstantLR, LambdaLR, MultiplicativeLR, CosineAnnealingWarmRestarts,
 * OneCycleLR, ReduceLROnPlateau and SequentialLR, epoch by epoch, against the formulas PyTorch's
 * documentation gives (closed forms, for two groups with different initial rates) and, where
 * PyTorch computes recursively, against that recursion written out, bit for bit.
 */
class MoreLRSchedulersTest {

    private static SGD sgd(double lr0, double lr1) {
        return new SGD(List.of(Tensor.of(1.0).requiresGrad(true)), SGD.options().lr(lr0).momentum(0.9))
                .addParamGroup(List.of(Tensor.of(2.0).requiresGrad(true)), o -> o.lr(lr1));
    }

    /** Steps {@code s} through {@code epochs} epochs, checking every group's rate against its closed form within 1e-12. */
    private static void check(LRScheduler s, Optimizer opt, int epochs, List<IntToDoubleFunction> closedForms) {
        for (int epoch = 0; epoch < epochs; epoch++) {
            if (epoch > 0) {
                opt.step();
                s.step();
            }
            assertEquals(epoch, s.lastEpoch());
            for (int g = 0; g < closedForms.size(); g++) {
                double expected = closedForms.get(g).applyAsDouble(epoch);
                assertEquals(expected, s.getLastLr().get(g), 1e-12 * Math.abs(expected) + 1e-18, s.getClass().getSimpleName() + " epoch " + epoch + " group " + g);
                assertEquals(s.getLastLr().get(g), opt.paramGroups().get(g).lr());
            }
        }
    }

    @Test
    void exponentialLR() {
        SGD opt = sgd(0.1, 0.02);
        ExponentialLR s = new ExponentialLR(opt, 0.9);
        check(s, opt, 15, List.of(e -> 0.1 * Math.pow(0.9, e), e -> 0.02 * Math.pow(0.9, e)));
        // bit for bit: PyTorch multiplies the group's rate by gamma each step
        SGD opt2 = sgd(0.3, 0.3);
        ExponentialLR s2 = new ExponentialLR(opt2, 0.95);
        double lr = 0.3;
        for (int e = 1; e < 30; e++) {
            s2.step();
            lr = lr * 0.95;
            assertEquals(lr, s2.getLastLr().get(0), 0.0);
        }
    }

    @Test
    void multiStepLRCountsRepeatedMilestones() {
        SGD opt = sgd(0.1, 0.04);
        MultiStepLR s = new MultiStepLR(opt, List.of(3, 7, 7, 12), 0.5);
        // closed form: gamma to the number of milestones at or before the epoch (bisect_right)
        IntToDoubleFunction passed = e -> (e >= 3 ? 1 : 0) + (e >= 7 ? 2 : 0) + (e >= 12 ? 1 : 0);
        check(s, opt, 16, List.of(e -> 0.1 * Math.pow(0.5, passed.applyAsDouble(e)), e -> 0.04 * Math.pow(0.5, passed.applyAsDouble(e))));
        assertEquals(0.1 * 0.5 * 0.25 * 0.5, s.getLastLr().get(0), 1e-15);
    }

    @Test
    void constantLR() {
        SGD opt = sgd(0.1, 0.05);
        ConstantLR s = new ConstantLR(opt, 0.25, 4);
        check(s, opt, 10, List.of(e -> e < 4 ? 0.025 : 0.1, e -> e < 4 ? 0.0125 : 0.05));
        var e = assertThrows(IllegalArgumentException.class, () -> new ConstantLR(sgd(0.1, 0.1), 1.5, 3));
        assertEquals("Constant multiplicative factor expected to be between 0 and 1.", e.getMessage());
    }

    @Test
    void lambdaAndMultiplicativeLR() {
        SGD opt = sgd(0.1, 0.2);
        LambdaLR s = new LambdaLR(opt, List.of(e -> Math.min(1.0, (e + 1) / 5.0), e -> 1.0 / (1 + e)));
        check(s, opt, 10, List.of(e -> 0.1 * Math.min(1.0, (e + 1) / 5.0), e -> 0.2 / (1 + e)));
        var err = assertThrows(IllegalArgumentException.class, () -> new LambdaLR(sgd(0.1, 0.1), List.of(e -> 1.0)));
        assertEquals("Expected 2 lr_lambdas, but got 1", err.getMessage());

        SGD opt2 = sgd(0.1, 0.2);
        MultiplicativeLR m = new MultiplicativeLR(opt2, e -> 0.9);
        check(m, opt2, 10, List.of(e -> 0.1 * Math.pow(0.9, e), e -> 0.2 * Math.pow(0.9, e)));
    }

    @Test
    void cosineAnnealingWarmRestarts() {
        SGD opt = sgd(0.1, 0.05);
        CosineAnnealingWarmRestarts s = new CosineAnnealingWarmRestarts(opt, 3, 2, 0.001);
        // periods of 3, 6, 12 epochs: restarts at epochs 3 and 9
        IntToDoubleFunction tCur = e -> e < 3 ? e : e < 9 ? e - 3 : e - 9;
        IntToDoubleFunction tI = e -> e < 3 ? 3 : e < 9 ? 6 : 12;
        check(s, opt, 20, List.of(e -> 0.001 + (0.1 - 0.001) * (1 + Math.cos(Math.PI * tCur.applyAsDouble(e) / tI.applyAsDouble(e))) / 2,
                e -> 0.001 + (0.05 - 0.001) * (1 + Math.cos(Math.PI * tCur.applyAsDouble(e) / tI.applyAsDouble(e))) / 2));
        assertThrows(IllegalArgumentException.class, () -> new CosineAnnealingWarmRestarts(sgd(0.1, 0.1), 0));
    }

    /** PyTorch's documented 1cycle, written from its description: (step, phase ends, start and end values) → annealed value. */
    private static double cosAnneal(double start, double end, double pct) { return end + (start - end) / 2.0 * (Math.cos(Math.PI * pct) + 1); }

    @Test
    void oneCycleLRWithSgdMomentum() {
        SGD opt = sgd(0.1, 0.1);
        OneCycleLR s = new OneCycleLR(opt, OneCycleLR.options(1.0).totalSteps(20));
        double initial = 1.0 / 25, min = initial / 1e4, up = 0.3 * 20 - 1;   // rises over steps 0..5, falls over 5..19
        List<Double> lrs = new ArrayList<>(), momenta = new ArrayList<>();
        for (int step = 0; step < 20; step++) {
            if (step > 0) s.step();
            double expected = step <= up ? cosAnneal(initial, 1.0, step / up) : cosAnneal(1.0, min, (step - up) / (19 - up));
            double momentum = step <= up ? cosAnneal(0.95, 0.85, step / up) : cosAnneal(0.85, 0.95, (step - up) / (19 - up));
            assertEquals(expected, s.getLastLr().get(1), 1e-15, "lr at step " + step);
            assertEquals(momentum, opt.paramGroups().get(0).getDouble("momentum"), 1e-15, "momentum at step " + step);
            lrs.add(s.getLastLr().get(0));
            momenta.add(opt.paramGroups().get(0).getDouble("momentum"));
        }
        assertEquals(initial, lrs.get(0), 1e-16);   // max + (initial - max) / 2 * 2, as PyTorch computes it: 0.040000000000000036
        assertEquals(1.0, lrs.get(5), 1e-15);              // the peak
        assertEquals(min, lrs.get(19), 1e-18);             // the end: initial / final_div_factor
        assertEquals(0.85, momenta.get(5), 1e-15);
        assertEquals(0.95, momenta.get(19), 1e-15);
        assertEquals(initial, opt.paramGroups().get(0).getDouble("initial_lr"));
        s.step();   // PyTorch refuses only a step number above total_steps: epoch 20 still runs (past the end of the cosine)
        var e = assertThrows(IllegalStateException.class, s::step);
        assertEquals("Tried to step 21 times. The specified number of total steps is 20", e.getMessage());
    }

    @Test
    void oneCycleLRLinearThreePhaseWithAdamBeta1() {
        Adam opt = new Adam(List.of(Tensor.of(1.0).requiresGrad(true)), Adam.options().lr(0.1).betas(0.9, 0.99));
        OneCycleLR s = new OneCycleLR(opt, OneCycleLR.options(0.5).epochs(2).stepsPerEpoch(10).annealStrategy("linear").threePhase(true)
                .divFactor(10).finalDivFactor(100));
        double initial = 0.05, min = 0.0005, e1 = 0.3 * 20 - 1, e2 = 2 * 0.3 * 20 - 2;   // phases end at 5, 10, 19
        for (int step = 0; step < 20; step++) {
            if (step > 0) s.step();
            double lr = step <= e1 ? initial + (0.5 - initial) * (step / e1)
                    : step <= e2 ? 0.5 + (initial - 0.5) * ((step - e1) / (e2 - e1))
                    : initial + (min - initial) * ((step - e2) / (19 - e2));
            double beta1 = step <= e1 ? 0.95 + (0.85 - 0.95) * (step / e1) : step <= e2 ? 0.85 + (0.95 - 0.85) * ((step - e1) / (e2 - e1)) : 0.95;
            assertEquals(lr, s.getLastLr().get(0), 1e-15, "lr at step " + step);
            double[] betas = opt.paramGroups().get(0).getPair("betas");
            assertEquals(beta1, betas[0], 1e-15, "beta1 at step " + step);
            assertEquals(0.99, betas[1], "beta2 untouched");
        }
    }

    @Test
    void oneCycleLRErrors() {
        assertEquals("You must define either total_steps OR (epochs AND steps_per_epoch)",
                assertThrows(IllegalArgumentException.class, () -> new OneCycleLR(sgd(0.1, 0.1), OneCycleLR.options(1).epochs(3))).getMessage());
        assertEquals("Expected positive integer total_steps, but got 0",
                assertThrows(IllegalArgumentException.class, () -> new OneCycleLR(sgd(0.1, 0.1), OneCycleLR.options(1).totalSteps(0))).getMessage());
        assertEquals("anneal_strategy must be one of 'cos' or 'linear', instead got exp",
                assertThrows(IllegalArgumentException.class, () -> new OneCycleLR(sgd(0.1, 0.1), OneCycleLR.options(1).totalSteps(5).annealStrategy("exp"))).getMessage());
    }

    @Test
    void reduceLROnPlateauWithPatienceCooldownAndFloor() {
        SGD opt = sgd(0.1, 0.01);
        ReduceLROnPlateau s = new ReduceLROnPlateau(opt, ReduceLROnPlateau.options().factor(0.5).patience(2).cooldown(1).minLrs(List.of(0.02, 0.001)));
        // rel threshold 1e-4: 0.99995 is no improvement on 1.0 (needs < 0.9999)
        double[] metrics = {1.0, 0.99995, 1.2, 1.1, 1.0, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6};
        double[][] expected = {
                {0.1, 0.01}, {0.1, 0.01}, {0.1, 0.01},
                {0.05, 0.005},                  // 3 bad epochs > patience 2: halved, cooldown 1
                {0.05, 0.005},                  // cooldown: forgiven
                {0.05, 0.005},                  // 0.5: better
                {0.05, 0.005}, {0.05, 0.005},
                {0.025, 0.0025},                // 3 bad again
                {0.025, 0.0025},                // cooldown: forgiven
                {0.025, 0.0025}, {0.025, 0.0025},
                {0.02, 0.00125}};               // 3 bad: group 0 floored at min_lr 0.02
        for (int i = 0; i < metrics.length; i++) {
            s.step(metrics[i]);
            assertEquals(expected[i][0], s.getLastLr().get(0), 1e-15, "epoch " + (i + 1) + " group 0");
            assertEquals(expected[i][1], s.getLastLr().get(1), 1e-15, "epoch " + (i + 1) + " group 1");
        }
        assertEquals(0.5, s.best());
        // max mode, abs threshold
        SGD opt2 = sgd(0.1, 0.1);
        ReduceLROnPlateau acc = new ReduceLROnPlateau(opt2, ReduceLROnPlateau.options().mode("max").thresholdMode("abs").threshold(0.1).patience(0));
        acc.step(0.5);
        acc.step(0.55);   // not above 0.5 + 0.1: reduced at once (patience 0)
        assertEquals(0.01, acc.getLastLr().get(0), 1e-15);
        assertEquals("Factor should be < 1.0.", assertThrows(IllegalArgumentException.class,
                () -> new ReduceLROnPlateau(sgd(0.1, 0.1), ReduceLROnPlateau.options().factor(1.0))).getMessage());
        assertEquals("mode avg is unknown!", assertThrows(IllegalArgumentException.class,
                () -> new ReduceLROnPlateau(sgd(0.1, 0.1), ReduceLROnPlateau.options().mode("avg"))).getMessage());
    }

    @Test
    void sequentialLRWarmupThenCosine() {
        SGD opt = sgd(0.1, 0.04);
        LinearLR warmup = new LinearLR(opt, 0.1, 1.0, 4);
        CosineAnnealingLR decay = new CosineAnnealingLR(opt, 10, 0.0);
        SequentialLR s = new SequentialLR(opt, List.of(warmup, decay), List.of(4));
        // epochs 0..3: the warmup from the initial rate; from epoch 4: cosine restarted at its epoch 0
        IntToDoubleFunction f0 = e -> e < 4 ? 0.1 * (0.1 + 0.9 * e / 4) : 0.1 * (1 + Math.cos(Math.PI * (e - 4) / 10)) / 2;
        IntToDoubleFunction f1 = e -> e < 4 ? 0.04 * (0.1 + 0.9 * e / 4) : 0.04 * (1 + Math.cos(Math.PI * (e - 4) / 10)) / 2;
        check(s, opt, 16, List.of(f0, f1));
        assertEquals(11, decay.lastEpoch());
    }

    @Test
    void sequentialLRErrors() {
        SGD opt = sgd(0.1, 0.1), other = sgd(0.1, 0.1);
        ExponentialLR a = new ExponentialLR(opt, 0.9);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new SequentialLR(opt, List.of(a, new ExponentialLR(other, 0.9)), List.of(3)))
                .getMessage().startsWith("Sequential Schedulers expects all schedulers to belong to the same optimizer"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new SequentialLR(opt, List.of(a), List.of(3)))
                .getMessage().contains("but got number of schedulers 1 and the number of milestones to be equal to 1"));
    }
}
