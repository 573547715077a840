package dev.ember.optim;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.function.Function;

import static dev.ember.optim.OptimizerConformanceTest.STEPS;
import static dev.ember.optim.OptimizerConformanceTest.assertMatches;
import static dev.ember.optim.OptimizerConformanceTest.deepCopy;
import static dev.ember.optim.OptimizerConformanceTest.leaves;
import static dev.ember.optim.OptimizerConformanceTest.randomGrads;
import static dev.ember.optim.OptimizerConformanceTest.randomParams;
import static dev.ember.optim.OptimizerConformanceTest.setGrads;
import static dev.ember.optim.OptimizerConformanceTest.zerosLike;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Adamax, NAdam, RAdam and Adadelta step by step in float64 against torch.optim's documented
 * algorithms written out here in plain Java, element by element (DJL exposes none of the four), for
 * every option: weight decay (coupled and decoupled), maximize, betas, rho, momentum_decay.
 */
class MoreOptimizersTest {

    /** One element's update of a reference algorithm: {@code s} is the element's state, {@code t} the step. */
    interface Rule {
        double apply(double p, double g, double[] s, int t);
    }

    /**
     * Runs {@code opt} and {@code rule} side by side for {@link OptimizerConformanceTest#STEPS}
     * steps on the shared shapes and checks every parameter and the named state tensors (the
     * rule's state slots in the same order) after each.
     */
    private static void check(String name, Function<List<Tensor>, Optimizer> make, Rule rule, String... stateNames) {
        Random rng = new Random(name.hashCode());
        double[][] init = randomParams(rng);
        List<Tensor> params = leaves(init, DType.FLOAT64);
        Optimizer opt = make.apply(params);
        double[][] p = deepCopy(init);
        double[][][] s = new double[p.length][][];
        for (int i = 0; i < p.length; i++) s[i] = new double[p[i].length][stateNames.length];
        for (int step = 1; step <= STEPS; step++) {
            double[][] grads = randomGrads(rng);
            setGrads(params, grads, DType.FLOAT64);
            opt.step();
            for (int i = 0; i < p.length; i++) {
                for (int k = 0; k < p[i].length; k++) p[i][k] = rule.apply(p[i][k], grads[i][k], s[i][k], step);
                assertMatches(params.get(i), p[i], name + " step " + step + " param " + i);
                for (int j = 0; j < stateNames.length; j++) {
                    double[] slot = new double[p[i].length];
                    for (int k = 0; k < slot.length; k++) slot[k] = s[i][k][j];
                    assertMatches(opt.state(params.get(i)).get(stateNames[j]), slot, name + " " + stateNames[j]);
                }
                assertEquals(step, opt.state(params.get(i)).get("step").item());
            }
        }
    }

    @Test
    void adamaxMatchesItsAlgorithm() {
        record C(double lr, double b1, double b2, double eps, double wd, boolean maximize) {}
        for (C c : List.of(new C(2e-3, 0.9, 0.999, 1e-8, 0, false), new C(0.05, 0.8, 0.9, 1e-3, 0.1, false), new C(0.01, 0.5, 0.99, 1e-8, 0.05, true))) {
            check("Adamax" + c, ps -> new Adamax(ps, Adamax.options().lr(c.lr()).betas(c.b1(), c.b2()).eps(c.eps()).weightDecay(c.wd()).maximize(c.maximize())),
                    (p, g, s, t) -> {
                        if (c.maximize()) g = -g;
                        g += c.wd() * p;
                        s[0] = c.b1() * s[0] + (1 - c.b1()) * g;
                        s[1] = Math.max(c.b2() * s[1], Math.abs(g) + c.eps());
                        return p - c.lr() / (1 - Math.pow(c.b1(), t)) * s[0] / s[1];
                    }, "exp_avg", "exp_inf");
        }
    }

