package dev.ember.debug;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * The verdict of a runnable repro (fx_graph_runnable.java): the backend's outputs against eager's, leaf by
 * leaf, with torch.testing's default tolerances (float32: rtol 1.3e-6, atol 1e-5; float64: rtol 1e-7,
 * atol 1e-7; integers and bools exactly). Prints {@code PASS: outputs match (max abs diff …)} or
 * {@code FAIL: …} and returns the process exit code (0 or 1).
 */
public final class ReproCheck {
    private ReproCheck() {}

    /** Compares and prints the verdict on {@code out}; the exit code the repro should end with. */
    public static int report(Object expected, Object actual, String backend, PrintStream out) {
        List<Object> want = Accuracy.leaves(expected), got = Accuracy.leaves(actual);
        if (want.size() != got.size()) {
            out.println("FAIL: backend '" + backend + "' returned " + got.size() + " output(s), eager " + want.size());
            return 1;
        }
        double maxDiff = 0;
        for (int i = 0; i < want.size(); i++) {
            Object w = want.get(i), g = got.get(i);
            if (w instanceof Tensor tw && g instanceof Tensor tg) {
                String problem = mismatch(tw, tg);
                if (problem != null) {
                    out.println("FAIL: output " + i + ": " + problem + " (backend '" + backend + "' vs eager)");
                    return 1;
                }
                maxDiff = Math.max(maxDiff, maxAbsDiff(tw, tg));
            } else if (!java.util.Objects.equals(w, g)) {
                out.println("FAIL: output " + i + ": backend '" + backend + "' gave " + g + ", eager " + w);
                return 1;
            }
        }
        out.println("PASS: outputs match (max abs diff " + maxDiff + ", " + want.size() + " output(s), backend '" + backend + "' vs eager)");
        return 0;
    }

    private static String mismatch(Tensor want, Tensor got) {
        if (want.dtype() != got.dtype()) return "dtype " + got.dtype() + ", expected " + want.dtype();
        if (!Arrays.equals(want.shape(), got.shape())) return "shape " + Arrays.toString(got.shape()) + ", expected " + Arrays.toString(want.shape());
        double[] w = want.toDoubleArray(), g = got.toDoubleArray();
        double rtol = switch (want.dtype()) { case FLOAT32 -> 1.3e-6; case FLOAT64 -> 1e-7; default -> 0; };
        double atol = switch (want.dtype()) { case FLOAT32 -> 1e-5; case FLOAT64 -> 1e-7; default -> 0; };
        for (int k = 0; k < w.length; k++) {
            if (Double.isNaN(w[k]) && Double.isNaN(g[k])) continue;
            if (w[k] == g[k]) continue;
            if (!(Math.abs(w[k] - g[k]) <= atol + rtol * Math.abs(w[k]))) {
                return "element " + k + " is " + g[k] + ", expected " + w[k] + " (abs diff " + Math.abs(w[k] - g[k])
                        + ", max abs diff " + maxAbsDiff(want, got) + ")";
            }
        }
        return null;
    }

    private static double maxAbsDiff(Tensor want, Tensor got) {
        if (want.dtype() == DType.BOOL) return Arrays.equals(want.toDoubleArray(), got.toDoubleArray()) ? 0 : 1;
        double[] w = want.toDoubleArray(), g = got.toDoubleArray();
        double max = 0;
        for (int k = 0; k < w.length; k++) if (!(Double.isNaN(w[k]) && Double.isNaN(g[k]))) max = Math.max(max, Math.abs(w[k] - g[k]));
        return max;
    }
}
