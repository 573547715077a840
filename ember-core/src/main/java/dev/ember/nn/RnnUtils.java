package dev.ember.nn;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * PyTorch's {@code torch.nn.utils.rnn}: batches of sequences of different lengths, padded to the
 * longest ({@link #padSequence}, {@link #unpadSequence}) or packed without padding
 * ({@link PackedSequence}: {@link #packPaddedSequence}, {@link #packSequence},
 * {@link #padPackedSequence}, {@link #unpackSequence}). Everything is made of recorded ops, so
 * gradients flow from the packed or padded result back to the sequences.
 *
 * <pre>{@code
 * Tensor padded = RnnUtils.padSequence(List.of(a, b, c), true);            // [3, maxLen, features]
 * PackedSequence packed = RnnUtils.packPaddedSequence(padded, new long[] {5, 2, 3}, true, false);
 * RNNBase.PackedOutput out = lstm.forward(packed, null, null);             // no step sees padding
 * RnnUtils.Padded unpacked = RnnUtils.padPackedSequence(out.output(), true);
 * }</pre>
 */
public final class RnnUtils {
    private RnnUtils() {}

    /** A padded batch and each sequence's length (int64), as {@code pad_packed_sequence} returns them. */
    public record Padded(Tensor padded, Tensor lengths) {}

    // ------------------------------------------------------------------ padding

    /** {@link #padSequence(List, boolean, double, String)} time-major, padded with zeros on the right. */
    public static Tensor padSequence(List<Tensor> sequences) { return padSequence(sequences, false, 0.0, "right"); }

    /** {@link #padSequence(List, boolean, double, String)} padded with zeros on the right. */
    public static Tensor padSequence(List<Tensor> sequences, boolean batchFirst) { return padSequence(sequences, batchFirst, 0.0, "right"); }

    /**
     * Sequences {@code [L_i, *]} (the same trailing dims) stacked into {@code [maxL, B, *]} (or
     * {@code [B, maxL, *]} with {@code batchFirst}), each filled up to the longest with
     * {@code paddingValue} on the "right" (after it) or the "left".
     */
    public static Tensor padSequence(List<Tensor> sequences, boolean batchFirst, double paddingValue, String paddingSide) {
        if (sequences.isEmpty()) throw new IllegalArgumentException("received an empty list of sequences");
        if (!"left".equals(paddingSide) && !"right".equals(paddingSide)) {
            throw new IllegalArgumentException("Expected padding_side to be one of left or right, but got " + paddingSide + ".");
        }
        Tensor first = sequences.getFirst();
        int maxLength = 0;
        for (Tensor s : sequences) {
            if (s.dim() == 0) throw new IllegalArgumentException("pad_sequence: each sequence needs a time dimension (dim 0), got a 0-d tensor");
            if (s.dim() != first.dim()) {
                throw new IllegalArgumentException("pad_sequence: every sequence needs the trailing dims of the first, " + Shapes.format(Arrays.copyOfRange(first.shape(), 1, first.dim()))
                        + ", got a sequence of shape " + Shapes.format(s.shape()));
            }
            for (int d = 1; d < s.dim(); d++) {
                if (s.size(d) != first.size(d)) {
                    throw new IllegalArgumentException("The size of tensor a (" + first.size(d) + ") must match the size of tensor b (" + s.size(d) + ") at non-singleton dimension " + d);
                }
            }
            maxLength = Math.max(maxLength, s.size(0));
        }
        List<Tensor> padded = new ArrayList<>();
        for (Tensor s : sequences) {
            int[] pad = new int[2 * s.dim()];   // constant_pad_nd's pairs run from the last dim; dim 0's is the final pair
            pad[pad.length - ("left".equals(paddingSide) ? 2 : 1)] = maxLength - s.size(0);
            padded.add(F.pad(s, pad, paddingValue));
        }
        return Tensor.stack(padded, batchFirst ? 0 : 1);
    }

    /** The sequences of a padded batch, each cut to its length: {@link #padSequence}'s inverse. */
    public static List<Tensor> unpadSequence(Tensor padded, long[] lengths, boolean batchFirst) {
        Tensor batchMajor = batchFirst ? padded : padded.transpose(0, 1);
        if (lengths.length > batchMajor.size(0)) {
            throw new IllegalArgumentException("unpad_sequence: " + lengths.length + " lengths for a batch of " + batchMajor.size(0) + " sequences");
        }
        List<Tensor> out = new ArrayList<>();
        for (int i = 0; i < lengths.length; i++) {
            checkLength(lengths[i], batchMajor.size(1), "unpad_sequence");
            out.add(batchMajor.select(0, i).narrow(0, 0, (int) lengths[i]));
        }
        return out;
    }

    // ------------------------------------------------------------------ packing

    /**
     * Packs a padded batch {@code [T, B, *]} ({@code [B, T, *]} with {@code batchFirst}) whose
     * sequence {@code b} has {@code lengths[b]} valid steps. With {@code enforceSorted} the lengths
     * must be decreasing; without, the batch is sorted longest first (stably) and the packed
     * sequence keeps the permutation.
     */
    public static PackedSequence packPaddedSequence(Tensor input, long[] lengths, boolean batchFirst, boolean enforceSorted) {
        Tensor sortedIndices = null;
        Tensor x = input;
        long[] sortedLengths = lengths.clone();
        if (!enforceSorted) {
            Integer[] order = new Integer[lengths.length];
            for (int i = 0; i < order.length; i++) order[i] = i;
            Arrays.sort(order, (a, b) -> Long.compare(lengths[b], lengths[a]));
            long[] indices = new long[order.length];
            for (int i = 0; i < order.length; i++) {
                indices[i] = order[i];
                sortedLengths[i] = lengths[order[i]];
            }
            sortedIndices = Tensor.ofLongs(indices);
            if (input.dim() >= 2 && input.size(batchFirst ? 0 : 1) == lengths.length) x = input.indexSelect(batchFirst ? 0 : 1, sortedIndices);
        }
        if (input.dim() < 2) throw new IllegalArgumentException("pack_padded_sequence: the input needs a time and a batch dimension, got a " + input.dim() + "-d tensor");
        Tensor timeMajor = batchFirst ? x.transpose(0, 1) : x;
        if (timeMajor.numel() == 0) throw new IllegalArgumentException("Cannot pack empty tensors.");
        int steps = timeMajor.size(0), batch = timeMajor.size(1);
        if (sortedLengths.length != batch) {
            throw new IllegalArgumentException("Expected `len(lengths)` to be equal to batch_size, but got " + sortedLengths.length + " (batch_size=" + batch + ")");
        }
        if (sortedLengths[batch - 1] <= 0) throw new IllegalArgumentException("Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0");
        for (int i = 1; i < batch; i++) {
            if (sortedLengths[i] > sortedLengths[i - 1]) {
                throw new IllegalArgumentException("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                        + "pack_padded_sequence and/or pack_sequence to sidestep this requirement if you do not need ONNX exportability.");
            }
        }
        checkLength(sortedLengths[0], steps, "pack_padded_sequence");
        int longest = (int) sortedLengths[0];
        long[] batchSizes = new long[longest];
        for (int t = 0; t < longest; t++) {
            int n = 0;
            while (n < batch && sortedLengths[n] > t) n++;
            batchSizes[t] = n;
        }
        Tensor unsortedIndices = sortedIndices == null ? null : invertPermutation(sortedIndices);
        return new PackedSequence(packedSteps(timeMajor, batchSizes), Tensor.ofLongs(batchSizes), sortedIndices, unsortedIndices);
    }

    /** The rows of a sorted time-major batch that {@code batchSizes} keeps, step after step. */
    private static Tensor packedSteps(Tensor sortedTimeMajor, long[] batchSizes) {
        List<Tensor> rows = new ArrayList<>();
        for (int t = 0; t < batchSizes.length; t++) rows.add(sortedTimeMajor.select(0, t).narrow(0, 0, (int) batchSizes[t]));
        return Tensor.cat(rows, 0);
    }

    /** {@code sequences} (in batch order, the lengths of {@code like}'s) packed exactly as {@code like}: its batch sizes and its sort. */
    static PackedSequence packLike(List<Tensor> sequences, PackedSequence like) {
        Tensor padded = padSequence(sequences);
        if (like.sortedIndices() != null) padded = padded.indexSelect(1, like.sortedIndices());
        return new PackedSequence(packedSteps(padded, like.batchSizes().toLongArray()), like.batchSizes(), like.sortedIndices(), like.unsortedIndices());
    }

    /** {@link #packPaddedSequence(Tensor, long[], boolean, boolean)} with the lengths as a 1-d integer tensor. */
    public static PackedSequence packPaddedSequence(Tensor input, Tensor lengths, boolean batchFirst, boolean enforceSorted) {
        if (lengths.dim() != 1 || lengths.dtype().isFloatingPoint() || lengths.dtype() == DType.BOOL) {
            throw new IllegalArgumentException("'lengths' argument should be a 1D CPU int64 tensor, but got " + lengths.dim() + "D cpu " + lengths.dtype().scalarTypeName() + " tensor");
        }
        return packPaddedSequence(input, lengths.toLongArray(), batchFirst, enforceSorted);
    }

    /** Packs sequences {@code [L_i, *]}: {@link #padSequence} then {@link #packPaddedSequence}. */
    public static PackedSequence packSequence(List<Tensor> sequences, boolean enforceSorted) {
        if (sequences.isEmpty()) throw new IllegalArgumentException("received an empty list of sequences");
        long[] lengths = new long[sequences.size()];
        for (int i = 0; i < lengths.length; i++) lengths[i] = sequences.get(i).dim() == 0 ? 0 : sequences.get(i).size(0);
        return packPaddedSequence(padSequence(sequences), lengths, false, enforceSorted);
    }

    /** {@link #padPackedSequence(PackedSequence, boolean, double, Integer)} padded with zeros to the longest sequence. */
    public static Padded padPackedSequence(PackedSequence sequence, boolean batchFirst) { return padPackedSequence(sequence, batchFirst, 0.0, null); }

    /**
     * A packed batch padded back to {@code [T, B, *]} ({@code [B, T, *]} with {@code batchFirst}) in
     * the original batch order, {@code T} the longest length or {@code totalLength} (for models
     * whose output must keep the input's padded length); and the lengths.
     */
    public static Padded padPackedSequence(PackedSequence sequence, boolean batchFirst, double paddingValue, Integer totalLength) {
        long[] batchSizes = sequence.batchSizes().toLongArray();
        int longest = batchSizes.length;
        if (totalLength != null && totalLength < longest) {
            throw new IllegalArgumentException("Expected total_length to be at least the length of the longest sequence in input, but got total_length=" + totalLength
                    + " and max sequence length being " + longest);
        }
        int batch = sequence.batchSize(), offset = 0;
        Tensor data = sequence.data();
        List<Tensor> steps = new ArrayList<>();
        for (long n : batchSizes) {
            Tensor rows = data.narrow(0, offset, (int) n);
            int[] pad = new int[2 * rows.dim()];
            pad[pad.length - 1] = batch - (int) n;
            steps.add(F.pad(rows, pad, paddingValue));
            offset += (int) n;
        }
        Tensor padded = Tensor.stack(steps, 0);
        if (totalLength != null && totalLength > longest) {
            int[] pad = new int[2 * padded.dim()];
            pad[pad.length - 1] = totalLength - longest;
            padded = F.pad(padded, pad, paddingValue);
        }
        if (batchFirst) padded = padded.transpose(0, 1);
        long[] sortedLengths = new long[batch];
        for (long n : batchSizes) for (int j = 0; j < n; j++) sortedLengths[j]++;
        Tensor lengths = Tensor.ofLongs(sortedLengths);
        if (sequence.unsortedIndices() != null) {
            padded = padded.indexSelect(batchFirst ? 0 : 1, sequence.unsortedIndices());
            lengths = lengths.indexSelect(0, sequence.unsortedIndices());
        }
        return new Padded(padded, lengths);
    }

    /** The sequences of a packed batch, in the original order: {@link #packSequence}'s inverse. */
    public static List<Tensor> unpackSequence(PackedSequence sequence) {
        Padded p = padPackedSequence(sequence, true);
        return unpadSequence(p.padded(), p.lengths().toLongArray(), true);
    }

    private static Tensor invertPermutation(Tensor permutation) {
        long[] p = permutation.toLongArray(), inverse = new long[p.length];
        for (int i = 0; i < p.length; i++) inverse[(int) p[i]] = i;
        return Tensor.ofLongs(inverse);
    }

    private static void checkLength(long length, int steps, String op) {
        if (length < 0 || length > steps) throw new IllegalArgumentException(op + ": a length of " + length + " is outside the input's " + steps + " steps");
    }
}