    @Test
    void nadamMatchesItsAlgorithm() {
        record C(double lr, double b1, double b2, double eps, double wd, double md, boolean decoupled, boolean maximize) {}
        for (C c : List.of(new C(2e-3, 0.9, 0.999, 1e-8, 0, 4e-3, false, false), new C(0.05, 0.8, 0.9, 1e-4, 0.1, 0.05, false, false),
                new C(0.02, 0.9, 0.99, 1e-8, 0.1, 4e-3, true, true))) {
            // mu_product is a float32 scalar in PyTorch's state: its running product rounds to float at each step
            float[] muProduct = {1f};
            int[] lastStep = {0};
            check("NAdam" + c, ps -> new NAdam(ps, NAdam.options().lr(c.lr()).betas(c.b1(), c.b2()).eps(c.eps()).weightDecay(c.wd())
                            .momentumDecay(c.md()).decoupledWeightDecay(c.decoupled()).maximize(c.maximize())),
                    (p, g, s, t) -> {
                        if (t != lastStep[0]) {   // once per step: every parameter's product is the same
                            lastStep[0] = t;
                            muProduct[0] = muProduct[0] * (float) (c.b1() * (1 - 0.5 * Math.pow(0.96, t * c.md())));
                        }
                        if (c.maximize()) g = -g;
                        if (c.decoupled()) p *= 1 - c.lr() * c.wd();
                        else g += c.wd() * p;
                        double mu = c.b1() * (1 - 0.5 * Math.pow(0.96, t * c.md()));
                        double muNext = c.b1() * (1 - 0.5 * Math.pow(0.96, (t + 1) * c.md()));
                        s[0] = c.b1() * s[0] + (1 - c.b1()) * g;
                        s[1] = c.b2() * s[1] + (1 - c.b2()) * g * g;
                        double denom = Math.sqrt(s[1] / (1 - Math.pow(c.b2(), t))) + c.eps();
                        double product = muProduct[0];   // read as a double, as PyTorch's .item()
                        return p - c.lr() * (1 - mu) / (1 - product) * g / denom - c.lr() * muNext / (1 - product * muNext) * s[0] / denom;
                    }, "exp_avg", "exp_avg_sq");
        }
    }

    @Test
    void radamMatchesItsAlgorithmOnBothSidesOfTheRectification() {
        record C(double lr, double b1, double b2, double eps, double wd, boolean decoupled, boolean maximize) {}
        // beta2 = 0.999: rho_t <= 5 for the first steps (unrectified); beta2 = 0.5: rho_inf = 3, never rectified; 0.9: rectified from step 6
        for (C c : List.of(new C(1e-3, 0.9, 0.999, 1e-8, 0, false, false), new C(0.05, 0.8, 0.9, 1e-3, 0.1, false, false),
                new C(0.02, 0.9, 0.9, 1e-8, 0.1, true, true), new C(0.02, 0.9, 0.5, 1e-8, 0, false, false))) {
            check("RAdam" + c, ps -> new RAdam(ps, RAdam.options().lr(c.lr()).betas(c.b1(), c.b2()).eps(c.eps()).weightDecay(c.wd())
                            .decoupledWeightDecay(c.decoupled()).maximize(c.maximize())),
                    (p, g, s, t) -> {
                        if (c.maximize()) g = -g;
                        if (c.decoupled()) p *= 1 - c.lr() * c.wd();
                        else g += c.wd() * p;
                        s[0] = c.b1() * s[0] + (1 - c.b1()) * g;
                        s[1] = c.b2() * s[1] + (1 - c.b2()) * g * g;
                        double bc1 = 1 - Math.pow(c.b1(), t), bc2 = 1 - Math.pow(c.b2(), t);
                        double rhoInf = 2 / (1 - c.b2()) - 1, rhoT = rhoInf - 2 * t * Math.pow(c.b2(), t) / bc2;
                        if (rhoT <= 5) return p - s[0] / bc1 * c.lr();
                        double rect = Math.sqrt((rhoT - 4) * (rhoT - 2) * rhoInf / ((rhoInf - 4) * (rhoInf - 2) * rhoT));
                        return p - s[0] / bc1 * c.lr() * Math.sqrt(bc2) / (Math.sqrt(s[1]) + c.eps()) * rect;
                    }, "exp_avg", "exp_avg_sq");
        }
        // the STEPS above cross rho_t = 5 for beta2 = 0.9 (rho_t(5) < 5 < rho_t(6)), so both branches ran
        double rhoInf = 2 / (1 - 0.9) - 1;
        assertEquals(true, rhoInf - 2 * 5 * Math.pow(0.9, 5) / (1 - Math.pow(0.9, 5)) <= 5);
        assertEquals(true, rhoInf - 2 * 6 * Math.pow(0.9, 6) / (1 - Math.pow(0.9, 6)) > 5);
    }

