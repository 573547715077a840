package dev.ember.optim;

import dev.ember.kernels.ColdStart;
import dev.ember.kernels.Parallel;
import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * One float32 parameter's eager Adam or SGD update in a single pass over its elements, with the
 * eager path's own float32 operations in its order ({@code Adam.updateOne}, {@code SGD.update}:
 * each scalar rounded to float once, {@code add} with a scale as a fused multiply-add, as the
 * eager kernels compute them), so the parameter and its state come out bit for bit as the
 * op-by-op update leaves them ({@code FusedUpdateTest}).
 *
 * <p>Why. The op-by-op update reads and writes the parameter-sized arrays about ten times and
 * allocates three parameter-sized temporaries; and in a fresh JVM each of its ten ops runs the
 * Vector API's interpreted fallback until C2 compiles it, which made the first eager AdamW step of
 * a 6.3M-parameter MLP take 866 ms (docs/benchmarks.md, session 21). One pass moves a tenth of the
 * memory. Each loop has two forms with the same bits: plain scalar code, which the JIT compiles
 * within the first call (on-stack replacement after some 60,000 iterations), and the same
 * operations on vector lanes, which run once a warm-up slice shows them compiled ({@link #TIER},
 * as {@code ColdStart}'s kernels): AdamW over 4M parameters 7.0 ms scalar, 1.7–2.4 ms on lanes
 * (session 26, 2 threads), the memory's speed.
 */
final class FusedUpdate {
    private FusedUpdate() {}

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();

    /** Tests turn the fused update off to compare it with the op-by-op one. */
    static volatile boolean enabled = true;

    /**
     * Whether the fused loops can update these (nulls ignored): real (not traced) float32 tensors,
     * contiguous, of one size, each in a storage of its own (the loop reads and writes an element
     * of each at once, where the op-by-op update finishes one tensor before the next).
     */
    static boolean applies(Tensor p, Tensor... others) {
        if (!enabled || !fits(p, p)) return false;
        for (int i = 0; i < others.length; i++) {
            Tensor t = others[i];
            if (t == null) continue;
            if (!fits(t, p) || t.storage() == p.storage()) return false;
            for (int j = 0; j < i; j++) if (others[j] != null && others[j].storage() == t.storage()) return false;
        }
        return true;
    }

    private static boolean fits(Tensor t, Tensor p) {
        return !(t instanceof FakeTensor) && t.storage() != null && t.dtype() == DType.FLOAT32 && t.isContiguous() && t.numel() == p.numel();
    }

    /**
     * The lane loops' tier: while cold (a fresh JVM) the scalar loops run, which C2 compiles within
     * the first call; once a warm-up slice of the lane loops runs at compiled speed, they run.
     */
    static final ColdStart.Tier TIER = ColdStart.tier("FusedUpdate", 16.0 * FusedSlice.N, FusedSlice::run);

    /** Tests pin the form: true for the lane loops, false for the scalar ones, null for the tier's choice. */
    static volatile Boolean lanesForTests;

    /** Whether this update runs on vector lanes: the tier is hot, or tiers are off; a cold call has a slice run. */
    private static boolean lanes() {
        Boolean pinned = lanesForTests;
        if (pinned != null) return pinned;
        if (!ColdStart.enabled() || TIER.hot()) return true;
        TIER.exercise();
        return false;
    }

    /** Adam's per-step constants, each rounded to float once as the op-by-op update rounds them. */
    record AdamConstants(boolean shrink, boolean penalty, boolean lerpForward, float keep, float wd, float weight, float rest,
                         float b2, float oneMinusB2, float bc2, float eps, float negStep) {
        static AdamConstants of(double lr, double beta1, double beta2, double eps, double weightDecay, boolean decoupled,
                                double stepSize, double biasCorrection2Sqrt) {
            boolean decay = weightDecay != 0;
            double w = 1 - beta1;
            // lerp_'s two forms, as Adam.lerp_ (ATen's)
            return new AdamConstants(decay && decoupled, decay && !decoupled, Math.abs(w) < 0.5, (float) (1 - lr * weightDecay),
                    (float) weightDecay, (float) w, (float) (1 - w), (float) beta2, (float) (1 - beta2), (float) biasCorrection2Sqrt,
                    (float) eps, (float) -stepSize);
        }
    }

    /** The update {@code Adam.updateOne} makes, for tensors {@link #applies} accepts. */
    static void adam(Tensor p, Tensor grad, Tensor expAvg, Tensor expAvgSq, Tensor maxExpAvgSq, double lr, double beta1, double beta2,
                       double eps, double weightDecay, boolean decoupled, double stepSize, double biasCorrection2Sqrt) {
        float[] pa = (float[]) p.storage().data(), ga = (float[]) grad.storage().data();
        float[] ma = (float[]) expAvg.storage().data(), va = (float[]) expAvgSq.storage().data();
        float[] xa = maxExpAvgSq == null ? null : (float[]) maxExpAvgSq.storage().data();
        int po = p.storageOffset(), go = grad.storageOffset(), mo = expAvg.storageOffset(), vo = expAvgSq.storageOffset();
        int xo = maxExpAvgSq == null ? 0 : maxExpAvgSq.storageOffset();
        AdamConstants k = AdamConstants.of(lr, beta1, beta2, eps, weightDecay, decoupled, stepSize, biasCorrection2Sqrt);
        boolean lanes = lanes();
        Parallel.forRange(p.numel(), 16, (lo, hi) -> {
            int from = lanes ? adamLanes(lo, hi, k, pa, po, ga, go, ma, mo, va, vo, xa, xo) : lo;
            adamScalar(from, hi, k, pa, po, ga, go, ma, mo, va, vo, xa, xo);
        });
        p.bumpVersion();
        expAvg.bumpVersion();
        expAvgSq.bumpVersion();
        if (maxExpAvgSq != null) maxExpAvgSq.bumpVersion();
    }

    /** Elements {@code [lo, hi)} of {@link #adam}, one at a time: the op-by-op update's float32 operations in its order. */
    static void adamScalar(int lo, int hi, AdamConstants k, float[] pa, int po, float[] ga, int go, float[] ma, int mo,
                           float[] va, int vo, float[] xa, int xo) {
        for (int i = lo; i < hi; i++) {
            float pv = pa[po + i], g = ga[go + i], m = ma[mo + i], v = va[vo + i];
            if (k.shrink) pv = pv * k.keep;
            if (k.penalty) g = Math.fma(k.wd, pv, g);                          // grad.add(p, weight_decay)
            m = k.lerpForward ? Math.fma(k.weight, g - m, m)                   // m.add_(g.sub(m), w)
                    : g - (g - m) * k.rest;                                    // m.copy_(g.sub(g.sub(m).mul(1 - w)))
            v = v * k.b2 + g * k.oneMinusB2 * g;                               // v.mul_(beta2).add_(g.mul(1 - beta2).mul_(g))
            float second = v;
            if (xa != null) {
                second = Math.max(v, xa[xo + i]);                              // maximumOut(v, vmax)
                xa[xo + i] = second;
            }
            float denom = (float) Math.sqrt(second) / k.bc2 + k.eps;           // sqrt().div_(bc2).add_(eps)
            pa[po + i] = pv + m * k.negStep / denom;                           // p.add_(m.mul(-step_size).div_(denom))
            ma[mo + i] = m;
            va[vo + i] = v;
        }
    }

    /**
     * {@link #adamScalar}'s operations, in its order, on whole vectors of elements from {@code lo};
     * returns where the last whole vector ended (the scalar loop does the rest). Each lane rounds
     * as the scalar code does (IEEE operations, no contraction), so the bits are the same.
     */
    static int adamLanes(int lo, int hi, AdamConstants k, float[] pa, int po, float[] ga, int go, float[] ma, int mo,
                         float[] va, int vo, float[] xa, int xo) {
        FloatVector keep = FloatVector.broadcast(S, k.keep), wd = FloatVector.broadcast(S, k.wd), weight = FloatVector.broadcast(S, k.weight);
        int i = lo;
        for (; i + L <= hi; i += L) {
            FloatVector pv = FloatVector.fromArray(S, pa, po + i), g = FloatVector.fromArray(S, ga, go + i);
            FloatVector m = FloatVector.fromArray(S, ma, mo + i), v = FloatVector.fromArray(S, va, vo + i);
            if (k.shrink) pv = pv.mul(keep);
            if (k.penalty) g = pv.fma(wd, g);
            m = k.lerpForward ? g.sub(m).fma(weight, m) : g.sub(g.sub(m).mul(k.rest));
            v = v.mul(k.b2).add(g.mul(k.oneMinusB2).mul(g));
            FloatVector second = v;
            if (xa != null) {
                second = v.max(FloatVector.fromArray(S, xa, xo + i));
                second.intoArray(xa, xo + i);
            }
            FloatVector denom = second.sqrt().div(k.bc2).add(k.eps);
            pv.add(m.mul(k.negStep).div(denom)).intoArray(pa, po + i);
            m.intoArray(ma, mo + i);
            v.intoArray(va, vo + i);
        }
        return i;
    }

    /** SGD's per-step constants, rounded to float once. */
    record SgdConstants(boolean penalty, boolean firstStep, boolean nesterov, float wd, float momentum, float keep, float step) {}

    /**
     * The update {@code SGD.update} makes, for tensors {@link #applies} accepts: {@code buffer} is
     * the momentum buffer, null with no momentum; {@code firstStep} when it was just made (it then
     * becomes the gradient, as the op-by-op update's clone).
     */
    static void sgd(Tensor p, Tensor grad, Tensor buffer, boolean firstStep, double lr, double momentum, double dampening, double weightDecay,
                    boolean nesterov) {
        float[] pa = (float[]) p.storage().data(), ga = (float[]) grad.storage().data();
        float[] ba = buffer == null ? null : (float[]) buffer.storage().data();
        int po = p.storageOffset(), go = grad.storageOffset(), bo = buffer == null ? 0 : buffer.storageOffset();
        SgdConstants k = new SgdConstants(weightDecay != 0, firstStep, nesterov, (float) weightDecay, (float) momentum, (float) (1 - dampening), (float) -lr);
        boolean lanes = lanes();
        Parallel.forRange(p.numel(), 8, (lo, hi) -> {
            int from = lanes ? sgdLanes(lo, hi, k, pa, po, ga, go, ba, bo) : lo;
            sgdScalar(from, hi, k, pa, po, ga, go, ba, bo);
        });
        p.bumpVersion();
        if (buffer != null) buffer.bumpVersion();
    }

    /** Elements {@code [lo, hi)} of {@link #sgd}, one at a time. */
    static void sgdScalar(int lo, int hi, SgdConstants k, float[] pa, int po, float[] ga, int go, float[] ba, int bo) {
        for (int i = lo; i < hi; i++) {
            float pv = pa[po + i], g = ga[go + i];
            if (k.penalty) g = Math.fma(k.wd, pv, g);                            // grad.add(p, weight_decay)
            if (ba != null) {
                float b = k.firstStep ? g : Math.fma(k.keep, g, ba[bo + i] * k.momentum);   // buf = grad.clone(), or buf.mul_(momentum).add_(grad, 1 - dampening)
                ba[bo + i] = b;
                g = k.nesterov ? Math.fma(k.momentum, b, g) : b;                 // grad.add(buf, momentum), or buf
            }
            pa[po + i] = Math.fma(k.step, g, pv);                                // p.add_(grad, -lr)
        }
    }

    /** {@link #sgdScalar} on whole vectors from {@code lo}; returns where they ended. */
    static int sgdLanes(int lo, int hi, SgdConstants k, float[] pa, int po, float[] ga, int go, float[] ba, int bo) {
        FloatVector wd = FloatVector.broadcast(S, k.wd), keep = FloatVector.broadcast(S, k.keep);
        FloatVector momentum = FloatVector.broadcast(S, k.momentum), step = FloatVector.broadcast(S, k.step);
        int i = lo;
        for (; i + L <= hi; i += L) {
            FloatVector pv = FloatVector.fromArray(S, pa, po + i), g = FloatVector.fromArray(S, ga, go + i);
            if (k.penalty) g = pv.fma(wd, g);
            if (ba != null) {
                FloatVector b = k.firstStep ? g : g.fma(keep, FloatVector.fromArray(S, ba, bo + i).mul(momentum));
                b.intoArray(ba, bo + i);
                g = k.nesterov ? b.fma(momentum, g) : b;
            }
            g.fma(step, pv).intoArray(pa, po + i);
        }
        return i;
    }

    /** The warm-up slice: every lane loop's paths on scratch arrays of {@link #N} elements. */
    private static final class FusedSlice {
        static final int N = 4096;
        private static final float[][] A = {ColdStart.scratch(N), ColdStart.scratch(N), ColdStart.scratch(N), ColdStart.scratch(N), ColdStart.scratch(N)};

        static void run() {
            for (float[] a : A) for (int i = 0; i < N; i++) a[i] = Math.abs(a[i]) + 0.25f;   // finite after any number of slices
            AdamConstants forward = AdamConstants.of(1e-3, 0.9, 0.999, 1e-8, 1e-2, true, 1e-3, 0.9);
            AdamConstants other = AdamConstants.of(1e-3, 0.3, 0.999, 1e-8, 1e-2, false, 1e-3, 0.9);
            adamLanes(0, N / 2, forward, A[0], 0, A[1], 0, A[2], 0, A[3], 0, null, 0);
            adamLanes(N / 2, N, other, A[0], 0, A[1], 0, A[2], 0, A[3], 0, A[4], 0);
            sgdLanes(0, N / 2, new SgdConstants(true, false, true, 1e-2f, 0.9f, 0.75f, -1e-3f), A[0], 0, A[1], 0, A[2], 0);
            sgdLanes(N / 2, N, new SgdConstants(false, true, false, 0f, 0.9f, 1f, -1e-3f), A[0], 0, A[1], 0, null, 0);
        }
    }
}
