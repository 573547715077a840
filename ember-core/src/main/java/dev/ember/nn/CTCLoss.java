package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * The connectionist temporal classification loss, as PyTorch's {@code nn.CTCLoss}
 * ({@link F#ctcLoss}): for sequence outputs without a frame-by-frame alignment to their targets
 * (speech, handwriting).
 *
 * <pre>{@code
 * CTCLoss ctc = new CTCLoss();
 * Tensor loss = ctc.forward(logits.logSoftmax(2), targets, Tensor.ofLongs(50, 45), Tensor.ofLongs(20, 18));
 * }</pre>
 */
public class CTCLoss extends Module {
    public final int blank;
    public final String reduction;
    public final boolean zeroInfinity;

    /** PyTorch's defaults: blank 0, reduction "mean", infinite losses kept. */
    public CTCLoss() { this(0, "mean", false); }

    public CTCLoss(int blank, String reduction, boolean zeroInfinity) {
        this.blank = blank;
        this.reduction = reduction;
        this.zeroInfinity = zeroInfinity;
    }

    /** {@code inputLengths} and {@code targetLengths} are 1-d integer tensors of N entries (0-d when unbatched). */
    public Tensor forward(Tensor logProbs, Tensor targets, Tensor inputLengths, Tensor targetLengths) {
        return F.ctcLoss(logProbs, targets, inputLengths.reshape(-1).toLongArray(), targetLengths.reshape(-1).toLongArray(), blank, reduction, zeroInfinity);
    }
}
