package dev.ember.fx;

import dev.ember.ops.OpOverload;
import dev.ember.ops.OpRegistry;
import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.TensorMeta;

/** Shorthands shared by the fx tests. */
final class Fx {
    private Fx() {}

    static OpOverload op(String name) { return OpRegistry.get(name); }

    static FakeTensor fake(DType dtype, int... shape) { return new FakeTensor(TensorMeta.contiguous(dtype, shape)); }

    static FakeTensor f32(int... shape) { return fake(DType.FLOAT32, shape); }
}
