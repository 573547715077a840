package dev.ember.tensor;

/** Process-wide tensor defaults (PyTorch's {@code torch.get_default_dtype}); compiled code guards on them. */
public final class Defaults {
    private static volatile DType dtype = DType.FLOAT32;

    private Defaults() {}

    /** The dtype of floating tensors made without an explicit dtype, and of Java {@code double} scalars in promotion. */
    public static DType dtype() { return dtype; }

    public static void setDtype(DType d) {
        if (!d.isFloatingPoint()) throw new IllegalArgumentException("default dtype must be floating point, got " + d);
        dtype = d;
    }
}
