package dev.ember.nn;

import dev.ember.tensor.Tensor;

/**
 * A batch of sequences of different lengths without padding, as PyTorch's
 * {@code torch.nn.utils.rnn.PackedSequence}: {@code data} holds the steps time-major (every
 * sequence's first step, then every second step of the sequences that have one, …), with the
 * sequences sorted longest first; {@code batchSizes[t]} (int64) is how many sequences have a step
 * {@code t}. {@code sortedIndices} maps the sorted order back to the batch ({@code null} when the
 * batch was already sorted), {@code unsortedIndices} is its inverse. Made by
 * {@link RnnUtils#packPaddedSequence} or {@link RnnUtils#packSequence}, read by the recurrent
 * layers' {@code forward(PackedSequence, …)} and {@link RnnUtils#padPackedSequence}.
 */
public record PackedSequence(Tensor data, Tensor batchSizes, Tensor sortedIndices, Tensor unsortedIndices) {
    public PackedSequence {
        if (data == null || batchSizes == null) throw new IllegalArgumentException("PackedSequence: data and batch_sizes are required");
        if (batchSizes.dim() != 1) throw new IllegalArgumentException("PackedSequence: batch_sizes should be a 1D tensor, got " + batchSizes.dim() + "D");
        if ((sortedIndices == null) != (unsortedIndices == null)) throw new IllegalArgumentException("PackedSequence: give both sorted_indices and unsorted_indices, or neither");
    }

    /** How many sequences the batch holds. */
    public int batchSize() { return batchSizes.numel() == 0 ? 0 : (int) batchSizes.toLongArray()[0]; }

    /** Each sequence's length, in the original batch order. */
    public long[] lengths() {
        long[] sizes = batchSizes.toLongArray();
        long[] sorted = new long[batchSize()];
        for (long size : sizes) for (int j = 0; j < size; j++) sorted[j]++;
        if (sortedIndices == null) return sorted;
        long[] order = sortedIndices.toLongArray(), out = new long[sorted.length];
        for (int j = 0; j < sorted.length; j++) out[(int) order[j]] = sorted[j];
        return out;
    }

    @Override
    public String toString() {
        return "PackedSequence(data=" + data + ", batch_sizes=" + batchSizes + ", sorted_indices=" + (sortedIndices == null ? "None" : sortedIndices)
                + ", unsorted_indices=" + (unsortedIndices == null ? "None" : unsortedIndices) + ")";
    }
}
