package dev.ember.optim;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SGD, Adam and AdamW step by step against two references fed the same initial weights and
 * gradients: PyTorch's documented algorithm written with libtorch ops (DJL NDArrays, float64), and
 * the same algorithm as a plain float64 Java loop written the way torch/optim computes it (lerp,
 * {@code sqrt(v) / sqrt(1 - beta2^t)}); Ember must match both after every step, parameters and
 * state. In float32, Ember is checked against libtorch running torch.optim's own statements
 * ({@code lerp_}, {@code addcmul_}, {@code addcdiv_}, …) through TorchScript.
 */
class OptimizerConformanceTest {
    static final int STEPS = 6;
    static final int[][] SHAPES = {{3, 4}, {5}, {}};
    static final double RTOL = 1e-12, ATOL = 1e-13;

    // ------------------------------------------------------------------ cases

    record SgdCase(String name, double lr, double momentum, double dampening, double weightDecay, boolean nesterov, boolean maximize) {
        @Override
        public String toString() { return name; }

        SGD.Options options() {
            return SGD.options().lr(lr).momentum(momentum).dampening(dampening).weightDecay(weightDecay).nesterov(nesterov).maximize(maximize);
        }
    }

    static Stream<SgdCase> sgdCases() {
        return Stream.of(
                new SgdCase("plain", 0.1, 0, 0, 0, false, false),
                new SgdCase("momentum", 0.05, 0.9, 0, 0, false, false),
                new SgdCase("momentum+dampening", 0.05, 0.9, 0.3, 0, false, false),
                new SgdCase("nesterov+weight decay", 0.05, 0.8, 0, 1e-2, true, false),
                new SgdCase("maximize+momentum+weight decay", 0.02, 0.5, 0.1, 0.1, false, true),
                new SgdCase("weight decay only", 0.1, 0, 0, 0.05, false, false));
    }

    record AdamCase(String name, boolean adamW, double lr, double beta1, double beta2, double eps, double weightDecay, boolean amsgrad, boolean maximize) {
        @Override
        public String toString() { return name; }

        Adam make(List<Tensor> params) {
            Adam.Options o = (adamW ? AdamW.options() : Adam.options()).lr(lr).betas(beta1, beta2).eps(eps).weightDecay(weightDecay).amsgrad(amsgrad).maximize(maximize);
            return adamW ? new AdamW(params, o) : new Adam(params, o);
        }
    }

    static Stream<AdamCase> adamCases() {
        return Stream.of(
                new AdamCase("Adam defaults", false, 1e-3, 0.9, 0.999, 1e-8, 0, false, false),
                new AdamCase("Adam lr 0.05, L2 weight decay", false, 0.05, 0.9, 0.999, 1e-8, 0.1, false, false),
                new AdamCase("Adam amsgrad", false, 0.02, 0.9, 0.999, 1e-8, 0, true, false),
                new AdamCase("Adam amsgrad+weight decay+maximize", false, 0.02, 0.8, 0.99, 1e-6, 0.05, true, true),
                new AdamCase("Adam betas (0.3, 0.5), eps 1e-3 (lerp's other branch)", false, 0.01, 0.3, 0.5, 1e-3, 0, false, false),
                new AdamCase("AdamW defaults", true, 1e-3, 0.9, 0.999, 1e-8, 1e-2, false, false),
                new AdamCase("AdamW lr 0.05, weight decay 0.1, amsgrad", true, 0.05, 0.9, 0.999, 1e-8, 0.1, true, false),
                new AdamCase("AdamW betas (0.8, 0.99), maximize", true, 0.01, 0.8, 0.99, 1e-8, 0.05, false, true));
    }

    // ------------------------------------------------------------------ float64 against both references

