package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;
import dev.ember.tensor.DType;
import dev.ember.tensor.Device;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

/** The value is a tensor with exactly this dtype, device, sizes, strides and requiresGrad. */
public record TensorMatch(Source source, DType dtype, Device device, int[] sizes, int[] strides, boolean requiresGrad) implements Guard {

    public static TensorMatch of(Source source, Tensor t) {
        return new TensorMatch(source, t.dtype(), t.device(), t.shape(), t.strides(), t.requiresGrad());
    }

    @Override
    public String kind() { return "TENSOR_MATCH"; }

    @Override
    public boolean test(Object value) {
        if (!(value instanceof Tensor t) || t.dtype() != dtype || t.device() != device || t.requiresGrad() != requiresGrad) return false;
        if (t.dim() != sizes.length) return false;
        for (int i = 0; i < sizes.length; i++) {
            if (t.size(i) != sizes[i] || t.stride(i) != strides[i]) return false;
        }
        return true;
    }

    @Override
    public String explainFailure(Object value) {
        String name = "tensor '" + source.shortName() + "'";
        if (!(value instanceof Tensor t)) return name + " is not a Tensor: got " + describeValue(value);
        if (t.dtype() != dtype) return name + " dtype mismatch. expected " + dtype + ", actual " + t.dtype();
        if (t.device() != device) return name + " device mismatch. expected " + device + ", actual " + t.device();
        if (t.requiresGrad() != requiresGrad) return name + " requires_grad mismatch. expected " + requiresGrad + ", actual " + t.requiresGrad();
        if (t.dim() != sizes.length) return name + " rank mismatch. expected " + sizes.length + ", actual " + t.dim();
        for (int i = 0; i < sizes.length; i++) {
            if (t.size(i) != sizes[i]) return name + " size mismatch at index " + i + ". expected " + sizes[i] + ", actual " + t.size(i);
        }
        for (int i = 0; i < sizes.length; i++) {
            if (t.stride(i) != strides[i]) return name + " stride mismatch at index " + i + ". expected " + strides[i] + ", actual " + t.stride(i);
        }
        return null;
    }

    @Override
    public String describe() {
        return "TENSOR_MATCH: " + source.name() + " " + dtype.shortName() + Shapes.format(sizes) + " stride=" + Shapes.format(strides)
                + " " + device + " requires_grad=" + requiresGrad;
    }

    static String describeValue(Object v) {
        return v == null ? "null" : v instanceof Tensor t ? t.describe() : v.getClass().getSimpleName() + " " + v;
    }
}
