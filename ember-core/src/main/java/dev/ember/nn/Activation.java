package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.io.Serializable;

/**
 * A callable activation, as PyTorch's transformer layers take one ({@code activation=torch.tanh}):
 * {@code t -> t.tanh()}. Serializable, so a compiled caller traces its body into the graph, as
 * {@link ForwardHook} is.
 */
@FunctionalInterface
public interface Activation extends Serializable {
    Tensor apply(Tensor input);
}