    @ParameterizedTest(name = "{0}")
    @MethodSource("sgdCases")
    void sgdMatchesLibtorchAndAFloat64Loop(SgdCase c) {
        Random rng = new Random(c.name().hashCode());
        double[][] init = randomParams(rng);
        List<Tensor> params = leaves(init, DType.FLOAT64);
        SGD opt = new SGD(params, c.options());
        JavaSgd java = new JavaSgd(init, c);
        try (NDManager m = Torch.scope()) {
            TorchSgd torch = new TorchSgd(m, init, c);
            for (int step = 1; step <= STEPS; step++) {
                double[][] grads = randomGrads(rng);
                setGrads(params, grads, DType.FLOAT64);
                opt.step();
                java.step(grads);
                torch.step(grads);
                for (int i = 0; i < params.size(); i++) {
                    String ctx = c + ", step " + step + ", param " + i;
                    assertClose(params.get(i), torch.p[i], ctx + " vs libtorch", RTOL, ATOL);
                    assertMatches(params.get(i), java.p[i], ctx + " vs the Java loop");
                    if (c.momentum() != 0) {
                        assertClose(opt.state(params.get(i)).get("momentum_buffer"), torch.buf[i], ctx + " momentum_buffer vs libtorch", RTOL, ATOL);
                        assertMatches(opt.state(params.get(i)).get("momentum_buffer"), java.buf[i], ctx + " momentum_buffer vs the Java loop");
                    } else {
                        assertTrue(opt.state(params.get(i)).isEmpty(), "no state without momentum");
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("adamCases")
    void adamMatchesLibtorchAndAFloat64Loop(AdamCase c) {
        Random rng = new Random(c.name().hashCode());
        double[][] init = randomParams(rng);
        List<Tensor> params = leaves(init, DType.FLOAT64);
        Adam opt = c.make(params);
        JavaAdam java = new JavaAdam(init, c);
        try (NDManager m = Torch.scope()) {
            TorchAdam torch = new TorchAdam(m, init, c);
            for (int step = 1; step <= STEPS; step++) {
                double[][] grads = randomGrads(rng);
                setGrads(params, grads, DType.FLOAT64);
                opt.step();
                java.step(grads);
                torch.step(grads);
                for (int i = 0; i < params.size(); i++) {
                    String ctx = c + ", step " + step + ", param " + i;
                    var state = opt.state(params.get(i));
                    assertClose(params.get(i), torch.p[i], ctx + " vs libtorch", RTOL, ATOL);
                    assertMatches(params.get(i), java.p[i], ctx + " vs the Java loop");
                    assertClose(state.get("exp_avg"), torch.m[i], ctx + " exp_avg vs libtorch", RTOL, ATOL);
                    assertClose(state.get("exp_avg_sq"), torch.v[i], ctx + " exp_avg_sq vs libtorch", RTOL, ATOL);
                    assertMatches(state.get("exp_avg"), java.m[i], ctx + " exp_avg vs the Java loop");
                    assertMatches(state.get("exp_avg_sq"), java.v[i], ctx + " exp_avg_sq vs the Java loop");
                    if (c.amsgrad()) assertMatches(state.get("max_exp_avg_sq"), java.vmax[i], ctx + " max_exp_avg_sq vs the Java loop");
                    assertEquals(step, state.get("step").item(), "step");
                    assertEquals(DType.FLOAT32, state.get("step").dtype(), "step is a float32 scalar, as PyTorch's");
                    assertEquals(c.amsgrad(), state.containsKey("max_exp_avg_sq"));
                }
            }
        }
    }

    // ------------------------------------------------------------------ float32 against torch.optim's statements

    @Test
    void float32SgdMatchesTorchOptimStatementsInLibtorch() {
        Random rng = new Random(7);
        double[][] init = randomParams(rng);
        List<Tensor> params = leaves(init, DType.FLOAT32);
        double lr = 0.05, momentum = 0.9, wd = 1e-2;
        SGD opt = new SGD(params, SGD.options().lr(lr).momentum(momentum).weightDecay(wd).nesterov(true));
        try (NDManager m = Torch.scope()) {
            NDArray[] p = new NDArray[params.size()], buf = new NDArray[params.size()];
            for (int i = 0; i < p.length; i++) p[i] = m.create(floats(init[i]), new Shape(longs(SHAPES[i])));
            double worst = 0;
            for (int step = 1; step <= STEPS; step++) {
                double[][] grads = randomGrads(rng);
                setGrads(params, grads, DType.FLOAT32);
                opt.step();
                for (int i = 0; i < p.length; i++) {
                    NDArray g = m.create(floats(grads[i]), new Shape(longs(SHAPES[i])));
                    // torch/optim/sgd.py _single_tensor_sgd, statement for statement
                    NDList out = buf[i] == null
                            ? Torch.callList(m, "g = b.add(a, alpha=c)\nbuf = torch.clone(g).detach()\ng = g.add(buf, alpha=d)\np = a.clone()\np.add_(g, alpha=-e)\nreturn (p, buf)",
                                    p[i], g, wd, momentum, lr)
                            : Torch.callList(m, "g = b.add(a, alpha=c)\nbuf = f.clone()\nbuf.mul_(d).add_(g, alpha=1.0)\ng = g.add(buf, alpha=d)\np = a.clone()\np.add_(g, alpha=-e)\nreturn (p, buf)",
                                    p[i], g, wd, momentum, lr, buf[i]);
                    p[i] = out.get(0);
                    buf[i] = out.get(1);
                    assertClose(params.get(i), p[i], "float32 SGD step " + step + " param " + i, 1e-6, 1e-7);
                    worst = Math.max(worst, maxUlps(params.get(i).toFloatArray(), p[i].toFloatArray()));
                }
            }
            System.out.println("float32 SGD (nesterov, weight decay) vs torch.optim's statements in libtorch: worst difference " + worst + " ulp over " + STEPS + " steps");
        }
    }

    @ParameterizedTest(name = "AdamW {0}")
    @MethodSource("bools")
    void float32AdamMatchesTorchOptimStatementsInLibtorch(boolean adamW) {
        Random rng = new Random(adamW ? 11 : 13);
        double[][] init = randomParams(rng);
        List<Tensor> params = leaves(init, DType.FLOAT32);
        double lr = 0.01, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, wd = adamW ? 0.05 : 0;
        Adam opt = adamW ? new AdamW(params, AdamW.options().lr(lr).weightDecay(wd)) : new Adam(params, Adam.options().lr(lr));
        try (NDManager m = Torch.scope()) {
            int n = params.size();
            NDArray[] p = new NDArray[n], ma = new NDArray[n], va = new NDArray[n];
            for (int i = 0; i < n; i++) {
                p[i] = m.create(floats(init[i]), new Shape(longs(SHAPES[i])));
                ma[i] = m.zeros(p[i].getShape(), p[i].getDataType());
                va[i] = m.zeros(p[i].getShape(), p[i].getDataType());
            }
            double worst = 0;
            for (int step = 1; step <= STEPS; step++) {
                double[][] grads = randomGrads(rng);
                setGrads(params, grads, DType.FLOAT32);
                opt.step();
                // the Python floats of torch/optim/adam.py _single_tensor_adam
                double bc1 = 1 - Math.pow(beta1, step), bc2 = 1 - Math.pow(beta2, step);
                double stepSize = lr / bc1, bc2Sqrt = Math.sqrt(bc2);
                for (int i = 0; i < n; i++) {
                    NDArray g = m.create(floats(grads[i]), new Shape(longs(SHAPES[i])));
                    String decay = adamW ? "p.mul_(1.0 - e * f)\n" : "";
                    NDList out = Torch.callList(m, "p = a.clone()\nm = c.clone()\nv = d.clone()\n" + decay
                                    + "m.lerp_(b, 1.0 - g)\nv.mul_(h).addcmul_(b, b, value=1.0 - h)\ndenom = (v.sqrt() / i).add_(j)\np.addcdiv_(m, denom, value=-k)\nreturn (p, m, v)",
                            p[i], g, ma[i], va[i], lr, wd, beta1, beta2, bc2Sqrt, eps, stepSize);
                    p[i] = out.get(0);
                    ma[i] = out.get(1);
                    va[i] = out.get(2);
                    String ctx = (adamW ? "float32 AdamW" : "float32 Adam") + " step " + step + " param " + i;
                    assertClose(params.get(i), p[i], ctx, 1e-6, 1e-7);
                    assertClose(opt.state(params.get(i)).get("exp_avg"), ma[i], ctx + " exp_avg", 1e-6, 1e-9);
                    assertClose(opt.state(params.get(i)).get("exp_avg_sq"), va[i], ctx + " exp_avg_sq", 1e-6, 1e-12);
                    worst = Math.max(worst, maxUlps(params.get(i).toFloatArray(), p[i].toFloatArray()));
                }
            }
            System.out.println((adamW ? "float32 AdamW" : "float32 Adam") + " vs torch.optim's statements in libtorch: worst difference " + worst + " ulp over " + STEPS + " steps");
        }
    }

    static Stream<Boolean> bools() { return Stream.of(false, true); }

    // ------------------------------------------------------------------ references

    /** SGD as torch/optim/sgd.py computes it, in plain float64 Java. */
    static final class JavaSgd {
        final SgdCase c;
        final double[][] p, buf;

        JavaSgd(double[][] init, SgdCase c) {
            this.c = c;
            p = deepCopy(init);
            buf = new double[init.length][];
        }

        void step(double[][] grads) {
            for (int i = 0; i < p.length; i++) {
                double[] g = grads[i].clone();
                for (int k = 0; k < g.length; k++) {
                    if (c.maximize()) g[k] = -g[k];
                    if (c.weightDecay() != 0) g[k] += c.weightDecay() * p[i][k];
                }
                if (c.momentum() != 0) {
                    if (buf[i] == null) {
                        buf[i] = g.clone();
                    } else {
                        for (int k = 0; k < g.length; k++) buf[i][k] = c.momentum() * buf[i][k] + (1 - c.dampening()) * g[k];
                    }
                    for (int k = 0; k < g.length; k++) g[k] = c.nesterov() ? g[k] + c.momentum() * buf[i][k] : buf[i][k];
                }
                for (int k = 0; k < g.length; k++) p[i][k] -= c.lr() * g[k];
            }
        }
    }

    /** SGD's documented algorithm with libtorch ops, float64. */
    static final class TorchSgd {
        final NDManager m;
        final SgdCase c;
        final NDArray[] p, buf;

        TorchSgd(NDManager m, double[][] init, SgdCase c) {
            this.m = m;
            this.c = c;
            p = new NDArray[init.length];
            buf = new NDArray[init.length];
            for (int i = 0; i < init.length; i++) p[i] = m.create(init[i], new Shape(longs(SHAPES[i])));
        }

        void step(double[][] grads) {
            for (int i = 0; i < p.length; i++) {
                NDArray g = m.create(grads[i], new Shape(longs(SHAPES[i])));
                if (c.maximize()) g = g.neg();
                if (c.weightDecay() != 0) g = g.add(p[i].mul(c.weightDecay()));
                if (c.momentum() != 0) {
                    buf[i] = buf[i] == null ? g.duplicate() : buf[i].mul(c.momentum()).add(g.mul(1 - c.dampening()));
                    g = c.nesterov() ? g.add(buf[i].mul(c.momentum())) : buf[i];
                }
                p[i] = p[i].sub(g.mul(c.lr()));
            }
        }
    }

    /** Adam / AdamW as torch/optim/adam.py computes them (lerp, sqrt(v) / sqrt(bias_correction2) + eps), in plain float64 Java. */
    static final class JavaAdam {
        final AdamCase c;
        final double[][] p, m, v, vmax;
        int t;

        JavaAdam(double[][] init, AdamCase c) {
            this.c = c;
            p = deepCopy(init);
            m = zerosLike(init);
            v = zerosLike(init);
            vmax = zerosLike(init);
        }

        void step(double[][] grads) {
            t++;
            double w = 1 - c.beta1();
            double bc1 = 1 - Math.pow(c.beta1(), t), bc2 = 1 - Math.pow(c.beta2(), t);
            double stepSize = c.lr() / bc1, bc2Sqrt = Math.sqrt(bc2);
            for (int i = 0; i < p.length; i++) {
                for (int k = 0; k < p[i].length; k++) {
                    double g = c.maximize() ? -grads[i][k] : grads[i][k];
                    if (c.weightDecay() != 0) {
                        if (c.adamW()) p[i][k] *= 1 - c.lr() * c.weightDecay();
                        else g += c.weightDecay() * p[i][k];
                    }
                    m[i][k] = w < 0.5 ? m[i][k] + w * (g - m[i][k]) : g - (g - m[i][k]) * (1 - w);
                    v[i][k] = c.beta2() * v[i][k] + (1 - c.beta2()) * g * g;
                    vmax[i][k] = Math.max(vmax[i][k], v[i][k]);
                    double denom = Math.sqrt(c.amsgrad() ? vmax[i][k] : v[i][k]) / bc2Sqrt + c.eps();
                    p[i][k] -= stepSize * m[i][k] / denom;
                }
            }
        }
    }

    /**
     * Adam's documented algorithm (m̂ = m / (1 - β1^t), v̂ = v / (1 - β2^t), or with amsgrad
     * v̂ = max(v_max, v) / (1 - β2^t); θ -= γ m̂ / (√v̂ + ε)) with libtorch ops, float64. (Older
     * PyTorch docs took the maximum of the bias-corrected v̂; the code never did, nor do the
     * current docs: the two differ from the second step on.)
     */
    static final class TorchAdam {
        final NDManager mgr;
        final AdamCase c;
        final NDArray[] p, m, v, vmax;
        int t;

        TorchAdam(NDManager mgr, double[][] init, AdamCase c) {
            this.mgr = mgr;
            this.c = c;
            int n = init.length;
            p = new NDArray[n];
            m = new NDArray[n];
            v = new NDArray[n];
            vmax = new NDArray[n];
            for (int i = 0; i < n; i++) {
                p[i] = mgr.create(init[i], new Shape(longs(SHAPES[i])));
                m[i] = p[i].zerosLike();
                v[i] = p[i].zerosLike();
                vmax[i] = p[i].zerosLike();
            }
        }

        void step(double[][] grads) {
            t++;
            for (int i = 0; i < p.length; i++) {
                NDArray g = mgr.create(grads[i], new Shape(longs(SHAPES[i])));
                if (c.maximize()) g = g.neg();
                if (c.weightDecay() != 0) {
                    if (c.adamW()) p[i] = p[i].sub(p[i].mul(c.lr() * c.weightDecay()));
                    else g = g.add(p[i].mul(c.weightDecay()));
                }
                m[i] = m[i].mul(c.beta1()).add(g.mul(1 - c.beta1()));
                v[i] = v[i].mul(c.beta2()).add(g.mul(g).mul(1 - c.beta2()));
                NDArray mHat = m[i].div(1 - Math.pow(c.beta1(), t));
                if (c.amsgrad()) vmax[i] = vmax[i].maximum(v[i]);   // the maximum of the raw second moments, bias-corrected after
                NDArray vHat = (c.amsgrad() ? vmax[i] : v[i]).div(1 - Math.pow(c.beta2(), t));
                p[i] = p[i].sub(mHat.mul(c.lr()).div(vHat.sqrt().add(c.eps())));
            }
        }
    }

    // ------------------------------------------------------------------ data

    static double[][] randomParams(Random rng) {
        double[][] out = new double[SHAPES.length][];
        for (int i = 0; i < SHAPES.length; i++) out[i] = gaussians(rng, numel(SHAPES[i]));
        return out;
    }

    static double[][] randomGrads(Random rng) { return randomParams(rng); }

    static double[] gaussians(Random rng, int n) {
        double[] out = new double[n];
        for (int k = 0; k < n; k++) out[k] = (float) rng.nextGaussian();   // representable in float32 too
        return out;
    }

    static List<Tensor> leaves(double[][] values, DType dtype) {
        List<Tensor> out = new ArrayList<>();
        for (int i = 0; i < values.length; i++) out.add(Tensor.of(values[i].clone(), SHAPES[i]).to(dtype).requiresGrad(true));
        return out;
    }

    static void setGrads(List<Tensor> params, double[][] grads, DType dtype) {
        for (int i = 0; i < params.size(); i++) params.get(i).setGrad(Tensor.of(grads[i].clone(), SHAPES[i]).to(dtype));
    }

    static int numel(int[] shape) { return Arrays.stream(shape).reduce(1, (a, b) -> a * b); }

    static long[] longs(int[] shape) { return Arrays.stream(shape).asLongStream().toArray(); }

    static float[] floats(double[] values) {
        float[] out = new float[values.length];
        for (int k = 0; k < values.length; k++) out[k] = (float) values[k];
        return out;
    }

    static double[][] deepCopy(double[][] a) { return Arrays.stream(a).map(double[]::clone).toArray(double[][]::new); }

    static double[][] zerosLike(double[][] a) { return Arrays.stream(a).map(x -> new double[x.length]).toArray(double[][]::new); }

    static void assertMatches(Tensor actual, double[] expected, String context) {
        double[] a = actual.toDoubleArray();
        assertEquals(expected.length, a.length, context + ": size");
        for (int k = 0; k < a.length; k++) {
            double tol = ATOL + RTOL * Math.abs(expected[k]);
            if (!(Math.abs(a[k] - expected[k]) <= tol)) {
                throw new AssertionError(context + ": element " + k + " is " + a[k] + ", expected " + expected[k] + " (difference " + Math.abs(a[k] - expected[k]) + " > " + tol + ")");
            }
        }
    }

    static double maxUlps(float[] a, float[] b) {
        double worst = 0;
        for (int k = 0; k < a.length; k++) worst = Math.max(worst, Math.abs(a[k] - b[k]) / Math.ulp(Math.max(Math.abs(a[k]), Math.abs(b[k]))));
        return worst;
    }
}
