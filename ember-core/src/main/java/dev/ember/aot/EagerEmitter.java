package dev.ember.aot;

import dev.ember.ops.OpRegistry;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

/** Runs a decomposition on real (or fake) tensors: every call goes straight to the op. */
final class EagerEmitter implements OpEmitter {
    static final EagerEmitter INSTANCE = new EagerEmitter();

    @Override
    public Object call(String name, Object... args) { return OpRegistry.get(name).call(args); }

    @Override
    public TensorMeta meta(Object tensor) { return ((Tensor) tensor).meta(); }
}
