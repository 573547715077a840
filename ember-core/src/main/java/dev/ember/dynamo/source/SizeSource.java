package dev.ember.dynamo.source;

import dev.ember.tensor.Tensor;

/** Size {@code dim} of the tensor at {@code tensor}: {@code L['x'].size()[0]}, printed to people as {@code x.size(0)}. */
public record SizeSource(Source tensor, int dim) implements Source {
    @Override
    public String name() { return tensor.name() + ".size()[" + dim + "]"; }

    @Override
    public String shortName() { return tensor.shortName() + ".size(" + dim + ")"; }

    @Override
    public Object read(Object[] frame) { return tensor.read(frame) instanceof Tensor t && dim < t.dim() ? t.size(dim) : null; }
}
