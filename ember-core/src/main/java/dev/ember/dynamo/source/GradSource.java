package dev.ember.dynamo.source;

import dev.ember.tensor.Tensor;

/**
 * The accumulated gradient of the input tensor at {@code tensor}: {@code L['params'][0].grad}, as
 * Dynamo's {@code AttrSource(base, "grad")}. Read fresh on every call (guards check it: null, or a
 * tensor of the traced dtype and shape), so the graph takes it as an input like the tensor itself.
 */
public record GradSource(Source tensor) implements Source {
    @Override
    public String name() { return tensor.name() + ".grad"; }

    @Override
    public Object read(Object[] frame) { return tensor.read(frame) instanceof Tensor t ? t.grad() : null; }
}
