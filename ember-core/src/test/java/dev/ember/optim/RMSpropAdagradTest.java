package dev.ember.optim;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.optim.OptimizerConformanceTest.SHAPES;
import static dev.ember.optim.OptimizerConformanceTest.STEPS;
import static dev.ember.optim.OptimizerConformanceTest.assertMatches;
import static dev.ember.optim.OptimizerConformanceTest.deepCopy;
import static dev.ember.optim.OptimizerConformanceTest.floats;
import static dev.ember.optim.OptimizerConformanceTest.leaves;
import static dev.ember.optim.OptimizerConformanceTest.longs;
import static dev.ember.optim.OptimizerConformanceTest.randomGrads;
import static dev.ember.optim.OptimizerConformanceTest.randomParams;
import static dev.ember.optim.OptimizerConformanceTest.setGrads;
import static dev.ember.optim.OptimizerConformanceTest.zerosLike;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * RMSprop and Adagrad step by step: in float64 against torch.optim's documented algorithms written
 * in plain Java (every option), and in float32 against libtorch running torch.optim's own
 * statements (mul_, addcmul_, lerp_, sqrt, add_, addcdiv_) on the same weights and gradients.
 */
class RMSpropAdagradTest {

    record RmsCase(double lr, double alpha, double eps, double weightDecay, double momentum, boolean centered, boolean maximize) {
        RMSprop make(List<Tensor> params) {
            return new RMSprop(params, RMSprop.options().lr(lr).alpha(alpha).eps(eps).weightDecay(weightDecay).momentum(momentum).centered(centered).maximize(maximize));
        }
    }

    /** torch/optim/rmsprop.py's algorithm in float64 Java. */
    private static void rmsStep(RmsCase c, double[][] p, double[][] v, double[][] gAvg, double[][] buf, double[][] grads) {
        for (int i = 0; i < p.length; i++) {
            for (int k = 0; k < p[i].length; k++) {
                double g = c.maximize() ? -grads[i][k] : grads[i][k];
                if (c.weightDecay() != 0) g += c.weightDecay() * p[i][k];
                v[i][k] = c.alpha() * v[i][k] + (1 - c.alpha()) * g * g;
                double avg;
                if (c.centered()) {
                    gAvg[i][k] = gAvg[i][k] + (1 - c.alpha()) * (g - gAvg[i][k]);
                    avg = Math.sqrt(v[i][k] - gAvg[i][k] * gAvg[i][k]) + c.eps();
                } else {
                    avg = Math.sqrt(v[i][k]) + c.eps();
                }
                if (c.momentum() > 0) {
                    buf[i][k] = c.momentum() * buf[i][k] + g / avg;
                    p[i][k] -= c.lr() * buf[i][k];
                } else {
                    p[i][k] -= c.lr() * g / avg;
                }
            }
        }
    }

    @Test
    void rmspropMatchesItsAlgorithmInFloat64() {
        List<RmsCase> cases = List.of(new RmsCase(1e-2, 0.99, 1e-8, 0, 0, false, false), new RmsCase(0.05, 0.9, 1e-6, 0.1, 0.9, false, false),
                new RmsCase(0.02, 0.8, 1e-8, 0, 0, true, false), new RmsCase(0.01, 0.95, 1e-4, 0.05, 0.5, true, true));
        for (RmsCase c : cases) {
            Random rng = new Random(5);
            double[][] init = randomParams(rng);
            List<Tensor> params = leaves(init, DType.FLOAT64);
            RMSprop opt = c.make(params);
            double[][] p = deepCopy(init), v = zerosLike(init), gAvg = zerosLike(init), buf = zerosLike(init);
            for (int step = 1; step <= STEPS; step++) {
                double[][] grads = randomGrads(rng);
                setGrads(params, grads, DType.FLOAT64);
                opt.step();
                rmsStep(c, p, v, gAvg, buf, grads);
                for (int i = 0; i < p.length; i++) {
                    assertMatches(params.get(i), p[i], c + " step " + step + " param " + i);
                    assertMatches(opt.state(params.get(i)).get("square_avg"), v[i], c + " square_avg");
                    if (c.centered()) assertMatches(opt.state(params.get(i)).get("grad_avg"), gAvg[i], c + " grad_avg");
                    if (c.momentum() > 0) assertMatches(opt.state(params.get(i)).get("momentum_buffer"), buf[i], c + " momentum_buffer");
                    assertEquals(step, opt.state(params.get(i)).get("step").item());
                }
            }
        }
    }

