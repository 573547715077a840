package dev.ember.dynamo;

import dev.ember.fx.GraphFunction;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.List;
import java.util.Map;

/**
 * {@code _local_scalar_dense(t)}: the one element of {@code t} as a 0-d tensor of its dtype — the
 * in-graph form of {@code Tensor.item()} when scalar outputs are captured.
 */
public final class LocalScalarDense implements GraphFunction {
    public static final LocalScalarDense INSTANCE = new LocalScalarDense();

    private LocalScalarDense() {}

    @Override
    public String name() { return "_local_scalar_dense"; }

    @Override
    public String qualifiedName() { return "aten._local_scalar_dense"; }

    @Override
    public Object apply(List<Object> args, Map<String, Object> kwargs) {
        if (args.size() != 1 || !(args.getFirst() instanceof Tensor t)) {
            throw new IllegalArgumentException("_local_scalar_dense takes one tensor, got " + args);
        }
        if (t.numel() != 1) {
            throw new IllegalArgumentException("_local_scalar_dense: a Tensor with " + t.numel() + " elements cannot be converted to a scalar");
        }
        if (t.isFake()) return new FakeTensor(TensorMeta.contiguous(t.dtype()));
        return t.reshape().clone();
    }

    @Override
    public String toString() { return qualifiedName(); }

    @Override
    public String javaSource() { return "dev.ember.dynamo.LocalScalarDense.INSTANCE"; }
}
