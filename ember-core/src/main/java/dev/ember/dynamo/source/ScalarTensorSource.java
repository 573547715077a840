package dev.ember.dynamo.source;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

/**
 * A Java number read from {@code base} and handed to the graph as a 0-d tensor of {@code dtype}
 * (float64 for a double, int64 for a long, int32 for an int): how an unspecialized scalar becomes
 * a graph input. Named as its base, since that is what the user passed.
 */
public record ScalarTensorSource(Source base, DType dtype) implements Source {
    @Override
    public String name() { return base.name(); }

    @Override
    public Object read(Object[] frame) {
        Number n = (Number) base.read(frame);
        return switch (dtype) {
            case FLOAT64 -> Tensor.of(new double[] {n.doubleValue()}, new int[0]);   // 0-d: of(double...) alone would make it [1]
            case INT32 -> Tensor.of(new int[] {n.intValue()});
            default -> Tensor.scalar(n.longValue());
        };
    }

    @Override
    public String shortName() { return base.shortName(); }
}