    record AdagradCase(double lr, double lrDecay, double weightDecay, double initial, double eps, boolean maximize) {
        Adagrad make(List<Tensor> params) {
            return new Adagrad(params, Adagrad.options().lr(lr).lrDecay(lrDecay).weightDecay(weightDecay).initialAccumulatorValue(initial).eps(eps).maximize(maximize));
        }
    }

    @Test
    void adagradMatchesItsAlgorithmInFloat64() {
        List<AdagradCase> cases = List.of(new AdagradCase(1e-2, 0, 0, 0, 1e-10, false), new AdagradCase(0.1, 0.05, 0.1, 0.5, 1e-6, false),
                new AdagradCase(0.05, 0.01, 0, 0.1, 1e-10, true));
        for (AdagradCase c : cases) {
            Random rng = new Random(9);
            double[][] init = randomParams(rng);
            List<Tensor> params = leaves(init, DType.FLOAT64);
            Adagrad opt = c.make(params);
            // PyTorch makes the state when a parameter joins: there before any step
            assertEquals(c.initial(), opt.state(params.get(0)).get("sum").max().item());
            double[][] p = deepCopy(init), s = zerosLike(init);
            for (double[] row : s) java.util.Arrays.fill(row, c.initial());
            for (int step = 1; step <= STEPS; step++) {
                double[][] grads = randomGrads(rng);
                setGrads(params, grads, DType.FLOAT64);
                opt.step();
                double clr = c.lr() / (1 + (step - 1) * c.lrDecay());
                for (int i = 0; i < p.length; i++) {
                    for (int k = 0; k < p[i].length; k++) {
                        double g = c.maximize() ? -grads[i][k] : grads[i][k];
                        if (c.weightDecay() != 0) g += c.weightDecay() * p[i][k];
                        s[i][k] += g * g;
                        p[i][k] -= clr * g / (Math.sqrt(s[i][k]) + c.eps());
                    }
                    assertMatches(params.get(i), p[i], c + " step " + step + " param " + i);
                    assertMatches(opt.state(params.get(i)).get("sum"), s[i], c + " sum");
                }
            }
        }
    }

