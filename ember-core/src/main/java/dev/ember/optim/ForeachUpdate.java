package dev.ember.optim;

import dev.ember.tensor.Tensor;

import java.io.Serializable;
import java.util.List;

/**
 * One step's updates of a group's parameters as one function of lists, the form every optimizer
 * steps through and hands to the compiler ({@code Ember.compile(optimizer)}): the parameters, their
 * gradients, the per-element state tensors parameter by parameter ({@code k} of them for each, in an
 * order the optimizer fixes, so parameter {@code i}'s {@code j}-th is {@code states.get(i * k + j)}),
 * and the step's numbers (the group's first, then each parameter's), each a graph input of the
 * compiled function. Serializable, as every function {@code Ember.compile} captures.
 */
@FunctionalInterface
public interface ForeachUpdate extends Serializable {
    List<Tensor> apply(List<Tensor> params, List<Tensor> grads, List<Tensor> states, double[] numbers);
}
