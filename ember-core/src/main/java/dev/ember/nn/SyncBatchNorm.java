package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.util.Map;

/**
 * PyTorch's {@code nn.SyncBatchNorm}: batch normalization whose batch statistics are gathered
 * across the processes of a distributed run. Ember runs in one process, where torch's
 * SyncBatchNorm never synchronizes ({@code torch.distributed} not initialized, or a world of one)
 * and falls back to {@code F.batch_norm}: this class is that path, {@link BatchNorm}'s forward for
 * input {@code [N, C, +]} of any rank from 2 on, with torch's checks ("expected at least 2D
 * input", non-zero channels). {@code processGroup} is kept, as torch's attribute, and unused.
 *
 * <pre>{@code
 * Module model = SyncBatchNorm.convertSyncBatchnorm(new Sequential(new Conv2d(3, 8, 3), new BatchNorm2d(8)));
 * // model.get(1) is a SyncBatchNorm sharing the BatchNorm2d's weight, bias and running statistics
 * }</pre>
 */
public class SyncBatchNorm extends BatchNorm {
    /** torch's {@code process_group}: the group whose statistics would be shared; null is the whole world. Unused in one process. */
    public final Object processGroup;

    /** torch's defaults: {@code eps=1e-5, momentum=0.1, affine=True, track_running_stats=True}. */
    public SyncBatchNorm(int numFeatures) { this(numFeatures, 1e-5, 0.1, true, true, null); }

    public SyncBatchNorm(int numFeatures, double eps, double momentum, boolean affine, boolean trackRunningStats) {
        this(numFeatures, eps, (Double) momentum, affine, trackRunningStats, null);
    }

    /** {@code momentum} null is torch's {@code momentum=None} (the running statistics average every batch). */
    public SyncBatchNorm(int numFeatures, double eps, Double momentum, boolean affine, boolean trackRunningStats) {
        this(numFeatures, eps, momentum, affine, trackRunningStats, null);
    }

    public SyncBatchNorm(int numFeatures, double eps, Double momentum, boolean affine, boolean trackRunningStats, Object processGroup) {
        super(numFeatures, eps, momentum, affine, trackRunningStats);
        this.processGroup = processGroup;
    }

    @Override
    public Tensor forward(Tensor input) {
        checkInputDim(input);
        if (input.size(1) == 0) throw new IllegalArgumentException("SyncBatchNorm number of input channels should be non-zero");
        return super.forward(input);
    }

    @Override
    void checkInputDim(Tensor input) {
        if (input.dim() < 2) throw new IllegalArgumentException("expected at least 2D input (got " + input.dim() + "D input)");
    }

    /** {@link #convertSyncBatchnorm(Module, Object)} for the whole world. */
    public static Module convertSyncBatchnorm(Module module) { return convertSyncBatchnorm(module, null); }

    /**
     * torch's {@code SyncBatchNorm.convert_sync_batchnorm}: every {@link BatchNorm} in
     * {@code module} (BatchNorm1d/2d/3d, their lazy forms once materialized, SyncBatchNorm itself)
     * replaced by a SyncBatchNorm with its options that shares its weight, bias, running statistics
     * and {@code num_batches_tracked} (the same tensors) and its training mode. Returns
     * {@code module}, or the new layer when {@code module} is itself a batch norm. A field holding
     * a batch norm must be typed so it can hold a SyncBatchNorm ({@code BatchNorm} or {@code Module}).
     */
    public static Module convertSyncBatchnorm(Module module, Object processGroup) {
        Module output = module;
        if (module instanceof BatchNorm bn) {
            if (Parametrize.isParametrized(bn)) {
                throw new IllegalArgumentException("convert_sync_batchnorm: " + bn + " has parametrized tensors; remove them (Parametrize.removeParametrizations) before converting");
            }
            SyncBatchNorm sync = new SyncBatchNorm(bn.numFeatures, bn.eps, bn.momentumOrNone(), bn.affine, bn.trackRunningStats, processGroup);
            if (bn.affine) {
                sync.weight = bn.weight;
                sync.bias = bn.bias;
            }
            sync.runningMean = bn.runningMean;
            sync.runningVar = bn.runningVar;
            sync.numBatchesTracked = bn.numBatchesTracked;
            sync.train(bn.isTraining());
            output = sync;
        }
        for (Map.Entry<String, Module> child : module.namedChildren().entrySet()) {
            Module converted = convertSyncBatchnorm(child.getValue(), processGroup);
            if (converted != child.getValue()) output.replaceChild(child.getKey(), converted);
        }
        return output;
    }
}
