package dev.ember.debug.fuzz;

import dev.ember.autograd.GradMode;
import dev.ember.ops.Args;
import dev.ember.ops.DispatchMode;
import dev.ember.ops.OpOverload;
import dev.ember.ops.ReductionOps;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * An index a program returns from {@code argmax} or {@code argmin} is judged by what it indexes.
 * Where the operand holds equal values in exact arithmetic, rounding alone decides which one is
 * largest, and eager and compiled code, summing in other orders, may pick different ones: fuzzer
 * seed 311725 returned the argmax over rows that a layer norm of a rank-one product makes equal;
 * eager picked row 13 and compiled row 11, both right. Every index output must still match
 * exactly, except where the value eager's operand holds at the compiled index is within the
 * judge's tolerance of the value at eager's index: the same closeness a float output may have.
 *
 * <p>The eager run records each argmax and argmin it calls ({@link #recorder}), with a copy of the
 * operand; only an index returned as it came from the op is judged this way (one computed further,
 * or used to index, must match exactly).
 */
final class IndexTies {
    private IndexTies() {}

    /** One argmax or argmin call: a copy of its operand and its {@code dim} (null for the flattened operand). */
    record Choice(Tensor operand, Integer dim) {}

    /** Records, on this thread while installed, every argmax and argmin call with its result. */
    static final class Recorder implements DispatchMode.Handler {
        private final Map<Tensor, Choice> byResult = new IdentityHashMap<>();

        @Override
        public Object intercept(OpOverload op, Args args, Object meta) {
            if (op != ReductionOps.ARGMAX && op != ReductionOps.ARGMIN) return null;
            Object result = op.call(args.toArray());
            if (result instanceof Tensor r && !args.tensor(0).isFake()) {
                Tensor operand;
                try (var unused = GradMode.noGrad()) {
                    operand = args.tensor(0).clone();
                }
                byResult.put(r, new Choice(operand, args.optInteger(1)));
            }
            return result;
        }

        /** Per returned value (by position among {@code leaves}): the call it came from as is, or null. */
        List<Choice> choicesOf(List<Object> leaves) {
            List<Choice> out = new ArrayList<>();
            for (Object v : leaves) out.add(v instanceof Tensor t ? byResult.get(t) : null);
            return out;
        }
    }

    static Recorder recorder() { return new Recorder(); }

    /**
     * {@code compiled} (an index tensor, as the compiled run returned it) with each element that
     * differs from {@code eager}'s by a tie in {@code choice}'s operand set to eager's, so that what
     * is left to differ is a wrong index. {@code compiled} itself when nothing was a tie.
     */
    static Tensor resolved(Choice choice, Tensor eager, Tensor compiled, double tol) {
        if (!java.util.Arrays.equals(eager.shape(), compiled.shape()) || eager.dtype() != compiled.dtype()) return compiled;
        long[] e = eager.toLongArray(), c = compiled.toLongArray();
        double[] x = choice.operand().toDoubleArray();
        int[] shape = choice.operand().shape();
        int size, inner;
        if (choice.dim() == null || shape.length == 0) {
            size = x.length;
            inner = 1;
        } else {
            int d = choice.dim() < 0 ? choice.dim() + shape.length : choice.dim();
            size = shape[d];
            inner = 1;
            for (int k = d + 1; k < shape.length; k++) inner *= shape[k];
        }
        if (size == 0 || x.length / size != e.length) return compiled;
        long[] out = null;
        for (int o = 0; o < e.length; o++) {
            if (e[o] == c[o] || c[o] < 0 || c[o] >= size || e[o] < 0 || e[o] >= size) continue;
            int base = (o / inner) * size * inner + o % inner;
            double atEager = x[base + (int) e[o] * inner], atCompiled = x[base + (int) c[o] * inner];
            boolean tie = Double.isNaN(atEager) ? Double.isNaN(atCompiled) : Math.abs(atEager - atCompiled) <= tol + tol * Math.abs(atEager);
            if (!tie) continue;
            if (out == null) out = c.clone();
            out[o] = e[o];
        }
        return out == null ? compiled : Tensor.of(out, compiled.shape());
    }
}
