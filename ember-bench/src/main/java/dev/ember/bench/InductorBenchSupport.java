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
        float[] got = ((Tensor) g.run((Object[]) inputs)).toFloatArray();
        float[] want = ((Tensor) gm.run((Object[]) inputs)).toFloatArray();
        for (int i = 0; i < want.length; i++) {
            if (!(Math.abs(got[i] - want[i]) <= tol * (1 + Math.abs(want[i])))) {
                throw new IllegalStateException("compiled result differs from eager at " + i + ": " + got[i] + " vs " + want[i]);
            }
        }
        return g;
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
