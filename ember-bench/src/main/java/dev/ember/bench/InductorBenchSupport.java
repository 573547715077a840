package dev.ember.bench;

import ai.djl.ndarray.NDArray;
import dev.ember.fx.CompileMode;
import dev.ember.fx.GraphModule;
import dev.ember.inductor.Inductor;
import dev.ember.inductor.InductorGraph;
import dev.ember.tensor.Tensor;

import java.util.List;
import java.util.function.UnaryOperator;

/** Shared by the inductor benchmarks: compile a graph, check it against eager once, chain libtorch ops freeing temporaries. */
final class InductorBenchSupport {
    private InductorBenchSupport() {}

    /** Compiles {@code gm} and fails loudly unless it matches eager on {@code inputs}: a fast wrong answer is no result. */
    static InductorGraph compileChecked(GraphModule gm, double tol, Tensor... inputs) {
        return compileChecked(gm, CompileMode.DEFAULT, tol, inputs);
    }

    static InductorGraph compileChecked(GraphModule gm, CompileMode mode, double tol, Tensor... inputs) {
        InductorGraph g = Inductor.compile(gm, List.of(inputs), mode);
        List<Tensor> got = outputs(g.run((Object[]) inputs)), want = outputs(gm.run((Object[]) inputs));
        for (int k = 0; k < want.size(); k++) checkClose("compiled output " + k, got.get(k), want.get(k), tol);
        return g;
    }

    /** Fails loudly unless {@code got} matches {@code want} within {@code tol} (relative, plus as much absolute). */
    static void checkClose(String what, Tensor got, Tensor want, double tol) {
        float[] a = got.toFloatArray(), b = want.toFloatArray();
        if (a.length != b.length) throw new IllegalStateException(what + " has " + a.length + " elements, eager " + b.length);
        for (int i = 0; i < b.length; i++) {
            if (!(Math.abs(a[i] - b[i]) <= tol * (1 + Math.abs(b[i])))) {
                throw new IllegalStateException(what + " differs from eager at " + i + ": " + a[i] + " vs " + b[i]);
            }
        }
    }

    /** A graph's result as a list of tensors: one tensor, or the list a graph returning several gives. */
    private static List<Tensor> outputs(Object result) {
        return result instanceof List<?> l ? l.stream().map(Tensor.class::cast).toList() : List.of((Tensor) result);
    }

    /** Applies {@code steps} in turn, closing each intermediate (as Python's refcount frees it). */
    @SafeVarargs
    static NDArray chain(NDArray x, UnaryOperator<NDArray>... steps) {
        NDArray cur = x;
        for (UnaryOperator<NDArray> s : steps) {
            NDArray next = s.apply(cur);
            if (cur != x) cur.close();
            cur = next;
        }
        return cur;
    }

    static NDArray closed(NDArray r) {
        r.close();
        return r;
    }
}