    @Test
    void adadeltaMatchesItsAlgorithm() {
        record C(double lr, double rho, double eps, double wd, boolean maximize) {}
        for (C c : List.of(new C(1.0, 0.9, 1e-6, 0, false), new C(0.5, 0.7, 1e-3, 0.1, false), new C(2.0, 0.95, 1e-6, 0.05, true))) {
            check("Adadelta" + c, ps -> new Adadelta(ps, Adadelta.options().lr(c.lr()).rho(c.rho()).eps(c.eps()).weightDecay(c.wd()).maximize(c.maximize())),
                    (p, g, s, t) -> {
                        if (c.maximize()) g = -g;
                        g += c.wd() * p;
                        s[0] = c.rho() * s[0] + (1 - c.rho()) * g * g;
                        double delta = Math.sqrt(s[1] + c.eps()) / Math.sqrt(s[0] + c.eps()) * g;
                        s[1] = c.rho() * s[1] + (1 - c.rho()) * delta * delta;
                        return p - c.lr() * delta;
                    }, "square_avg", "acc_delta");
        }
    }

    @Test
    void optionsAreCheckedWithPyTorchsMessages() {
        List<Tensor> ps = List.of(Tensor.ones(2).requiresGrad(true));
        assertEquals("Invalid beta parameter at index 1: 1.0", assertThrows(IllegalArgumentException.class, () -> Adamax.options().betas(0.9, 1.0)).getMessage());
        assertEquals("Invalid momentum_decay value: -0.1", assertThrows(IllegalArgumentException.class, () -> NAdam.options().momentumDecay(-0.1)).getMessage());
        assertEquals("Invalid epsilon value: -1.0", assertThrows(IllegalArgumentException.class, () -> RAdam.options().eps(-1)).getMessage());
        assertEquals("Invalid rho value: 1.5", assertThrows(IllegalArgumentException.class, () -> Adadelta.options().rho(1.5)).getMessage());
        Adadelta opt = new Adadelta(ps, Adadelta.options());
        assertEquals("Invalid learning rate: -0.5", assertThrows(IllegalArgumentException.class, () -> opt.paramGroups().get(0).setLr(-0.5)).getMessage());
        // PyTorch's defaults, under PyTorch's option names
        assertEquals(2e-3, new Adamax(ps, Adamax.options()).defaults().get("lr"));
        assertEquals(4e-3, new NAdam(ps, NAdam.options()).defaults().get("momentum_decay"));
        assertEquals(List.of(0.9, 0.999), new RAdam(ps, RAdam.options()).defaults().get("betas"));
        assertEquals(0.9, opt.defaults().get("rho"));
    }

    @Test
    void stateSurvivesAStateDictRoundTrip() {
        Random rng = new Random(3);
        double[][] init = randomParams(rng);
        List<Tensor> a = leaves(init, DType.FLOAT64), b = leaves(init, DType.FLOAT64);
        NAdam optA = new NAdam(a, NAdam.options().lr(0.01)), optB = new NAdam(b, NAdam.options().lr(0.01));
        double[][] g1 = randomGrads(rng), g2 = randomGrads(rng);
        setGrads(a, g1, DType.FLOAT64);
        optA.step();
        setGrads(b, g1, DType.FLOAT64);
        optB.step();
        NAdam fresh = new NAdam(b, NAdam.options().lr(0.01));
        fresh.loadStateDict(optB.stateDict());
        setGrads(a, g2, DType.FLOAT64);
        optA.step();
        setGrads(b, g2, DType.FLOAT64);
        fresh.step();
        for (int i = 0; i < a.size(); i++) assertEquals(0.0, a.get(i).sub(b.get(i)).abs().max().item(), 1e-9);
        // mu_product is one number per parameter, converted to the parameter's dtype on load as PyTorch's
        assertEquals(optA.state(a.get(0)).get("mu_product").item(), fresh.state(b.get(0)).get("mu_product").item(), 1e-7);
        assertEquals(DType.FLOAT64, fresh.state(b.get(0)).get("mu_product").dtype());
    }
}
