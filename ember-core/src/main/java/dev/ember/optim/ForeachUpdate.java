package dev.ember.optim;

import dev.ember.tensor.Tensor;

import java.io.Serializable;
import java.util.List;

/**
 * One step's updates of a group's parameters as one function of lists, the form an optimizer hands
 * to the compiler ({@code Ember.compile(optimizer)}): parameters, their gradients, two state lists
 * (Adam's moments) and the step's numbers, each a graph input of the compiled function.
 * Serializable, as every function {@code Ember.compile} captures.
 */
@FunctionalInterface
public interface ForeachUpdate extends Serializable {
    List<Tensor> apply(List<Tensor> params, List<Tensor> grads, List<Tensor> state1, List<Tensor> state2, double[] numbers);
}
