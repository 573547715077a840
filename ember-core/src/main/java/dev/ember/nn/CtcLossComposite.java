package dev.ember.nn;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;

/**
 * {@link F#ctcLoss}: connectionist temporal classification (Graves et al., 2006) as ATen's CPU
 * {@code ctc_loss} computes it, the forward (alpha) recursion in log space over each sample's
 * extended label sequence (a blank before, between and after the labels), written in recorded ops
 * so autograd differentiates it. One difference to know: ATen's backward returns
 * {@code exp(log_probs) − γ} where γ is the occupation probability, the gradient of the logits when
 * {@code log_probs} is a log_softmax, while autograd here gives the exact derivative with respect
 * to {@code log_probs}, {@code −γ}; through a {@code logSoftmax} the two are the same.
 */
final class CtcLossComposite {
    private CtcLossComposite() {}

    /** A stand-in for log(0) that keeps exp(x − x) finite in logsumexp's gradient (−inf would give NaN for impossible states). */
    private static final double LOG_ZERO = -1e30;

    static Tensor ctcLoss(Tensor logProbs, Tensor targets, long[] inputLengths, long[] targetLengths, int blank, String reduction, boolean zeroInfinity) {
        if (!List.of("none", "mean", "sum").contains(reduction)) throw new IllegalArgumentException("ctc_loss: " + reduction + " is not a valid value for reduction");
        boolean unbatched = logProbs.dim() == 2;
        if (logProbs.dim() != 2 && logProbs.dim() != 3) {
            throw new IllegalArgumentException("ctc_loss: expected log_probs of shape [T, N, C] or, unbatched, [T, C], got " + logProbs.dim() + "-d");
        }
        Tensor lp = unbatched ? logProbs.unsqueeze(1) : logProbs;
        Tensor tg = unbatched && targets.dim() == 1 && inputLengths.length == 1 ? targets.unsqueeze(0) : targets;
        int steps = lp.size(0), batch = lp.size(1), classes = lp.size(2);
        if (!lp.dtype().isFloatingPoint()) throw new IllegalArgumentException("ctc_loss: expected floating point log_probs, got " + lp.dtype().scalarTypeName());
        if (blank < 0 || blank >= classes) throw new IllegalArgumentException("blank must be in label range");
        if (inputLengths.length != batch) throw new IllegalArgumentException("input_lengths must be of size batch_size");
        if (targetLengths.length != batch) throw new IllegalArgumentException("target_lengths must be of size batch_size");
        long[] flat = tg.to(DType.INT64).reshape(-1).toLongArray();
        long[][] labels = new long[batch][];
        if (tg.dim() == 1) {
            long total = 0;
            for (long l : targetLengths) total += l;
            if (tg.size(0) < total) {
                throw new IllegalArgumentException("Expected tensor to have size at least " + total + " at dimension 0, but got size " + tg.size(0)
                        + " for argument #2 'targets' (while checking arguments for ctc_loss_allocate_outputs)");
            }
            int offset = 0;
            for (int b = 0; b < batch; b++) {
                labels[b] = java.util.Arrays.copyOfRange(flat, offset, offset + (int) targetLengths[b]);
                offset += (int) targetLengths[b];
            }
        } else {
            if (tg.dim() != 2 || tg.size(0) != batch) {
                throw new IllegalArgumentException("ctc_loss: expected targets of shape [N, S] with N = " + batch + " (or 1-d, concatenated), got " + java.util.Arrays.toString(tg.shape()));
            }
            int width = tg.size(1);
            for (int b = 0; b < batch; b++) {
                if (targetLengths[b] > width) {
                    throw new IllegalArgumentException("Expected tensor to have size at least " + targetLengths[b] + " at dimension 1, but got size " + width
                            + " for argument #2 'targets' (while checking arguments for ctc_loss_allocate_outputs)");
                }
                labels[b] = java.util.Arrays.copyOfRange(flat, b * width, b * width + (int) targetLengths[b]);
            }
        }
        for (int b = 0; b < batch; b++) {
            if (inputLengths[b] > steps) {
                throw new IllegalArgumentException("Expected input_lengths to have value at most " + steps + ", but got value " + inputLengths[b]
                        + " (while checking arguments for ctc_loss_allocate_outputs)");
            }
            if (inputLengths[b] < 0 || targetLengths[b] < 0) throw new IllegalArgumentException("ctc_loss: lengths must be non-negative");
            for (long label : labels[b]) {
                if (label < 0 || label >= classes) throw new IllegalArgumentException("ctc_loss: target label " + label + " is outside [0, " + classes + ")");
            }
        }
        List<Tensor> losses = new ArrayList<>();
        for (int b = 0; b < batch; b++) losses.add(sampleLoss(lp.select(1, b), labels[b], (int) inputLengths[b], blank, zeroInfinity));
        Tensor perSample = Tensor.stack(losses, 0);
        Tensor out = switch (reduction) {
            case "none" -> perSample;
            case "sum" -> perSample.sum();
            default -> {
                long[] clamped = targetLengths.clone();
                for (int b = 0; b < batch; b++) clamped[b] = Math.max(1, clamped[b]);
                yield perSample.div(Tensor.ofLongs(clamped).to(perSample.dtype())).mean();
            }
        };
        return unbatched && reduction.equals("none") ? out.squeeze(0) : out;
    }

    /** −log p(labels | the first {@code length} steps of {@code lp} [T, C]); +inf (or 0 with zeroInfinity) when no alignment fits. */
    private static Tensor sampleLoss(Tensor lp, long[] labels, int length, int blank, boolean zeroInfinity) {
        int needed = labels.length;
        for (int i = 1; i < labels.length; i++) if (labels[i] == labels[i - 1]) needed++;   // a repeat needs a blank between
        if (length < needed || length == 0) {
            return Tensor.full(lp.dtype(), zeroInfinity ? 0.0 : Double.POSITIVE_INFINITY);   // a constant: no alignment, no gradient
        }
        int states = 2 * labels.length + 1;
        long[] extended = new long[states];
        boolean[] skip = new boolean[states];
        for (int s = 0; s < states; s++) {
            extended[s] = s % 2 == 0 ? blank : labels[s / 2];
            skip[s] = s >= 2 && extended[s] != blank && extended[s] != extended[s - 2];
        }
        Tensor emit = lp.narrow(0, 0, length).indexSelect(1, Tensor.ofLongs(extended));   // [length, states]
        double[] startMask = new double[states], skipMask = new double[states];
        for (int s = 0; s < states; s++) {
            startMask[s] = s < 2 ? 1 : 0;
            skipMask[s] = skip[s] ? 1 : 0;
        }
        Tensor canStart = Tensor.of(startMask, states).ne(0.0), canSkip = Tensor.of(skipMask, states).ne(0.0);
        Tensor alpha = Tensor.where(canStart, emit.select(0, 0), LOG_ZERO);
        for (int t = 1; t < length; t++) {
            Tensor fromPrevious = F.pad(alpha, new int[] {1, 0}, LOG_ZERO).narrow(0, 0, states);
            Tensor fromSkip = Tensor.where(canSkip, F.pad(alpha, new int[] {2, 0}, LOG_ZERO).narrow(0, 0, states), LOG_ZERO);
            alpha = Tensor.stack(List.of(alpha, fromPrevious, fromSkip), 0).logsumexp(0).add(emit.select(0, t));
        }
        Tensor end = states == 1 ? alpha : alpha.narrow(0, states - 2, 2);   // ending on the last label or the blank after it
        return end.logsumexp(0).neg();
    }
}
