package dev.ember.tensor;

/**
 * A tensor with metadata and no data: what tracing runs ops on. Every op called on a fake tensor
 * runs only its meta function and returns fake tensors; reading data from one is an error.
 */
public final class FakeTensor extends Tensor {

    public FakeTensor(TensorMeta meta) {
        super(null, meta.dtype(), meta.shape().clone(), meta.strides().clone(), meta.storageOffset());
    }

    /** A fake with the same metadata as {@code real}. */
    public static FakeTensor like(Tensor real) { return new FakeTensor(real.meta()); }

    @Override
    public boolean isFake() { return true; }

    @Override
    public String toString() { return "FakeTensor(" + meta() + ")"; }
}
