package dev.ember.debug.fuzz;

import dev.ember.tensor.DType;

import java.util.List;
import java.util.stream.Collectors;

/** What the generator knows of a tensor variable: its dtype and shape, printed as {@code f32[3, 4]}. */
public record TensorType(DType dtype, List<Integer> shape) {
    public TensorType {
        shape = List.copyOf(shape);
    }

    public static TensorType of(DType dtype, int... shape) {
        return new TensorType(dtype, java.util.Arrays.stream(shape).boxed().toList());
    }

    public int rank() { return shape.size(); }

    public int size(int d) { return shape.get(d); }

    public int numel() { return shape.stream().reduce(1, (a, b) -> a * b); }

    public boolean isFloat() { return dtype.isFloatingPoint(); }

    public TensorType withShape(List<Integer> s) { return new TensorType(dtype, s); }

    public TensorType withDtype(DType d) { return new TensorType(d, shape); }

    /** The shape as Java arguments: {@code 3, 4}. */
    public String shapeArgs() { return shape.stream().map(String::valueOf).collect(Collectors.joining(", ")); }

    @Override
    public String toString() { return dtype.shortName() + shape; }
}
