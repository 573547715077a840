package dev.ember.ops.eager;

import dev.ember.kernels.PoolAdaptiveAvg2d;
import dev.ember.kernels.PoolAvg2d;
import dev.ember.kernels.PoolGeometry;
import dev.ember.kernels.PoolMax2d;
import dev.ember.tensor.Tensor;

/**
 * 2-d pooling on tensors: unpacks storage, offset and strides and runs the loops of
 * {@link PoolMax2d}, {@link PoolAvg2d} and {@link PoolAdaptiveAvg2d}. An input is {@code [N, C, H, W]}
 * with any strides, an output a fresh contiguous {@code [N, C, outH, outW]}; gradients are
 * contiguous {@code [planes, pixels]}, the input's gradient zeroed.
 */
public final class Pool2d {
    private Pool2d() {}

    public static void maxForward(Tensor input4d, Tensor out4d, PoolGeometry g) {
        PoolMax2d.forward(input4d.storage().data(), input4d.storageOffset(), input4d.strides(), input4d.size(0), input4d.size(1),
                out4d.storage().data(), g);
    }

    /** {@link #maxForward}, also writing each maximum's flat position in its input plane into {@code indices} (int64, the output's shape). */
    public static void maxForwardWithIndices(Tensor input4d, Tensor out4d, Tensor indices, PoolGeometry g) {
        PoolMax2d.forwardWithIndices(input4d.storage().data(), input4d.storageOffset(), input4d.strides(), input4d.size(0), input4d.size(1),
                out4d.storage().data(), indices.storage().longs(), g);
    }

    public static void maxBackward(Tensor gradOut, Tensor indices, Tensor gradIn, int planes, int inPixels, int outPixels) {
        PoolMax2d.backward(gradOut.storage().data(), gradOut.storageOffset(), indices.storage().longs(), indices.storageOffset(),
                gradIn.storage().data(), gradIn.storageOffset(), planes, inPixels, outPixels);
    }

    /** {@code divisorOverride} null: none. */
    public static void avgForward(Tensor input4d, Tensor out4d, PoolGeometry g, boolean countIncludePad, Integer divisorOverride) {
        PoolAvg2d.forward(input4d.storage().data(), input4d.storageOffset(), input4d.strides(), input4d.size(0), input4d.size(1),
                out4d.storage().data(), g, countIncludePad, divisorOverride);
    }

    public static void avgBackward(Tensor gradOut, Tensor gradIn, int planes, PoolGeometry g, boolean countIncludePad, Integer divisorOverride) {
        PoolAvg2d.backward(gradOut.storage().data(), gradOut.storageOffset(), gradIn.storage().data(), gradIn.storageOffset(),
                planes, g, countIncludePad, divisorOverride);
    }

    public static void adaptiveAvgForward(Tensor input4d, Tensor out4d, PoolGeometry g) {
        PoolAdaptiveAvg2d.forward(input4d.storage().data(), input4d.storageOffset(), input4d.strides(), input4d.size(0), input4d.size(1),
                out4d.storage().data(), g);
    }

    public static void adaptiveAvgBackward(Tensor gradOut, Tensor gradIn, int planes, PoolGeometry g) {
        PoolAdaptiveAvg2d.backward(gradOut.storage().data(), gradOut.storageOffset(), gradIn.storage().data(), gradIn.storageOffset(), planes, g);
    }
}
