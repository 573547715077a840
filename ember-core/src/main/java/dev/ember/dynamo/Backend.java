package dev.ember.dynamo;

import dev.ember.tensor.FakeTensor;

import java.util.List;

/**
 * Compiles a captured graph into something runnable. {@code eager} runs the graph op by op;
 * {@code aot_eager} and {@code inductor} will register here; users may pass their own (see
 * {@link CompileCounter}).
 */
@FunctionalInterface
public interface Backend {
    CompiledGraph compile(OutputGraph graph, List<FakeTensor> exampleInputs);
}
