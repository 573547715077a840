package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;

import java.util.List;

/**
 * The frame's tensor arguments that were distinct objects while tracing are distinct on this call
 * too: a call passing one tensor for two of them recompiles, as PyTorch's {@code NO_TENSOR_ALIASING}
 * guard over a frame's tensor inputs does (the graph was traced with two inputs where the call
 * has one). Identity, not storage: views of one tensor are distinct objects, as in PyTorch.
 */
public record DistinctTensors(List<Source> sources) implements FrameGuard {
    public DistinctTensors {
        sources = List.copyOf(sources);
    }

    @Override
    public String kind() { return "NO_TENSOR_ALIASING"; }

    @Override
    public boolean check(Object[] frame) { return firstRepeat(frame) < 0; }

    /** The index of the first source whose object an earlier source already read, or -1. */
    private int firstRepeat(Object[] frame) {
        if (sources.size() > 16) {
            // many tensors (a model's parameters): one pass over an identity set, where comparing every pair would be quadratic
            java.util.Set<Object> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            for (int i = 0; i < sources.size(); i++) {
                Object v = sources.get(i).read(frame);
                if (v != null && !seen.add(v)) return i;
            }
            return -1;
        }
        for (int i = 1; i < sources.size(); i++) {
            Object v = sources.get(i).read(frame);
            for (int j = 0; j < i; j++) if (v != null && sources.get(j).read(frame) == v) return i;
        }
        return -1;
    }

    @Override
    public String explainFailure(Object frame) {
        Object[] f = (Object[]) frame;
        int i = firstRepeat(f);
        if (i < 0) return null;
        Object v = sources.get(i).read(f);
        for (int j = 0; j < i; j++) {
            if (sources.get(j).read(f) == v) return sources.get(i).name() + " is " + sources.get(j).name() + ": the graph was traced with two distinct tensors";
        }
        return null;
    }

    @Override
    public String describe() { return "NO_TENSOR_ALIASING: " + String.join(", ", sources.stream().map(Source::name).toList()) + " are distinct tensors"; }
}
