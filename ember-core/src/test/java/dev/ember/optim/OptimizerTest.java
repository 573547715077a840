package dev.ember.optim;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.nn.Linear;
import dev.ember.nn.Parameter;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The optimizers' behaviour beyond the update rule: options and their errors, groups, zeroGrad, in-place updates, state dicts. */
class OptimizerTest {

    private static Tensor leaf(double... v) { return Tensor.of(v, v.length).requiresGrad(true); }

    private static String error(Runnable r) { return assertThrows(IllegalArgumentException.class, r::run).getMessage(); }

    @Test
    void optionsAreCheckedWithPyTorchsMessages() {
        assertEquals("Invalid learning rate: -0.1", error(() -> SGD.options().lr(-0.1)));
        assertEquals("Invalid momentum value: -1.0", error(() -> SGD.options().momentum(-1)));
        assertEquals("Invalid weight_decay value: -1e-05", error(() -> SGD.options().weightDecay(-1e-5)));
        assertEquals("Nesterov momentum requires a momentum and zero dampening", error(() -> new SGD(List.of(leaf(1)), SGD.options().nesterov(true))));
        assertEquals("Nesterov momentum requires a momentum and zero dampening",
                error(() -> new SGD(List.of(leaf(1)), SGD.options().momentum(0.9).dampening(0.1).nesterov(true))));
        assertEquals("Invalid learning rate: -0.001", error(() -> Adam.options().lr(-1e-3)));
        assertEquals("Invalid learning rate: nan", error(() -> AdamW.options().lr(Double.NaN)));
        assertEquals("Invalid epsilon value: -1e-08", error(() -> Adam.options().eps(-1e-8)));
        assertEquals("Invalid beta parameter at index 0: 1.0", error(() -> Adam.options().betas(1.0, 0.999)));
        assertEquals("Invalid beta parameter at index 1: -0.5", error(() -> Adam.options().betas(0.9, -0.5)));
        assertEquals("Invalid weight_decay value: -0.01", error(() -> AdamW.options().weightDecay(-0.01)));
        assertEquals("Invalid beta parameter at index 1: 1e+20", error(() -> Adam.options().betas(0.9, 1e20)));
    }

    @Test
    void parametersAreChecked() {
        assertEquals("optimizer got an empty parameter list", error(() -> new SGD(List.of(), SGD.options())));
        Tensor p = leaf(1, 2);
        assertTrue(error(() -> new SGD(List.of(p, p), SGD.options())).startsWith("optimizer contains a parameter group with duplicate parameters"));
        assertTrue(error(() -> new SGD(List.of(p.mul(2.0)), SGD.options())).startsWith("can't optimize a non-leaf Tensor"));
        assertTrue(error(() -> new SGD(List.of(Tensor.ofLongs(1, 2)), SGD.options())).startsWith("can only optimize floating point tensors"));
        SGD opt = new SGD(List.of(p), SGD.options());
        assertEquals("some parameters appear in more than one parameter group", error(() -> opt.addParamGroup(List.of(p))));
    }

    @Test
    void stepUpdatesTheParameterInPlaceWithoutRecordingAndSkipsParametersWithoutGradients() {
        Tensor a = leaf(1, 2), b = leaf(3, 4);
        var storage = a.storage();
        int version = a.version();
        SGD opt = new SGD(List.of(a, b), SGD.options().lr(0.5).momentum(0.9));
        a.mul(a).sum().backward();   // grad 2a
        opt.step();
        assertArrayEquals(new double[] {0, 0}, a.toDoubleArray(), "1 - 0.5 * 2, 2 - 0.5 * 4");
        assertSame(storage, a.storage(), "updated in place");
        assertTrue(a.version() > version, "the version counter counts the update");
        assertTrue(a.isLeaf() && a.requiresGrad(), "still a leaf requiring grad");
        assertArrayEquals(new double[] {3, 4}, b.toDoubleArray(), "no gradient, no update");
        assertTrue(opt.state(b).isEmpty());
        assertNotNull(opt.state(a).get("momentum_buffer"));
        assertFalse(opt.state(a).get("momentum_buffer").requiresGrad());
    }

