package dev.ember.optim;

import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.IntToDoubleFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * StepLR, CosineAnnealingLR and LinearLR against the closed forms PyTorch documents (its
 * {@code _get_closed_form_lr}), epoch by epoch, for two parameter groups with different initial
 * rates; and against the recursive form PyTorch's {@code get_lr} computes, written out in plain
 * Java, bit for bit.
 */
class LRSchedulerTest {

    private static SGD optimizer(double lr0, double lr1) {
        return new SGD(List.of(Tensor.of(1.0).requiresGrad(true)), SGD.options().lr(lr0).momentum(0.9))
                .addParamGroup(List.of(Tensor.of(2.0).requiresGrad(true)), o -> o.lr(lr1));
    }

    private static void checkClosedForm(LRScheduler s, SGD opt, int epochs, List<IntToDoubleFunction> closedForms) {
        for (int epoch = 0; epoch < epochs; epoch++) {
            if (epoch > 0) {
                opt.step();   // nothing to update (no gradients): the order PyTorch asks for
                s.step();
            }
            assertEquals(epoch, s.lastEpoch());
            for (int g = 0; g < closedForms.size(); g++) {
                double expected = closedForms.get(g).applyAsDouble(epoch);
                assertEquals(expected, s.getLastLr().get(g), 1e-12 * Math.abs(expected) + 1e-18, "epoch " + epoch + " group " + g);
                assertEquals(s.getLastLr().get(g), opt.paramGroups().get(g).lr(), "the group's lr is the last lr");
            }
        }
    }

    @Test
    void stepLRMatchesItsClosedForm() {
        SGD opt = optimizer(0.1, 0.05);
        StepLR s = new StepLR(opt, 3, 0.5);
        checkClosedForm(s, opt, 20, List.of(e -> 0.1 * Math.pow(0.5, e / 3), e -> 0.05 * Math.pow(0.5, e / 3)));
        assertEquals(0.1, opt.paramGroups().get(0).getDouble("initial_lr"));
        assertEquals(List.of(0.1, 0.05), s.baseLrs());
    }

    @Test
    void stepLRComputesAsPyTorchDoesBitForBit() {
        SGD opt = optimizer(0.1, 0.3);
        StepLR s = new StepLR(opt, 2);
        double lr = 0.3;   // PyTorch: group["lr"] * gamma at each multiple of step_size
        for (int epoch = 1; epoch <= 12; epoch++) {
            s.step();
            if (epoch % 2 == 0) lr = lr * 0.1;
            assertEquals(lr, s.getLastLr().get(1), 0.0, "epoch " + epoch);
        }
    }

    @Test
    void cosineAnnealingMatchesItsClosedFormThroughAndPastTMax() {
        SGD opt = optimizer(0.1, 0.02);
        double etaMin = 0.001;
        int tMax = 10;
        CosineAnnealingLR s = new CosineAnnealingLR(opt, tMax, etaMin);
        IntToDoubleFunction g0 = e -> etaMin + (0.1 - etaMin) * (1 + Math.cos(Math.PI * e / tMax)) / 2;
        IntToDoubleFunction g1 = e -> etaMin + (0.02 - etaMin) * (1 + Math.cos(Math.PI * e / tMax)) / 2;
        checkClosedForm(s, opt, 3 * tMax + 3, List.of(g0, g1));   // down to eta_min at T_max, up again, down again
    }

    @Test
    void cosineAnnealingComputesAsPyTorchDoesBitForBit() {
        SGD opt = optimizer(0.1, 0.1);
        CosineAnnealingLR s = new CosineAnnealingLR(opt, 4, 0.0);
        double lr = 0.1;
        for (int e = 1; e <= 20; e++) {
            s.step();
            // torch/optim/lr_scheduler.py CosineAnnealingLR.get_lr, for last_epoch > 0 (Python's % is floor modulo)
            if (Math.floorMod(e - 1 - 4, 8) == 0) lr = lr + (0.1 - 0.0) * (1 - Math.cos(Math.PI / 4)) / 2;
            else lr = (1 + Math.cos(Math.PI * e / 4)) / (1 + Math.cos(Math.PI * (e - 1) / 4)) * (lr - 0.0) + 0.0;
            assertEquals(lr, s.getLastLr().get(0), 0.0, "epoch " + e);
        }
    }

    @Test
    void linearLRWarmupMatchesItsClosedForm() {
        SGD opt = optimizer(0.1, 0.01);
        LinearLR s = new LinearLR(opt, 0.25, 1.0, 8);
        IntToDoubleFunction factor = e -> 0.25 + (1.0 - 0.25) * Math.min(8, e) / 8;
        checkClosedForm(s, opt, 15, List.of(e -> 0.1 * factor.applyAsDouble(e), e -> 0.01 * factor.applyAsDouble(e)));
        assertEquals(0.1, s.getLastLr().get(0), 1e-15, "held at end_factor once done (PyTorch's recursion ends at 0.09999999999999999 too)");
    }

    @Test
    void linearLRDefaultsAndDecay() {
        SGD opt = optimizer(0.3, 0.3);
        LinearLR warm = new LinearLR(opt);   // start 1/3, end 1, 5 iterations
        assertEquals(0.1, warm.getLastLr().get(0), 1e-16);
        SGD opt2 = optimizer(1.0, 1.0);
        checkClosedForm(new LinearLR(opt2, 1.0, 0.1, 4), opt2, 7, List.of(e -> 1.0 + (0.1 - 1.0) * Math.min(4, e) / 4));
    }

    @Test
    void schedulersChainOnOneOptimizer() {
        SGD opt = optimizer(0.1, 0.1);
        LinearLR warm = new LinearLR(opt, 0.5, 1.0, 2);
        StepLR decay = new StepLR(opt, 3, 0.1);
        assertEquals(0.05, opt.paramGroups().getFirst().lr(), 1e-17, "the second scheduler keeps initial_lr and the current lr");
        assertEquals(List.of(0.1, 0.1), decay.baseLrs());
        for (int e = 1; e <= 3; e++) {
            warm.step();
            decay.step();
        }
        assertEquals(0.1 * 0.1, opt.paramGroups().getFirst().lr(), 1e-17, "warmed up to 0.1, then decayed once at epoch 3");
    }

    @Test
    void badSettingsAreRefused() {
        SGD opt = optimizer(0.1, 0.1);
        assertEquals("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.",
                assertThrows(IllegalArgumentException.class, () -> new LinearLR(opt, 0, 1, 5)).getMessage());
        assertEquals("Ending multiplicative factor expected to be between 0 and 1.",
                assertThrows(IllegalArgumentException.class, () -> new LinearLR(opt, 0.5, 1.5, 5)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new StepLR(opt, 0));
        assertThrows(IllegalArgumentException.class, () -> new CosineAnnealingLR(opt, 0));
        assertEquals(0.1, opt.paramGroups().getFirst().lr(), "refused schedulers change nothing");
        assertEquals(false, opt.paramGroups().getFirst().options().containsKey("initial_lr"));
    }
}
