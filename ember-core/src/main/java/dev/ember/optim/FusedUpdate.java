package dev.ember.optim;

import dev.ember.kernels.Parallel;
import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;

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
 * a 6.3M-parameter MLP take 866 ms (docs/benchmarks.md, session 21). This loop is plain scalar
 * code: the JIT compiles it within the first call (on-stack replacement after some 60,000
 * iterations), and one pass moves a tenth of the memory.
 */
final class FusedUpdate {
    private FusedUpdate() {}

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

    /** The update {@code Adam.updateOne} makes, for tensors {@link #applies} accepts. */
    static void adam(Tensor p, Tensor grad, Tensor expAvg, Tensor expAvgSq, Tensor maxExpAvgSq, double lr, double beta1, double beta2,
                       double eps, double weightDecay, boolean decoupled, double stepSize, double biasCorrection2Sqrt) {
        float[] pa = (float[]) p.storage().data(), ga = (float[]) grad.storage().data();
        float[] ma = (float[]) expAvg.storage().data(), va = (float[]) expAvgSq.storage().data();
        float[] xa = maxExpAvgSq == null ? null : (float[]) maxExpAvgSq.storage().data();
        int po = p.storageOffset(), go = grad.storageOffset(), mo = expAvg.storageOffset(), vo = expAvgSq.storageOffset();
        int xo = maxExpAvgSq == null ? 0 : maxExpAvgSq.storageOffset();
        boolean decay = weightDecay != 0, shrink = decay && decoupled, penalty = decay && !decoupled;
        float keep = (float) (1 - lr * weightDecay), wd = (float) weightDecay;
        double w = 1 - beta1;
        boolean lerpForward = Math.abs(w) < 0.5;   // lerp_'s two forms, as Adam.lerp_ (ATen's)
        float weight = (float) w, rest = (float) (1 - w), b2 = (float) beta2, oneMinusB2 = (float) (1 - beta2);
        float bc2 = (float) biasCorrection2Sqrt, epsF = (float) eps, negStep = (float) -stepSize;
        Parallel.forRange(p.numel(), 16, (lo, hi) -> {
            for (int i = lo; i < hi; i++) {
                float pv = pa[po + i], g = ga[go + i], m = ma[mo + i], v = va[vo + i];
                if (shrink) pv = pv * keep;
                if (penalty) g = Math.fma(wd, pv, g);                      // grad.add(p, weight_decay)
                m = lerpForward ? Math.fma(weight, g - m, m)               // m.add_(g.sub(m), w)
                        : g - (g - m) * rest;                                // m.copy_(g.sub(g.sub(m).mul(1 - w)))
                v = v * b2 + g * oneMinusB2 * g;                             // v.mul_(beta2).add_(g.mul(1 - beta2).mul_(g))
                float second = v;
                if (xa != null) {
                    second = Math.max(v, xa[xo + i]);                        // maximumOut(v, vmax)
                    xa[xo + i] = second;
                }
                float denom = (float) Math.sqrt(second) / bc2 + epsF;        // sqrt().div_(bc2).add_(eps)
                pa[po + i] = pv + m * negStep / denom;                       // p.add_(m.mul(-step_size).div_(denom))
                ma[mo + i] = m;
                va[vo + i] = v;
            }
        });
        p.storage().bumpVersion();
        expAvg.storage().bumpVersion();
        expAvgSq.storage().bumpVersion();
        if (maxExpAvgSq != null) maxExpAvgSq.storage().bumpVersion();
    }

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
        boolean penalty = weightDecay != 0;
        float wd = (float) weightDecay, m = (float) momentum, keep = (float) (1 - dampening), step = (float) -lr;
        Parallel.forRange(p.numel(), 8, (lo, hi) -> {
            for (int i = lo; i < hi; i++) {
                float pv = pa[po + i], g = ga[go + i];
                if (penalty) g = Math.fma(wd, pv, g);                        // grad.add(p, weight_decay)
                if (ba != null) {
                    float b = firstStep ? g : Math.fma(keep, g, ba[bo + i] * m);   // buf = grad.clone(), or buf.mul_(momentum).add_(grad, 1 - dampening)
                    ba[bo + i] = b;
                    g = nesterov ? Math.fma(m, b, g) : b;                    // grad.add(buf, momentum), or buf
                }
                pa[po + i] = Math.fma(step, g, pv);                          // p.add_(grad, -lr)
            }
        });
        p.storage().bumpVersion();
        if (buffer != null) buffer.storage().bumpVersion();
    }
}
