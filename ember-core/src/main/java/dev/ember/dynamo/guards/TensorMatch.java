package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;
import dev.ember.tensor.DType;
import dev.ember.tensor.Device;
import dev.ember.tensor.Tensor;

/**
 * The value is a tensor with exactly this dtype, device, sizes, strides and requiresGrad; a size
 * or stride of -1 is symbolic (checked by the {@link SymbolicShapeGuard} of the same entry).
 */
public record TensorMatch(Source source, DType dtype, Device device, int[] sizes, int[] strides, boolean requiresGrad) implements Guard {

    public static TensorMatch of(Source source, Tensor t) {
        return new TensorMatch(source, t.dtype(), t.device(), t.shape(), t.strides(), t.requiresGrad());
    }

    /** The match for an input whose dynamic dimensions' sizes and strides are {@code symbolic}'s non-constant ones. */
    public static TensorMatch of(Source source, Tensor t, dev.ember.tensor.SymShape symbolic) {
        int[] sizes = t.shape(), strides = t.strides();
        for (int d = 0; d < sizes.length; d++) {
            if (!symbolic.sizes()[d].isConstant()) sizes[d] = -1;
            if (!symbolic.strides()[d].isConstant()) strides[d] = -1;
        }
        return new TensorMatch(source, t.dtype(), t.device(), sizes, strides, t.requiresGrad());
    }

    @Override
    public String kind() { return "TENSOR_MATCH"; }

    @Override
    public boolean test(Object value) {
        if (!(value instanceof Tensor t) || t.dtype() != dtype || t.device() != device || t.requiresGrad() != requiresGrad) return false;
        if (t.dim() != sizes.length) return false;
        for (int i = 0; i < sizes.length; i++) {
            if (sizes[i] >= 0 && t.size(i) != sizes[i] || strides[i] >= 0 && t.stride(i) != strides[i]) return false;
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
            if (sizes[i] >= 0 && t.size(i) != sizes[i]) return name + " size mismatch at index " + i + ". expected " + sizes[i] + ", actual " + t.size(i);
        }
        for (int i = 0; i < sizes.length; i++) {
            if (strides[i] >= 0 && t.stride(i) != strides[i]) return name + " stride mismatch at index " + i + ". expected " + strides[i] + ", actual " + t.stride(i);
        }
        return null;
    }

    @Override
    public String describe() {
        return "TENSOR_MATCH: " + source.name() + " " + dtype.shortName() + symbolic(sizes) + " stride=" + symbolic(strides)
                + " " + device + " requires_grad=" + requiresGrad;
    }

    /** {@code [?, 512]}: sizes with the symbolic ones (checked elsewhere) as {@code ?}. */
    private static String symbolic(int[] values) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < values.length; i++) sb.append(i == 0 ? "" : ", ").append(values[i] < 0 ? "?" : String.valueOf(values[i]));
        return sb.append("]").toString();
    }

    static String describeValue(Object v) {
        return v == null ? "null" : v instanceof Tensor t ? t.describe() : v.getClass().getSimpleName() + " " + v;
    }
}