    @Test
    void float32MatchesTorchOptimStatementsInLibtorch() {
        Random rng = new Random(21);
        double[][] init = randomParams(rng);
        List<Tensor> rmsParams = leaves(init, DType.FLOAT32), adaParams = leaves(init, DType.FLOAT32);
        RMSprop rms = new RMSprop(rmsParams, RMSprop.options().lr(0.01).alpha(0.9).momentum(0.8).centered(true).weightDecay(0.01));
        Adagrad ada = new Adagrad(adaParams, Adagrad.options().lr(0.05).lrDecay(0.01).initialAccumulatorValue(0.1));
        try (NDManager m = Torch.scope()) {
            int n = init.length;
            NDArray[] p = new NDArray[n], v = new NDArray[n], ga = new NDArray[n], buf = new NDArray[n], q = new NDArray[n], sum = new NDArray[n];
            for (int i = 0; i < n; i++) {
                p[i] = m.create(floats(init[i]), new Shape(longs(SHAPES[i])));
                q[i] = p[i].duplicate();
                v[i] = m.zeros(p[i].getShape(), p[i].getDataType());
                ga[i] = v[i].duplicate();
                buf[i] = v[i].duplicate();
                sum[i] = m.full(p[i].getShape(), 0.1f);
            }
            for (int step = 1; step <= STEPS; step++) {
                double[][] grads = randomGrads(rng);
                setGrads(rmsParams, grads, DType.FLOAT32);
                setGrads(adaParams, grads, DType.FLOAT32);
                rms.step();
                ada.step();
                double clr = 0.05 / (1 + (step - 1) * 0.01);
                for (int i = 0; i < n; i++) {
                    NDArray g = m.create(floats(grads[i]), new Shape(longs(SHAPES[i])));
                    // torch/optim/rmsprop.py _single_tensor_rmsprop, centered with momentum and weight decay
                    NDList r = Torch.callList(m, """
                            p = a.clone()
                            v = c.clone()
                            ga = d.clone()
                            buf = e.clone()
                            g = b.add(p, alpha=0.01)
                            v.mul_(0.9).addcmul_(g, g, value=1.0 - 0.9)
                            ga.lerp_(g, 1.0 - 0.9)
                            avg = v.addcmul(ga, ga, value=-1.0).sqrt_()
                            avg = avg.add_(1e-8)
                            buf.mul_(0.8).addcdiv_(g, avg)
                            p.add_(buf, alpha=-0.01)
                            return (p, v, ga, buf)""", p[i], g, v[i], ga[i], buf[i]);
                    p[i] = r.get(0); v[i] = r.get(1); ga[i] = r.get(2); buf[i] = r.get(3);
                    String ctx = "float32 RMSprop step " + step + " param " + i;
                    // libtorch's vectorized lerp_ is a fused multiply-add, and the centered denominator sqrt(v - ga²)
                    // cancels, magnifying that ulp: the parameter and buffer are held to 1e-5 relative (float64 above is exact)
                    assertClose(rmsParams.get(i), p[i], ctx, 1e-5, 1e-7);
                    assertClose(rms.state(rmsParams.get(i)).get("square_avg"), v[i], ctx + " square_avg", 1e-6, 1e-9);
                    assertClose(rms.state(rmsParams.get(i)).get("momentum_buffer"), buf[i], ctx + " momentum_buffer", 1e-5, 1e-7);
                    // torch/optim/adagrad.py _single_tensor_adagrad
                    NDList s = Torch.callList(m, """
                            p = a.clone()
                            s = c.clone()
                            s.addcmul_(b, b, value=1)
                            std = s.sqrt().add_(1e-10)
                            p.addcdiv_(b, std, value=-d)
                            return (p, s)""", q[i], g, sum[i], clr);
                    q[i] = s.get(0); sum[i] = s.get(1);
                    ctx = "float32 Adagrad step " + step + " param " + i;
                    assertClose(adaParams.get(i), q[i], ctx, 1e-6, 1e-7);
                    assertClose(ada.state(adaParams.get(i)).get("sum"), sum[i], ctx + " sum", 1e-6, 1e-9);
                }
            }
        }
    }

    @Test
    void optionErrorsAreTorchOptims() {
        assertEquals("Invalid alpha value: -0.5", assertThrows(IllegalArgumentException.class, () -> RMSprop.options().alpha(-0.5)).getMessage());
        assertEquals("Invalid momentum value: -1.0", assertThrows(IllegalArgumentException.class, () -> RMSprop.options().momentum(-1)).getMessage());
        assertEquals("Invalid lr_decay value: -0.1", assertThrows(IllegalArgumentException.class, () -> Adagrad.options().lrDecay(-0.1)).getMessage());
        assertEquals("Invalid initial_accumulator_value value: -1.0",
                assertThrows(IllegalArgumentException.class, () -> Adagrad.options().initialAccumulatorValue(-1)).getMessage());
        // a second group takes the defaults with some changed, and gets its own state at once
        Adagrad opt = new Adagrad(List.of(Tensor.of(1.0).requiresGrad(true)), Adagrad.options());
        Tensor head = Tensor.of(2.0).requiresGrad(true);
        opt.addParamGroup(List.of(head), o -> o.lr(0.5).initialAccumulatorValue(0.25));
        assertEquals(0.25, opt.state(head).get("sum").item());
        assertEquals(0.5, opt.paramGroups().get(1).lr());
    }
}
