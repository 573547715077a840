package dev.ember.nn;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * PyTorch's {@code nn.AdaptiveLogSoftmaxWithLoss} (Grave et al., efficient softmax approximation):
 * the classes, sorted by frequency, are split by {@code cutoffs} into a shortlist scored by the
 * {@code head} together with one entry per cluster, and clusters scored by the {@code tail}'s
 * two-layer projections of width {@code in_features / div_value^(i+1)}. {@link #forward} gives each
 * example's target log-probability and the mean negative log-likelihood, running each cluster only
 * on the rows whose target is in it (which rows, read from the target's values: eager work, a
 * graph break when compiled, as torch's {@code nonzero}); {@link #logProb} gives the full
 * {@code [N, n_classes]} log-distribution and {@link #predict} the most likely class. Parameters
 * save under torch's names ({@code head.weight}, {@code tail.0.0.weight}, {@code tail.0.1.weight}, …).
 *
 * <pre>{@code
 * var asm = new AdaptiveLogSoftmaxWithLoss(64, 1000, new int[] {10, 100}, 4.0, false);
 * AdaptiveLogSoftmaxWithLoss.Output o = asm.forward(hidden, targets);   // o.output(): [N], o.loss(): []
 * o.loss().backward();
 * }</pre>
 */
public class AdaptiveLogSoftmaxWithLoss extends Module {
    public final int inFeatures, nClasses;
    /** The cutoffs with {@code n_classes} appended, as torch's {@code self.cutoffs}. */
    public final int[] cutoffs;
    public final double divValue;
    public final boolean headBias;
    public final int shortlistSize, nClusters, headSize;
    public Linear head;
    public ModuleList<Sequential> tail;

    /** torch's {@code _ASMoutput}: each example's target log-probability ({@code [N]}, or {@code []} unbatched) and the mean NLL. */
    public record Output(Tensor output, Tensor loss) {}

    /** torch's defaults: {@code div_value=4.0, head_bias=False}. */
    public AdaptiveLogSoftmaxWithLoss(int inFeatures, int nClasses, int[] cutoffs) { this(inFeatures, nClasses, cutoffs, 4.0, false); }

    public AdaptiveLogSoftmaxWithLoss(int inFeatures, int nClasses, int[] cutoffs, double divValue, boolean headBias) {
        if (cutoffs == null || cutoffs.length == 0) throw new IllegalArgumentException("cutoffs should be a sequence of length larger than 0");
        boolean valid = true;
        for (int i = 0; i < cutoffs.length; i++) {
            if (cutoffs[i] <= 0 || cutoffs[i] > nClasses - 1 || (i > 0 && cutoffs[i] <= cutoffs[i - 1])) valid = false;
        }
        if (!valid) {
            throw new IllegalArgumentException("cutoffs should be a sequence of unique, positive integers sorted in an increasing order, "
                    + "where each value is between 1 and n_classes-1");
        }
        this.inFeatures = inFeatures;
        this.nClasses = nClasses;
        this.cutoffs = Arrays.copyOf(cutoffs, cutoffs.length + 1);
        this.cutoffs[cutoffs.length] = nClasses;
        this.divValue = divValue;
        this.headBias = headBias;
        this.shortlistSize = this.cutoffs[0];
        this.nClusters = this.cutoffs.length - 1;
        this.headSize = shortlistSize + nClusters;
        this.head = new Linear(inFeatures, headSize, headBias);
        this.tail = new ModuleList<>();
        for (int i = 0; i < nClusters; i++) {
            int hidden = (int) Math.floor(inFeatures / Math.pow(divValue, i + 1));   // Python's int(in_features // div_value ** (i + 1))
            int clusterSize = this.cutoffs[i + 1] - this.cutoffs[i];
            tail.append(new Sequential(new Linear(inFeatures, hidden, false), new Linear(hidden, clusterSize, false)));
        }
    }


    /**
     * The target log-probabilities and the loss: {@code input [N, in_features]} with
     * {@code target [N]}, or unbatched {@code [in_features]} with a 0-d target.
     */
    public Output forward(Tensor input, Tensor target) {
        int targetDim = target.dim();
        if (targetDim == 1) {
            if (input.size(0) != target.size(0)) throw new IllegalArgumentException("Input and target should have the same size in the batch dimension.");
            if (input.dim() != 2) {
                throw new IllegalArgumentException("1D target tensor expects 2D input tensors, but found inputs with size torch.Size(" + Shapes.format(input.shape()) + ")");
            }
        } else if (targetDim == 0) {
            if (input.dim() != 1) {
                throw new IllegalArgumentException("0D target tensor expects 1D input tensors, but found inputs with size torch.Size(" + Shapes.format(input.shape()) + ")");
            }
        } else {
            throw new IllegalArgumentException("0D or 1D target tensor expected, multi-target not supported");
        }
        if (target.dtype().isFloatingPoint() || target.dtype() == DType.BOOL) {
            throw new IllegalArgumentException("AdaptiveLogSoftmaxWithLoss: target must hold class indices (an integer tensor), got " + target.dtype().torchName());
        }
        boolean batched = targetDim > 0;
        Tensor x = batched ? input : input.unsqueeze(0);
        Tensor t = batched ? target : target.unsqueeze(0);
        long[] targets = t.toLongArray();
        int batch = targets.length;

        // which rows go to which cluster: read from the target's values, as torch's masks and nonzero
        long[] headIndex = new long[batch];
        List<List<Integer>> rowsOf = new ArrayList<>();
        for (int i = 0; i < nClusters; i++) rowsOf.add(new ArrayList<>());
        long min = Long.MAX_VALUE, max = Long.MIN_VALUE;
        boolean allInRange = true;
        for (int r = 0; r < batch; r++) {
            long c = targets[r];
            min = Math.min(min, c);
            max = Math.max(max, c);
            if (c < 0 || c >= nClasses) {
                allInRange = false;
            } else if (c < shortlistSize) {
                headIndex[r] = c;
            } else {
                int cluster = clusterOf(c);
                headIndex[r] = shortlistSize + cluster;
                rowsOf.get(cluster).add(r);
            }
        }
        if (!allInRange) {
            throw new IllegalArgumentException("Target values should be in [0, " + (nClasses - 1) + "], but values in range [" + min + ", " + max + "] were found. ");
        }

        Tensor output = null;
        for (int i = 0; i < nClusters; i++) {
            List<Integer> rows = rowsOf.get(i);
            if (rows.isEmpty()) continue;
            long[] rowIndex = new long[rows.size()], relative = new long[rows.size()];
            for (int j = 0; j < rows.size(); j++) {
                rowIndex[j] = rows.get(j);
                relative[j] = targets[rows.get(j)] - cutoffs[i];
            }
            Tensor rowTensor = Tensor.ofLongs(rowIndex);
            Tensor clusterOutput = tail.get(i).call(x.indexSelect(0, rowTensor));
            Tensor local = F.logSoftmax(clusterOutput, 1).gather(1, Tensor.ofLongs(relative).unsqueeze(1)).squeeze(1);
            Tensor placed = Tensor.zeros(local.dtype(), batch).scatterAdd(0, rowTensor, local);
            output = output == null ? placed : output.add(placed);
        }
        Tensor headLogprob = F.logSoftmax(head.call(x), 1);
        Tensor fromHead = headLogprob.gather(1, Tensor.ofLongs(headIndex).unsqueeze(1)).squeeze(1);
        output = output == null ? fromHead : output.add(fromHead);
        Tensor loss = output.neg().mean();
        return new Output(batched ? output : output.squeeze(0), loss);
    }

    private int clusterOf(long target) {
        for (int i = 0; i < nClusters; i++) {
            if (target < cutoffs[i + 1]) return i;
        }
        throw new IllegalStateException("unreachable: target " + target + " below n_classes");
    }

    /** torch's {@code _get_full_log_prob}: the shortlist's log-probabilities, then each cluster's added to its head entry. */
    private Tensor fullLogProb(Tensor input, Tensor headOutput) {
        Tensor headLogprob = F.logSoftmax(headOutput, 1);
        List<Tensor> parts = new ArrayList<>();
        parts.add(headLogprob.narrow(1, 0, shortlistSize));
        for (int i = 0; i < nClusters; i++) {
            Tensor clusterLogprob = F.logSoftmax(tail.get(i).call(input), 1);
            parts.add(clusterLogprob.add(headLogprob.narrow(1, shortlistSize + i, 1)));
        }
        return Tensor.cat(parts, 1);
    }

    /** The log-probability of every class, {@code [N, n_classes]}, for {@code input [N, in_features]} (torch's {@code log_prob}). */
    public Tensor logProb(Tensor input) {
        return fullLogProb(input, head.call(input));
    }

    /**
     * The most likely class of each example, {@code [N]} int64 (torch's {@code predict}): the head's
     * argmax where it is a shortlist class, else the argmax of the full distribution of those rows.
     */
    public Tensor predict(Tensor input) {
        Tensor headOutput = head.call(input);
        Tensor output = headOutput.argmax(1);
        long[] best = output.toLongArray();
        List<Integer> outside = new ArrayList<>();
        for (int r = 0; r < best.length; r++) if (best[r] >= shortlistSize) outside.add(r);
        if (outside.isEmpty()) return output;
        if (outside.size() == best.length) return fullLogProb(input, headOutput).argmax(1);
        long[] rows = outside.stream().mapToLong(Integer::longValue).toArray();
        Tensor rowTensor = Tensor.ofLongs(rows);
        long[] chosen = fullLogProb(input.indexSelect(0, rowTensor), headOutput.indexSelect(0, rowTensor)).argmax(1).toLongArray();
        for (int j = 0; j < rows.length; j++) best[(int) rows[j]] = chosen[j];
        return Tensor.ofLongs(best);
    }
}
