package dev.ember.nn;

import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorScope;

/**
 * A tensor that is a learnable weight of a {@link Module}: a {@code Parameter} field of a module
 * is what {@link Module#parameters()} returns and what its state dict saves. Like PyTorch's
 * {@code nn.Parameter(t)}, it shares {@code t}'s storage and requires grad unless told otherwise.
 */
public final class Parameter extends Tensor {

    public Parameter(Tensor data) { this(data, true); }

    public Parameter(Tensor data, boolean requiresGrad) {
        super(checkReal(data).storage(), data.dtype(), data.shape(), data.strides(), data.storageOffset());
        requiresGrad(requiresGrad);
        TensorScope.escape(this);   // a module's weights outlive any scope its construction ran in
    }

    private static Tensor checkReal(Tensor data) {
        if (data.isFake()) throw new IllegalArgumentException("a Parameter needs a tensor with data, got " + data);
        return data;
    }

    /** PyTorch's format: {@code Parameter containing:} then the tensor. */
    @Override
    public String toString() { return "Parameter containing:\n" + super.toString(); }
}