    @Test
    void zeroGradSetsGradientsToNoneOrZerosThemInPlace() {
        Tensor a = leaf(1, 2);
        SGD opt = new SGD(List.of(a), SGD.options());
        a.sum().backward();
        Tensor g = a.grad();
        opt.zeroGrad(false);
        assertSame(g, a.grad());
        assertArrayEquals(new double[] {0, 0}, g.toDoubleArray());
        opt.zeroGrad();
        assertNull(a.grad());
        opt.zeroGrad();   // nothing to clear
        assertNull(a.grad());
    }

    @Test
    void moduleZeroGradClearsEveryParameter() {
        Sequential model = new Sequential(new Linear(3, 4), new ReLU(), new Linear(4, 2));
        model.forward(Tensor.randn(5, 3)).sum().backward();
        for (Parameter p : model.parameters()) assertNotNull(p.grad());
        model.zeroGrad(false);
        for (Parameter p : model.parameters()) assertEquals(0.0, p.grad().abs().sum().item());
        model.zeroGrad();
        for (Parameter p : model.parameters()) assertNull(p.grad());
    }

    @Test
    void parameterGroupsHaveTheirOwnOptionsAndCanBeChangedBetweenSteps() {
        Tensor a = leaf(1), b = leaf(1);
        SGD opt = new SGD(List.of(a), SGD.options().lr(0.1)).addParamGroup(List.of(b), o -> o.lr(0.01));
        assertEquals(2, opt.paramGroups().size());
        assertEquals(0.01, opt.paramGroups().get(1).lr());
        assertEquals(0.0, opt.paramGroups().get(1).getDouble("momentum"), "other options from the defaults");
        a.setGrad(Tensor.of(1.0));
        b.setGrad(Tensor.of(1.0));
        opt.step();
        assertEquals(0.9, a.item(), 1e-15);
        assertEquals(0.99, b.item(), 1e-15);
        opt.paramGroups().get(0).setLr(0.5);
        opt.step();
        assertEquals(0.4, a.item(), 1e-15);
        assertEquals("Invalid momentum value: -1.0", error(() -> opt.paramGroups().get(0).set("momentum", -1)));
        assertEquals("Nesterov momentum requires a momentum and zero dampening", error(() -> opt.paramGroups().get(0).set("nesterov", true)));
        assertTrue(error(() -> opt.paramGroups().get(0).set("betas", 0.5)).startsWith("parameter group has no option 'betas'"));
        assertEquals(0.5, opt.paramGroups().get(0).lr(), "a refused change changes nothing");
    }

    @Test
    void adamWDefaultsAreTorchsAndPrintLikePyTorch() {
        AdamW opt = new AdamW(List.of(leaf(1)), AdamW.options());
        Map<String, Object> g = opt.paramGroups().getFirst().options();
        assertEquals(1e-3, g.get("lr"));
        assertEquals(List.of(0.9, 0.999), g.get("betas"));
        assertEquals(1e-8, g.get("eps"));
        assertEquals(1e-2, g.get("weight_decay"));
        assertEquals(true, g.get("decoupled_weight_decay"));
        assertEquals("""
                AdamW (
                Parameter Group 0
                    amsgrad: False
                    betas: (0.9, 0.999)
                    decoupled_weight_decay: True
                    eps: 1e-08
                    lr: 0.001
                    maximize: False
                    weight_decay: 0.01
                )""", opt.toString());
        assertEquals(0.0, new Adam(List.of(leaf(1)), Adam.options()).paramGroups().getFirst().getDouble("weight_decay"));
    }

    @Test
    void stepWithAClosureReturnsItsLoss() {
        Tensor w = leaf(2);
        SGD opt = new SGD(List.of(w), SGD.options().lr(0.25));
        Tensor loss;
        try (var unused = Ember.noGrad()) {   // the closure runs with recording on anyway
            loss = opt.step(() -> {
                opt.zeroGrad();
                Tensor l = w.mul(w).sum();
                l.backward();
                return l;
            });
        }
        assertEquals(4.0, loss.item());
        assertEquals(1.0, w.item(), "2 - 0.25 * 4");
    }

    @Test
    void aCompiledFunctionHoldingTheParametersSeesTheUpdates() {
        Linear model = new Linear(3, 2);
        Fn1<Tensor, Tensor> compiled = Ember.compile(model);
        Tensor x = Tensor.randn(4, 3);
        Tensor before = compiled.apply(x);
        AdamW opt = new AdamW(model.parameters(), AdamW.options().lr(0.1));
        model.forward(x).sum().backward();
        opt.step();
        Tensor after = compiled.apply(x);
        try (var unused = Ember.noGrad()) {
            assertArrayEquals(model.forward(x).toFloatArray(), after.toFloatArray(), 1e-6f);
        }
        assertTrue(before.sub(after).abs().amax().item() > 1e-3, "the update is seen");
    }

