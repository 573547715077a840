package dev.ember.dynamo;

import dev.ember.fx.GraphModule;
import dev.ember.tensor.FakeTensor;

import java.util.List;

/**
 * Compiles a captured FX graph into something runnable. {@code eager} runs the graph op by op;
 * {@code aot_eager} and {@code inductor} will register in {@link Backends}; users may pass their
 * own (see {@link CompileCounter}).
 */
@FunctionalInterface
public interface Backend {
    /** {@code exampleInputs} are fake tensors with the metadata of the graph's inputs, in placeholder order. */
    CompiledGraph compile(GraphModule gm, List<FakeTensor> exampleInputs);
}
