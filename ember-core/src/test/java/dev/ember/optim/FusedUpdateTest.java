package dev.ember.optim;

import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The eager Adam and SGD updates in one pass ({@link FusedUpdate}) leave every parameter and every
 * state tensor bit for bit as the op-by-op updates do, for each of their forms: AdamW's decoupled
 * weight decay, the L2 penalty, none, amsgrad, maximize, both forms of lerp (beta1 above and below
 * 0.5); SGD plain, with momentum and dampening, Nesterov, weight decay, maximize; and a parameter
 * they cannot take (float64, a strided view) still gets the op-by-op update.
 */
class FusedUpdateTest {
    @AfterEach
    void fusedAgain() {
        FusedUpdate.enabled = true;
        FusedUpdate.lanesForTests = null;
    }

    /** Parameters of awkward sizes (a tail, one element) with values from {@code seed}, requiring grad. */
    private static List<Tensor> params(long seed, DType dtype) {
        Generator g = new Generator(seed);
        List<Tensor> ps = new ArrayList<>();
        // 4099: whole vectors of 4, 8 or 16 lanes and a tail of 3
        for (int[] shape : new int[][] {{37, 29}, {4099}, {1}}) ps.add(Tensor.randn(g, shape).to(dtype).requiresGrad(true));
        return ps;
    }

    /** Five steps of the optimizer {@code make} builds, with gradients from a fixed seed; returns the parameters and state tensors, in order. */
    private static List<Tensor> run(boolean fused, DType dtype, Function<List<Tensor>, Optimizer> make) {
        FusedUpdate.enabled = fused;
        List<Tensor> ps = params(11, dtype);
        Optimizer opt = make.apply(ps);
        Generator g = new Generator(99);
        for (int step = 0; step < 5; step++) {
            for (Tensor p : ps) p.setGrad(Tensor.randn(g, p.shape()).mul(step % 2 == 0 ? 0.5 : 3.0).to(dtype));
            opt.step();
        }
        List<Tensor> out = new ArrayList<>();
        for (Tensor p : ps) {
            out.add(p.detach());
            for (Map.Entry<String, Tensor> e : opt.state(p).entrySet()) out.add(e.getValue());
        }
        return out;
    }

    /** The fused update in its scalar form, then in its lane form, against the op-by-op update. */
    private static void sameBits(String what, DType dtype, Function<List<Tensor>, Optimizer> make) {
        List<Tensor> opByOp = run(false, dtype, make);
        for (boolean lanes : new boolean[] {false, true}) {
            FusedUpdate.lanesForTests = lanes;
            sameBits(what + (lanes ? ", vector lanes" : ", scalar"), opByOp, run(true, dtype, make));
        }
    }

    private static void sameBits(String what, List<Tensor> opByOp, List<Tensor> fused) {
        assertEquals(opByOp.size(), fused.size(), what);
        for (int i = 0; i < opByOp.size(); i++) {
            double[] a = opByOp.get(i).to(DType.FLOAT64).toDoubleArray(), b = fused.get(i).to(DType.FLOAT64).toDoubleArray();
            long[] ab = new long[a.length], bb = new long[b.length];
            for (int k = 0; k < a.length; k++) { ab[k] = Double.doubleToLongBits(a[k]); bb[k] = Double.doubleToLongBits(b[k]); }
            assertArrayEquals(ab, bb, what + ": tensor " + i + " (parameters, each followed by its state) differs from the op-by-op update");
        }
    }

