package dev.ember.inductor;

import dev.ember.fx.GraphModule;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.lang.invoke.MethodHandle;
import java.util.Arrays;
import java.util.List;

/**
 * A graph compiled by the inductor: {@link #run} calls the generated code. Inputs whose layout
 * differs from the one compiled for (dtype, shape or strides; the storage offset may vary) run
 * through the interpreter instead — a perf hint, never a wrong answer. Intermediates live in a
 * per-thread arena allocated on a thread's first call (see {@link MemoryPlan}).
 */
public final class InductorGraph {
    private final GraphModule original;
    private final MethodHandle call;
    private final List<TensorMeta> inputMetas;
    private final Artifact artifact;
    private final Object[] constants;
    private final ThreadLocal<Object[]> arena;
    private final boolean fromCache;
    private volatile boolean warnedLayout;

    InductorGraph(GraphModule original, MethodHandle call, List<TensorMeta> inputMetas, Artifact artifact, Object[] constants, boolean fromCache) {
        this.original = original;
        this.call = call;
        this.inputMetas = inputMetas;
        this.artifact = artifact;
        this.constants = constants;
        this.fromCache = fromCache;
        this.arena = artifact == null ? null : ThreadLocal.withInitial(() -> artifact.slots().stream()
                .map(s -> s.dtype().allocate(s.size())).toArray());
    }

    /** Runs the graph on one value per placeholder; returns what the graph's output returns. */
    public Object run(Object... inputs) {
        if (call == null) return original.run(inputs);
        int n = original.graph().placeholders().size();
        if (inputs.length != n) throw new IllegalArgumentException("the graph takes " + n + " input(s), but " + inputs.length + " were given");
        List<String> attrs = artifact.attributePaths();
        Tensor[] all = new Tensor[n + attrs.size()];
        for (int i = 0; i < n; i++) {
            if (!(inputs[i] instanceof Tensor t) || !matches(t, inputMetas.get(i))) return mismatch(i, inputs);
            all[i] = t;
        }
        for (int i = 0; i < attrs.size(); i++) {
            Tensor t = original.attribute(attrs.get(i));
            if (!matches(t, inputMetas.get(n + i))) return mismatch(n + i, inputs);
            all[n + i] = t;
        }
        try {
            return (Object) call.invokeExact(all, arena.get(), constants);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private Object mismatch(int i, Object[] inputs) {
        if (!warnedLayout) {
            warnedLayout = true;
            InductorLog.log("perf_hints", () -> "input " + i + " does not have the layout the graph was compiled for "
                    + inputMetas.get(i) + "; running the graph in the interpreter");
        }
        return original.run(inputs);
    }

    private static boolean matches(Tensor t, TensorMeta m) {
        return !t.isFake() && t.dtype() == m.dtype() && Arrays.equals(t.shape(), m.shape()) && Arrays.equals(t.strides(), m.strides());
    }

    /**
     * This graph running {@code classBytes} in place of the generated class (for tests: the class
     * javac makes of {@link #sourceCode()}, which must compute exactly the same).
     */
    InductorGraph withClassBytes(byte[] classBytes) {
        Artifact a = new Artifact(artifact.className(), artifact.source(), classBytes, artifact.slots(), artifact.attributePaths(), artifact.perfHints());
        return Inductor.load(original, a, inputMetas, constants, fromCache);
    }

    /** The generated Java source, or null when the graph runs in the interpreter. */
    public String sourceCode() { return artifact == null ? null : artifact.source(); }

    /** Why parts of the graph run eager kernels (empty when everything has generated code). */
    public List<String> perfHints() { return artifact == null ? List.of("the whole graph runs in the interpreter") : artifact.perfHints(); }

    /** Whether the code was loaded from the on-disk cache rather than generated. */
    public boolean fromCache() { return fromCache; }
}
