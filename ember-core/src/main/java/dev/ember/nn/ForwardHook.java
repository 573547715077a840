package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.io.Serializable;

/**
 * Runs after a module's {@code forward} when the module is called through {@link Module#call}, as
 * PyTorch's {@code register_forward_hook}: it sees the module, its input and its output, and
 * returns a new output or null to keep it. Serializable, so a compiled caller traces the hook's
 * body into its graph.
 */
@FunctionalInterface
public interface ForwardHook extends Serializable {
    Tensor apply(Module module, Tensor input, Tensor output);
}
