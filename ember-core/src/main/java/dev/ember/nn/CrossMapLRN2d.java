package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * PyTorch's {@code nn.CrossMapLRN2d}, the legacy (Lua Torch) local response normalization across
 * the channels of {@code [N, C, H, W]} input: {@code x / (k + alpha/size · S)^beta} with {@code S}
 * a windowed sum of squares over channels.
 *
 * <p>The window is exactly the one torch's {@code _cross_map_lrn2d} computes with its running sum
 * ({@code pre_pad = (size - 1) / 2 + 1}): channels {@code c - pre_pad + 1 … c + pre_pad - 1},
 * clipped to the input, and, because that running sum never subtracts channel 0 again, channel 0's
 * square for every channel {@code c >= pre_pad} as well. (With at most {@code pre_pad} channels,
 * as in torch's own tests, the window is the usual symmetric one.) It is written in recorded
 * ops, so its gradient is the exact derivative of these values; torch's hand-written backward
 * assumes a symmetric window and differs from it where the window is not one (its terms are scaled
 * by {@code alpha·beta}, small in practice).
 */
public class CrossMapLRN2d extends Module {
    public final int size;
    public final double alpha, beta, k;

    /** PyTorch's defaults: {@code alpha=1e-4, beta=0.75, k=1}. */
    public CrossMapLRN2d(int size) { this(size, 1e-4, 0.75, 1); }

    public CrossMapLRN2d(int size, double alpha, double beta, double k) {
        if (size < 1) throw new IllegalArgumentException("CrossMapLRN2d: size must be positive, got " + size);
        this.size = size;
        this.alpha = alpha;
        this.beta = beta;
        this.k = k;
    }

    @Override
    public Tensor forward(Tensor input) {
        if (input.dim() != 4) throw new IllegalArgumentException("CrossMapLRN2d: Expected input to be 4D, got " + input.dim() + "D instead.");
        int n = input.size(0), channels = input.size(1), h = input.size(2), w = input.size(3);
        int prePad = (size - 1) / 2 + 1;
        Tensor squares = input.mul(input);
        // the symmetric part: a sum of 2·pre_pad − 1 shifted copies of the zero-padded squares
        Tensor padded = F.pad(squares, new int[] {0, 0, 0, 0, prePad - 1, prePad - 1});
        Tensor sum = padded.narrow(1, 0, channels);
        for (int shift = 1; shift <= 2 * prePad - 2; shift++) sum = sum.add(padded.narrow(1, shift, channels));
        if (channels > prePad) {
            // channel 0's square, which torch's running sum keeps in every later window
            Tensor first = squares.narrow(1, 0, 1).expand(n, channels - prePad, h, w);
            sum = sum.add(F.pad(first, new int[] {0, 0, 0, 0, prePad, 0}));
        }
        return sum.mul(alpha / size).add(k).pow(-beta).mul(input);
    }

    /** torch's {@code "{size}, alpha={alpha}, beta={beta}, k={k}"}; an integral k prints as torch's int default does. */
    @Override
    protected String extraRepr() {
        String kText = k == Math.rint(k) && Math.abs(k) < 1e15 ? Long.toString((long) k) : Repr.number(k);
        return size + ", alpha=" + Repr.number(alpha) + ", beta=" + Repr.number(beta) + ", k=" + kText;
    }
}
