package dev.ember.export;

import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.List;

/**
 * The dtype and sizes an exported program was traced with, for one of its inputs or outputs:
 * printed {@code f32[4, 8]}. Every size is static today; when symbolic sizes land, a dimension
 * will name its symbol here and {@link ExportedProgram#rangeConstraints()} will bound it.
 */
public record TensorSpec(DType dtype, List<Integer> shape) {
    public TensorSpec {
        shape = List.copyOf(shape);
    }

    public static TensorSpec of(Tensor t) {
        return new TensorSpec(t.dtype(), java.util.Arrays.stream(t.shape()).boxed().toList());
    }

    public int[] sizes() { return shape.stream().mapToInt(Integer::intValue).toArray(); }

    /** A contiguous fake tensor of this dtype and shape: what the graph is compiled for. */
    public FakeTensor fake() { return new FakeTensor(TensorMeta.contiguous(dtype, sizes())); }

    @Override
    public String toString() { return fake().meta().describe(); }
}
