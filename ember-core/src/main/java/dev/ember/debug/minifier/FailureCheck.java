package dev.ember.debug.minifier;

import dev.ember.debug.Accuracy;
import dev.ember.fx.Backend;
import dev.ember.fx.CompileMode;
import dev.ember.fx.CompiledGraph;
import dev.ember.fx.GraphModule;
import dev.ember.fx.ShapeProp;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;

/**
 * The failure predicate every repro level and the minifier share: compile {@code gm} with the
 * backend (a throw is a {@link Outcome.CompileError}), run it (a throw is a
 * {@link Outcome.RuntimeError}), and compare its outputs with eager's against a float64 reference
 * ({@link Accuracy#compare} with the given tolerance; a failure is {@link Outcome.Inaccurate}).
 * Each run gets its own exact copy of the inputs, layout included, since a graph may write its
 * inputs in place. Besides exceptions, a backend's {@code AssertionError} (a failed internal check),
 * {@code StackOverflowError} and {@code LinkageError} (generated code that does not verify) count
 * as its failures; other errors (out of memory) are not the graph's and propagate.
 */
public final class FailureCheck {
    private FailureCheck() {}

    public static Outcome check(GraphModule gm, List<Object> inputs, Backend backend, CompileMode mode, double tolerance) {
        try {
            gm.run(copies(inputs));
            // Types for the backend and for printing; a graph eager runs but shape propagation cannot is not the backend's failure.
            ShapeProp.propagate(gm, copies(inputs));
        } catch (RuntimeException e) {
            return new Outcome.Invalid("eager fails too: " + e);
        }
        CompiledGraph compiled;
        try {
            compiled = backend.compile(gm, fakes(inputs), mode);
        } catch (RuntimeException | AssertionError | StackOverflowError | LinkageError e) {
            return new Outcome.CompileError(e.getClass().getName(), String.valueOf(e.getMessage()));
        }
        return checkCompiled(gm, compiled, inputs, tolerance);
    }

    /** {@link #check} for a graph already compiled: runs {@code compiled} and eager on copies of {@code inputs} and compares. */
    public static Outcome checkCompiled(GraphModule gm, CompiledGraph compiled, List<Object> inputs, double tolerance) {
        Object eager;
        try {
            eager = gm.run(copies(inputs));
        } catch (RuntimeException e) {
            return new Outcome.Invalid("eager fails too: " + e);
        }
        Object[] actual;
        try {
            actual = compiled.run(copies(inputs));
        } catch (RuntimeException | AssertionError | StackOverflowError | LinkageError e) {
            return new Outcome.RuntimeError(e.getClass().getName(), String.valueOf(e.getMessage()));
        }
        Accuracy.Verdict v = Accuracy.compare(eager, actual, float64(gm, inputs), tolerance);
        return v.passed() ? new Outcome.Passed(v.toString()) : new Outcome.Inaccurate(v.toString());
    }

    /** The graph run eagerly in float64, or null when it cannot be (an op without a float64 kernel). */
    static Object float64(GraphModule gm, List<Object> inputs) {
        try {
            return Accuracy.float64Reference(copies(inputs), gm::run);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Fake tensors with each input's metadata, in placeholder order (null for a non-tensor input). */
    static List<FakeTensor> fakes(List<Object> inputs) {
        List<FakeTensor> out = new ArrayList<>();
        for (Object x : inputs) out.add(x instanceof Tensor t ? FakeTensor.like(t) : null);
        return out;
    }

    /** Exact copies: each tensor's whole storage copied, viewed with the same shape, strides and offset. */
    public static Object[] copies(List<Object> inputs) {
        Object[] out = new Object[inputs.size()];
        for (int i = 0; i < out.length; i++) out[i] = copy(inputs.get(i));
        return out;
    }

    static Object copy(Object v) {
        return switch (v) {
            case Tensor t when t.storage() != null -> {
                Storage s = t.storage();
                Object data = s.data();
                Object clone = switch (data) {
                    case float[] a -> a.clone();
                    case double[] a -> a.clone();
                    case int[] a -> a.clone();
                    case long[] a -> a.clone();
                    case byte[] a -> a.clone();
                    default -> throw new IllegalStateException("storage of " + data.getClass());
                };
                yield Tensor.wrap(new Storage(t.dtype(), clone), t.shape(), t.strides(), t.storageOffset());
            }
            case List<?> l -> l.stream().map(FailureCheck::copy).toList();
            case null, default -> v;
        };
    }
}
