package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.io.Serializable;

/**
 * Runs before a module's {@code forward} when the module is called through {@link Module#call}, as
 * PyTorch's {@code register_forward_pre_hook}: it sees the module and its input, and returns a new
 * input or null to keep it. Serializable, so a compiled caller traces the hook's body into its graph.
 */
@FunctionalInterface
public interface ForwardPreHook extends Serializable {
    Tensor apply(Module module, Tensor input);
}
