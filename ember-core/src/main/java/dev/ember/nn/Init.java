package dev.ember.nn;

import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;

/**
 * PyTorch's default initialisations, drawn from the global generator. They fill fresh tensors
 * directly (construction, not computation: nothing here is ever traced).
 */
final class Init {
    private Init() {}

    /** Uniform on [-bound, bound): PyTorch's kaiming_uniform_(a=sqrt(5)) gives bound 1/sqrt(fan_in). */
    static Tensor uniform(double bound, int... shape) {
        Tensor t = Tensor.rand(shape);
        Storage s = t.storage();
        for (int i = 0; i < t.numel(); i++) s.writeDouble(i, (2 * s.readDouble(i) - 1) * bound);
        return t;
    }

    /** Linear and conv weights and biases: uniform with bound 1/sqrt(fan_in) (0 when fan_in is 0). */
    static Tensor fanInUniform(int fanIn, int... shape) {
        return uniform(fanIn > 0 ? 1 / Math.sqrt(fanIn) : 0, shape);
    }

    /** xavier_uniform_ of a 2-d weight [fan_out, fan_in]: bound sqrt(6 / (fan_in + fan_out)). */
    static Tensor xavierUniform(int fanOut, int fanIn) {
        return uniform(Math.sqrt(6.0 / (fanIn + fanOut)), fanOut, fanIn);
    }

    /** Standard normal; the row {@code zeroRow} (if not negative) set to zero, as Embedding's padding_idx. */
    static Tensor normalWithZeroRow(int rows, int cols, int zeroRow) {
        Tensor t = Tensor.randn(rows, cols);
        if (zeroRow >= 0) for (int j = 0; j < cols; j++) t.storage().writeDouble(zeroRow * cols + j, 0);
        return t;
    }
}