    @Test
    void everyFormOfAdamGivesTheOpByOpBits() {
        sameBits("AdamW", DType.FLOAT32, ps -> new AdamW(ps, AdamW.options().lr(3e-3)));
        sameBits("Adam with an L2 penalty", DType.FLOAT32, ps -> new Adam(ps, Adam.options().lr(1e-2).weightDecay(0.1)));
        sameBits("Adam", DType.FLOAT32, ps -> new Adam(ps, Adam.options()));
        sameBits("amsgrad", DType.FLOAT32, ps -> new Adam(ps, Adam.options().amsgrad(true).weightDecay(1e-3)));
        sameBits("maximize", DType.FLOAT32, ps -> new AdamW(ps, AdamW.options().maximize(true)));
        sameBits("beta1 0.3 (lerp's other form)", DType.FLOAT32, ps -> new AdamW(ps, AdamW.options().betas(0.3, 0.9).eps(1e-3)));
    }

    @Test
    void everyFormOfSgdGivesTheOpByOpBits() {
        sameBits("SGD", DType.FLOAT32, ps -> new SGD(ps, SGD.options().lr(0.1)));
        sameBits("SGD with momentum and dampening", DType.FLOAT32, ps -> new SGD(ps, SGD.options().lr(0.05).momentum(0.9).dampening(0.25)));
        sameBits("Nesterov with weight decay", DType.FLOAT32, ps -> new SGD(ps, SGD.options().lr(0.05).momentum(0.8).nesterov(true).weightDecay(1e-2)));
        sameBits("maximize", DType.FLOAT32, ps -> new SGD(ps, SGD.options().lr(0.01).momentum(0.5).maximize(true)));
    }

    @Test
    void theFusedLoopRunsForFloat32AndTheOpByOpUpdateForTheRest() {
        assertTrue(FusedUpdate.applies(Tensor.zeros(3), Tensor.zeros(3), Tensor.zeros(3), Tensor.zeros(3), null));
        assertTrue(!FusedUpdate.applies(Tensor.zeros(3).to(DType.FLOAT64), Tensor.zeros(3).to(DType.FLOAT64), Tensor.zeros(3).to(DType.FLOAT64),
                Tensor.zeros(3).to(DType.FLOAT64), null), "float64 goes op by op");
        Tensor strided = Tensor.zeros(4, 4).t();
        assertTrue(!FusedUpdate.applies(strided, Tensor.zeros(4, 4), Tensor.zeros(4, 4), Tensor.zeros(4, 4), null), "a transposed parameter goes op by op");
        Tensor shared = Tensor.zeros(6);
        assertTrue(!FusedUpdate.applies(Tensor.zeros(3), shared.narrow(0, 0, 3), shared.narrow(0, 3, 3), Tensor.zeros(3), null),
                "two operands in one storage go op by op");
        Tensor p = Tensor.zeros(3);
        assertTrue(!FusedUpdate.applies(p, p, Tensor.zeros(3), Tensor.zeros(3), null), "a gradient that is the parameter goes op by op");
        sameBits("float64 AdamW", DType.FLOAT64, ps -> new AdamW(ps, AdamW.options().lr(3e-3)));
    }

    /**
     * In a fresh JVM the lane loops are cold (their Vector API code would run interpreted): the
     * scalar loops update, the lane loops run a warm-up slice on the warming thread, and once a
     * slice runs at compiled speed the updates run on lanes.
     */
    @Test
    void aColdLaneLoopLeavesTheUpdateToTheScalarLoopUntilItIsCompiled() {
        org.junit.jupiter.api.Assumptions.assumeTrue(dev.ember.kernels.ColdStart.enabled(), "tiers on");
        try {
            FusedUpdate.TIER.resetForTests();
            List<Tensor> ps = params(3, DType.FLOAT32);
            Optimizer opt = new AdamW(ps, AdamW.options());
            for (Tensor p : ps) p.setGrad(Tensor.onesLike(p));
            opt.step();
            assertTrue(FusedUpdate.TIER.coldCalls() >= 1, "a cold call ran the scalar loop");
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!FusedUpdate.TIER.hot() && System.nanoTime() < deadline) FusedUpdate.TIER.exercise();
            assertTrue(FusedUpdate.TIER.hot(), "a slice ran at compiled speed");
        } finally {
            FusedUpdate.TIER.markHotForTests();
        }
    }
}
