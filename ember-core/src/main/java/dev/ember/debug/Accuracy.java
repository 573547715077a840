package dev.ember.debug;

import dev.ember.tensor.DType;
import dev.ember.tensor.Defaults;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Whether a compiled result is as accurate as eager's, judged against a float64 reference so that
 * rounding is told apart from a real error (PyTorch's rule for {@code REPRO_LEVEL=4} and its
 * accuracy minifier): outputs within {@code tol} of eager pass at once; otherwise the compiled
 * output must be no further from the float64 reference than {@value #MULTIPLIER} times eager's own
 * distance to it, plus {@code tol / 10} (root mean square error over the finite elements). Shapes,
 * dtypes, integer and boolean values, and where the non-finite values are must match exactly.
 *
 * <p>Eager's distance to float64 measures float32's rounding only by luck: where a result is a
 * difference of large terms (a layer norm's gradient, whose exact value is 0) eager may happen to
 * round to the exact answer and compiled, summing in another order, not. So a caller may pass
 * further eager runs, {@code nearby}, each on the inputs moved by one unit in the last place in
 * another pattern: samples of the rounding floor of the program at these inputs. One sample is not
 * enough: at fuzzer seed 27631 (a layer norm's gradient) eager lands on the exact answer for about
 * half the ways of moving the inputs and on noise 2,500 times larger for the rest. Eager's distance
 * is then the largest of them all, and a non-finite element is accepted where a nearby run is
 * non-finite too (a singular point that one rounding reaches). A compiled op that is wrong stays far
 * beyond that floor.
 *
 * <p>Used by everything that asks "is compiled still equal to eager": the differential fuzzer, the
 * accuracy repro levels and the minifier, so that all three agree on what a failure is.
 */
public final class Accuracy {
    /** How much further from float64 than eager a compiled output may be (PyTorch's default multiplier). */
    public static final double MULTIPLIER = 2.0;
    /** {@code Options.reproTolerance}'s default, as PyTorch's {@code repro_tolerance}. */
    public static final double DEFAULT_TOLERANCE = dev.ember.Options.DEFAULT_TOLERANCE;

    private Accuracy() {}

    /**
     * The verdict of one comparison; {@code output} is the index of the first failing leaf (-1 when
     * none failed), {@code worstIndex} the flat index of its worst element, {@code maxAbsDiff} the
     * largest difference to eager over all leaves.
     */
    public record Verdict(boolean passed, int output, int worstIndex, double maxAbsDiff, double compiledRmse, double eagerRmse, String reason) {
        @Override
        public String toString() {
            if (passed) return "accuracy ok (max abs diff to eager " + format(maxAbsDiff) + ")";
            return "accuracy failed at output " + output + (worstIndex >= 0 ? ", element " + worstIndex : "") + ": " + reason;
        }
    }

    /**
     * Compares {@code compiled} with {@code eager}; {@code fp64} is the same program run eagerly on
     * float64 copies of the inputs (null when there is none: then {@code tol} alone decides).
     * Outputs are tensors, numbers, booleans, or lists/arrays of them, in the same structure.
     */
    public static Verdict compare(Object eager, Object compiled, Object fp64, double tol) {
        return compare(eager, compiled, fp64, List.of(), tol);
    }

    /**
     * As {@link #compare(Object, Object, Object, double)}, with {@code nearby} (empty for none) the
     * same program run eagerly on the inputs moved by one unit in the last place, each run in another
     * pattern: the rounding floor (see the class comment). A run whose outputs do not match eager's
     * in number is left out.
     */
    public static Verdict compare(Object eager, Object compiled, Object fp64, List<?> nearby, double tol) {
        List<Object> want = leaves(eager), got = leaves(compiled);
        List<Object> ref = fp64 == null ? null : leaves(fp64);
        List<List<Object>> near = new ArrayList<>();
        for (Object run : nearby) {
            List<Object> leaves = leaves(run);
            if (leaves.size() == want.size()) near.add(leaves);
        }
        if (want.size() != got.size()) return fail(-1, -1, 0, 0, 0, "compiled returned " + got.size() + " output(s), eager " + want.size());
        if (ref != null && ref.size() != want.size()) ref = null;
        double maxDiff = 0;
        for (int i = 0; i < want.size(); i++) {
            Object w = want.get(i), g = got.get(i);
            if (w instanceof Tensor tw && g instanceof Tensor tg) {
                List<Tensor> nearI = new ArrayList<>();
                for (List<Object> run : near) if (run.get(i) instanceof Tensor n && Arrays.equals(n.shape(), tw.shape())) nearI.add(n);
                Verdict v = compareTensor(i, tw, tg, ref == null || !(ref.get(i) instanceof Tensor r) ? null : r, nearI, tol);
                if (!v.passed) return v;
                maxDiff = Math.max(maxDiff, v.maxAbsDiff);
            } else if (w instanceof Number nw && g instanceof Number ng && !(w instanceof Long || w instanceof Integer)) {
                double a = nw.doubleValue(), b = ng.doubleValue();
                if (!(Double.isNaN(a) && Double.isNaN(b)) && !(Math.abs(a - b) <= tol * Math.max(1, Math.abs(a)))) {
                    return fail(i, -1, Math.abs(a - b), 0, 0, "compiled gave " + b + ", eager " + a);
                }
            } else if (!Objects.equals(w, g)) {
                return fail(i, -1, 0, 0, 0, "compiled gave " + describe(g) + ", eager " + describe(w));
            }
        }
        return new Verdict(true, -1, -1, maxDiff, 0, 0, null);
    }

    private static Verdict compareTensor(int i, Tensor want, Tensor got, Tensor ref, List<Tensor> nearby, double tol) {
        if (want.dtype() != got.dtype()) return fail(i, -1, 0, 0, 0, "dtype " + got.dtype() + ", eager " + want.dtype());
        if (!Arrays.equals(want.shape(), got.shape())) {
            return fail(i, -1, 0, 0, 0, "shape " + Arrays.toString(got.shape()) + ", eager " + Arrays.toString(want.shape()));
        }
        double[] w = want.toDoubleArray(), g = got.toDoubleArray();
        List<double[]> near = new ArrayList<>();
        for (Tensor n : nearby) near.add(n.toDoubleArray());
        int worst = -1;
        double maxDiff = 0;
        for (int k = 0; k < w.length; k++) {
            boolean wf = Double.isFinite(w[k]), gf = Double.isFinite(g[k]);
            if (wf != gf || !wf && !sameNonFinite(w[k], g[k])) {
                if (nearbyGives(near, k, g[k])) continue;   // a singular point: one rounding away, eager gives what compiled gave
                if (!gf && roundingNoiseOnly(near, k, w[k], epsilon(want.dtype()))) continue;   // eager's finite value there has no digit rounding did not choose
                int at = k;
                return fail(i, k, Double.POSITIVE_INFINITY, 0, 0, "element " + k + " is " + g[k] + ", eager " + w[k]
                        + (near.isEmpty() ? "" : ", eager on inputs one rounding away " + near.stream().map(n -> String.valueOf(n[at])).distinct().toList()));
            }
            if (!wf) continue;
            double d = Math.abs(w[k] - g[k]);
            if (d > maxDiff || worst < 0 && d > 0) { maxDiff = d; worst = k; }
        }
        if (!want.dtype().isFloatingPoint()) {
            double[] r = ref == null || !Arrays.equals(ref.shape(), want.shape()) ? null : ref.toDoubleArray();
            for (int k = 0; k < w.length; k++) {
                if (w[k] == g[k] || decidedByRounding(k, w[k], r, near)) continue;
                return fail(i, k, Math.abs(w[k] - g[k]), 0, 0, "element " + k + " is " + g[k] + ", eager " + w[k] + " (" + want.dtype()
                        + " must match exactly" + (r == null && near.isEmpty() ? ")" : "; the float64 run and eager one rounding away agree with eager there)"));
            }
            return new Verdict(true, -1, -1, maxDiff, 0, 0, null);
        }
        boolean close = true;
        for (int k = 0; k < w.length && close; k++) {
            if (Double.isFinite(w[k]) && Double.isFinite(g[k]) && !(Math.abs(w[k] - g[k]) <= tol + tol * Math.abs(w[k]))) close = false;
        }
        if (close) return new Verdict(true, -1, -1, maxDiff, 0, 0, null);
        String where = "element " + worst + " is " + g[worst] + ", eager " + w[worst] + " (abs diff " + format(maxDiff) + ")";
        if (ref == null || !Arrays.equals(ref.shape(), want.shape())) return fail(i, worst, maxDiff, 0, 0, where + ", beyond tolerance " + tol);
        double[] r = ref.toDoubleArray();
        double eagerErr = rmse(r, w), compiledErr = rmse(r, g);
        double nearbyErr = 0;
        for (double[] n : near) nearbyErr = Math.max(nearbyErr, rmse(r, n));
        double floor = Math.max(eagerErr, nearbyErr);
        if (compiledErr <= MULTIPLIER * floor + tol / 10) return new Verdict(true, -1, -1, maxDiff, compiledErr, eagerErr, null);
        return fail(i, worst, maxDiff, compiledErr, eagerErr, where + "; RMSE to float64: compiled " + format(compiledErr)
                + ", eager " + format(eagerErr) + (near.isEmpty() ? "" : ", eager on inputs one rounding away " + format(nearbyErr)
                        + (near.size() > 1 ? " (the largest of " + near.size() + " runs)" : ""))
                + " (allowed " + format(MULTIPLIER * floor + tol / 10) + ")");
    }

    /**
     * Whether integer element {@code k} (an index, a count, a comparison's boolean) is decided by
     * rounding at these inputs: the float64 run or eager one rounding away gives another value than
     * eager there. An argmax over values equal in exact arithmetic picks whichever one rounding made
     * largest (seed 62235: a log-softmax's rows, equal once a broadcast term cancels), so the compiled
     * code, rounding in another order, may pick another one as rightly as eager; only an element that
     * no rounding moves can be judged. The other elements must still match exactly.
     */
    private static boolean decidedByRounding(int k, double eager, double[] fp64, List<double[]> near) {
        if (fp64 != null && fp64[k] != eager) return true;
        for (double[] n : near) if (n[k] != eager) return true;
        return false;
    }

    /** Whether some nearby run gives {@code compiled}'s kind of value at {@code k}: finite where it is finite, the same NaN or infinity where not. */
    private static boolean nearbyGives(List<double[]> near, int k, double compiled) {
        for (double[] n : near) if (Double.isFinite(compiled) ? Double.isFinite(n[k]) : sameNonFinite(n[k], compiled)) return true;
        return false;
    }

    /**
     * Whether eager's value at {@code k} is rounding noise only: eager and the nearby runs, one
     * rounding apart, do not agree on half its digits (they spread by more than the square root of
     * the dtype's epsilon relative to their largest magnitude, where a well-conditioned element
     * moves by a few units in the last place). That is an element next to a singular point: seed
     * 472382 takes the standard deviation of rows equal in exact arithmetic, whose gradient divides
     * by it; compiled computes the rows alike and divides by an exact 0 (NaN, as PyTorch's formula
     * gives there), eager's GEMM rounds one row apart and divides by 2e-16, and the nearby runs give
     * -0.63, 0.63, 0.0095, -0.016, … at one element and -0.63, -0.59, -0.60 at another. The
     * compiled non-finite value is then the exact answer's, not an error; an element whose digits
     * the inputs decide stays judged. Needs two nearby runs.
     */
    private static boolean roundingNoiseOnly(List<double[]> near, int k, double eager, double epsilon) {
        if (near.size() < 2) return false;
        double min = eager, max = eager, largest = Math.abs(eager);
        for (double[] n : near) {
            if (!Double.isFinite(n[k])) return false;   // then nearbyGives decided
            min = Math.min(min, n[k]);
            max = Math.max(max, n[k]);
            largest = Math.max(largest, Math.abs(n[k]));
        }
        return max - min > Math.sqrt(epsilon) * largest;
    }

    /** The distance from 1 to the next larger number in {@code t}. */
    private static double epsilon(DType t) {
        return t == DType.FLOAT64 ? Math.ulp(1.0) : Math.ulp(1.0f);
    }

    private static boolean sameNonFinite(double a, double b) {
        return Double.isNaN(a) ? Double.isNaN(b) : a == b;
    }

    private static double rmse(double[] ref, double[] x) {
        double sum = 0;
        int n = 0;
        for (int k = 0; k < ref.length; k++) {
            if (!Double.isFinite(ref[k]) || !Double.isFinite(x[k])) continue;
            double d = ref[k] - x[k];
            sum += d * d;
            n++;
        }
        return n == 0 ? 0 : Math.sqrt(sum / n);
    }

    private static Verdict fail(int output, int index, double maxDiff, double compiledErr, double eagerErr, String reason) {
        return new Verdict(false, output, index, maxDiff, compiledErr, eagerErr, reason);
    }

    private static String describe(Object o) {
        return o instanceof Tensor t ? "a tensor " + t.dtype() + Arrays.toString(t.shape()) : String.valueOf(o);
    }

    private static String format(double d) { return String.format("%.3g", d); }

    /**
     * The inputs for the float64 reference run: every floating tensor as a float64 copy (same
     * shape), everything else as it is.
     */
    public static Object[] float64Copies(Object[] inputs) {
        Object[] out = new Object[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            out[i] = inputs[i] instanceof Tensor t && t.dtype().isFloatingPoint() ? (t.dtype() == DType.FLOAT64 ? t.clone() : t.to(DType.FLOAT64)) : inputs[i];
        }
        return out;
    }

    /**
     * Runs {@code program} as the float64 reference: on {@link #float64Copies} of the inputs, with
     * float64 as the default dtype meanwhile (so tensors the program makes itself, such as an RNN's
     * zero state, are float64 too). The process default is restored afterwards.
     */
    public static Object float64Reference(Object[] inputs, java.util.function.Function<Object[], Object> program) {
        DType before = Defaults.dtype();
        Defaults.setDtype(DType.FLOAT64);
        try {
            return program.apply(float64Copies(inputs));
        } finally {
            Defaults.setDtype(before);
        }
    }

    /** The flat list of an output's values: tensors, numbers, booleans, in order. */
    public static List<Object> leaves(Object value) {
        List<Object> out = new ArrayList<>();
        collect(value, out);
        return out;
    }

    private static void collect(Object value, List<Object> out) {
        switch (value) {
            case Object[] a -> { for (Object x : a) collect(x, out); }
            case List<?> l -> { for (Object x : l) collect(x, out); }
            case null, default -> out.add(value);
        }
    }
}
