package dev.ember.fx;

import dev.ember.tensor.FakeTensor;

import java.util.List;

/**
 * Compiles a captured FX graph into something runnable. {@code eager} runs the graph op by op;
 * {@code aot_eager} and {@code inductor} come from the inductor stage through {@link Backends};
 * users may pass their own (for example {@code dev.ember.dynamo.CompileCounter}).
 */
@FunctionalInterface
public interface Backend {
    /** {@code exampleInputs} are fake tensors with the metadata of the graph's inputs, in placeholder order. */
    CompiledGraph compile(GraphModule gm, List<FakeTensor> exampleInputs);

    /**
     * Whether it compiles graphs generic in input sizes ({@link GraphModule#sizeSymbols()}); one that
     * does not gets every size static, traced once per size.
     */
    default boolean compilesSymbolicSizes() { return true; }

    /**
     * Compiles in {@code mode}, the user's {@code Options.mode}. Only backends with modes (inductor)
     * override this; the others take {@link CompileMode#DEFAULT} and refuse any other mode rather
     * than ignore it.
     */
    default CompiledGraph compile(GraphModule gm, List<FakeTensor> exampleInputs, CompileMode mode) {
        if (mode != CompileMode.DEFAULT) {
            throw new IllegalArgumentException("mode '" + mode + "' is inductor's; this backend (" + getClass().getName()
                    + ") compiles in mode \"default\" only");
        }
        return compile(gm, exampleInputs);
    }
}
