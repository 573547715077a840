package dev.ember.inductor;

import dev.ember.tensor.Tensor;

import java.util.List;

/**
 * {@code max-autotune}: times two compiled variants of one graph on random inputs of the example
 * layouts. The timing draws nothing from the user's generator (its inputs and any random op in the
 * graph take a scratch one), and a variant that cannot run on such inputs (an op that checks its
 * inputs' values, as {@code lu_unpack} checks its pivots) is not chosen: the default code stays.
 */
final class Autotune {
    private Autotune() {}

    /** Whether {@code a} runs faster than {@code b} (best of several timed runs after warm-up). */
    static boolean faster(InductorGraph a, InductorGraph b, List<? extends Tensor> examples) {
        return dev.ember.tensor.Generator.drawingFromScratch(() -> {
            Object[] inputs = examples.stream().map(Autotune::randomLike).toArray();
            try {
                return best(a, inputs) < best(b, inputs);
            } catch (RuntimeException | AssertionError e) {   // AssertionError: a traced assert failing on made-up values
                InductorLog.log("inductor", () -> "max-autotune cannot time this graph on random inputs (" + e.getMessage() + "): the default code is used");
                return false;
            }
        });
    }

    private static long best(InductorGraph g, Object[] inputs) {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 12; i++) {
            long t0 = System.nanoTime();
            g.run(inputs);
            long t = System.nanoTime() - t0;
            if (i >= 4) best = Math.min(best, t);
        }
        return best;
    }

    private static Tensor randomLike(Tensor t) {
        Tensor r = Tensor.allocate(t.meta());
        if (r.dtype().isFloatingPoint()) {
            Tensor src = Tensor.randn(t.shape()).to(t.dtype());
            dev.ember.ops.eager.Copy.copy(src, r);
        }
        return r;
    }
}