    @Test
    void stateDictRoundTripContinuesTrainingIdentically(@TempDir Path dir) throws Exception {
        for (boolean viaFile : new boolean[] {false, true}) {
            Tensor a = leaf(1, -2, 3), b = Tensor.of(new double[] {0.5, 0.25, -1, 2}, 2, 2).requiresGrad(true);
            Adam opt = new Adam(List.of(a), Adam.options().lr(0.1).amsgrad(true)).addParamGroup(List.of(b), o -> o.lr(0.05));
            for (int i = 0; i < 3; i++) train(opt, a, b);
            Tensor a2 = a.detach().clone().requiresGrad(true), b2 = b.detach().clone().requiresGrad(true);
            Adam opt2 = new Adam(List.of(a2), Adam.options()).addParamGroup(List.of(b2), o -> o.lr(0.5));
            if (viaFile) {
                opt.save(dir.resolve("opt.safetensors"));
                opt2.load(dir.resolve("opt.safetensors"));
            } else {
                opt2.loadStateDict(opt.stateDict());
            }
            assertEquals(opt.paramGroups().get(1).options(), opt2.paramGroups().get(1).options(), "options come from the state dict");
            assertNotSame(opt.state(a).get("exp_avg"), opt2.state(a2).get("exp_avg"), "state is copied");
            for (int i = 0; i < 3; i++) {
                train(opt, a, b);
                train(opt2, a2, b2);
                assertArrayEquals(a.toDoubleArray(), a2.toDoubleArray(), 0, "via file: " + viaFile);
                assertArrayEquals(b.toDoubleArray(), b2.toDoubleArray(), 0, "via file: " + viaFile);
            }
        }
    }

    private static void train(Optimizer opt, Tensor a, Tensor b) {
        opt.zeroGrad();
        a.mul(a).sum().add(b.tanh().mul(a.sum()).sum()).backward();
        opt.step();
    }

    @Test
    void stateDictHasPyTorchsLayoutAndMismatchesAreRefused() {
        Tensor a = leaf(1, 2), b = leaf(3);
        SGD opt = new SGD(List.of(a, b), SGD.options().lr(0.1).momentum(0.9));
        a.sum().backward();
        opt.step();
        Optimizer.StateDict sd = opt.stateDict();
        assertEquals(List.of(0), List.copyOf(sd.state().keySet()), "only a has state (b had no gradient)");
        assertEquals(List.of(0, 1), sd.paramGroups().getFirst().get("params"));
        assertEquals(0.9, sd.paramGroups().getFirst().get("momentum"));

        SGD two = new SGD(List.of(leaf(1, 2)), SGD.options()).addParamGroup(List.of(leaf(3)), o -> {});
        assertEquals("loaded state dict has a different number of parameter groups", error(() -> two.loadStateDict(sd)));
        SGD one = new SGD(List.of(leaf(1, 2)), SGD.options());
        assertEquals("loaded state dict contains a parameter group that doesn't match the size of optimizer's group", error(() -> one.loadStateDict(sd)));
        Tensor wrongShape = leaf(1, 2, 3);
        SGD shaped = new SGD(List.of(wrongShape, leaf(3)), SGD.options().lr(0.7));
        assertTrue(error(() -> shaped.loadStateDict(sd)).startsWith("loaded state dict's 'momentum_buffer' for parameter 0 has shape [2], but the parameter has shape [3]"));
        assertEquals(0.7, shaped.paramGroups().getFirst().lr(), "nothing changed");
        assertTrue(shaped.state(wrongShape).isEmpty());
    }

    @Test
    void stateIsConvertedToTheParametersDtypeExceptStep() {
        Tensor a = leaf(1, 2);
        Adam opt = new Adam(List.of(a), Adam.options());
        a.sum().backward();
        opt.step();
        Tensor f = Tensor.of(new float[] {1, 2}, 2).requiresGrad(true);
        Adam opt32 = new Adam(List.of(f), Adam.options());
        opt32.loadStateDict(opt.stateDict());
        assertEquals(DType.FLOAT32, opt32.state(f).get("exp_avg").dtype());
        assertEquals(DType.FLOAT32, opt32.state(f).get("step").dtype());
    }
}
