package dev.ember.dynamo;

import dev.ember.fx.Backends;
import dev.ember.fx.Backend;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.tensor.FakeTensor;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A backend that counts what reaches it (frames compiled, ops in their graphs) and then runs the
 * graph eagerly, like PyTorch's {@code torch._dynamo.testing.CompileCounter}.
 */
public final class CompileCounter implements Backend {
    private final AtomicInteger frames = new AtomicInteger();
    private final AtomicInteger ops = new AtomicInteger();

    @Override
    public CompiledGraph compile(GraphModule gm, List<FakeTensor> exampleInputs) {
        frames.incrementAndGet();
        ops.addAndGet(OutputGraph.opCount(gm.graph()));
        return Backends.EAGER.compile(gm, exampleInputs);
    }

    /** Graphs compiled so far. */
    public int frameCount() { return frames.get(); }

    /** call_function and call_module nodes in those graphs. */
    public int opCount() { return ops.get(); }

    public void clear() {
        frames.set(0);
        ops.set(0);
    }

    @Override
    public String toString() { return "CompileCounter(frames=" + frameCount() + ", ops=" + opCount() + ")"; }
}
