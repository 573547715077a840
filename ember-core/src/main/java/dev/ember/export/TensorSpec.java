package dev.ember.export;

import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.SymInt;
import dev.ember.tensor.SymShape;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.List;

/**
 * The dtype and sizes an exported program was traced with, for one of its inputs or outputs:
 * printed {@code f32[4, 8]}, or {@code f32[s0, 8]} when a dimension is dynamic. {@code shape} holds
 * the sizes of the example the program was traced with; {@code dims}, null for a static spec, the
 * size of each dimension as a polynomial of the program's symbols (bounded by
 * {@link ExportedProgram#rangeConstraints()}).
 */
public record TensorSpec(DType dtype, List<Integer> shape, List<SymInt> dims) {
    public TensorSpec {
        shape = List.copyOf(shape);
        if (dims != null) {
            dims = List.copyOf(dims);
            if (dims.size() != shape.size()) throw new IllegalArgumentException("dims " + dims + " do not match the shape " + shape);
            if (dims.stream().allMatch(SymInt::isConstant)) dims = null;
        }
    }

    public TensorSpec(DType dtype, List<Integer> shape) { this(dtype, shape, null); }

    public static TensorSpec of(Tensor t) {
        return new TensorSpec(t.dtype(), java.util.Arrays.stream(t.shape()).boxed().toList());
    }

    /** The spec of {@code t}, a value of a symbolic graph whose metadata is {@code symbolic} (or null when static). */
    public static TensorSpec of(Tensor t, Object symbolic) {
        return symbolic instanceof SymShape s ? new TensorSpec(t.dtype(), java.util.Arrays.stream(t.shape()).boxed().toList(), List.of(s.sizes())) : of(t);
    }

    public int[] sizes() { return shape.stream().mapToInt(Integer::intValue).toArray(); }

    public boolean isSymbolic() { return dims != null; }

    /** The symbolic metadata of a contiguous tensor of these dims, or null for a static spec. */
    public SymShape symShape() {
        if (dims == null) return null;
        SymInt[] sizes = dims.toArray(SymInt[]::new), strides = new SymInt[sizes.length];
        SymInt stride = SymInt.of(1);
        for (int d = sizes.length - 1; d >= 0; d--) {
            strides[d] = stride;
            stride = stride.times(sizes[d]);
        }
        return new SymShape(sizes, strides, SymInt.of(0));
    }

    /** A contiguous fake tensor of this dtype and the example's shape: what the graph is traced at. */
    public FakeTensor fake() { return new FakeTensor(TensorMeta.contiguous(dtype, sizes())); }

    @Override
    public String toString() { return dims == null ? fake().meta().describe() : symShape().describe(dtype); }
}
