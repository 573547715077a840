package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;
import dev.ember.fx.Node;
import dev.ember.tensor.FakeTensor;

/** A tensor: a node of the graph being built and its fake value (shape, dtype, strides). */
public record TensorVariable(Node node, FakeTensor fake, Source source) implements VariableTracker {
    @Override
    public String describe() { return "Tensor " + fake.meta().describe(); }
}
