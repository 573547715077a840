package dev.ember.autograd;

import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Checks a function's gradients against finite differences (PyTorch's {@code torch.autograd.gradcheck}):
 * for random output weights {@code v}, the analytic {@code vᵀJ} from backward is compared, element
 * by element, with the central difference {@code (v·f(x+ε) − v·f(x−ε)) / 2ε}. Inputs should be
 * float64; those that require grad are checked.
 * <pre>{@code
 * GradCheck.check(in -> in.get(0).tanh().mul(in.get(1)), x, w);   // throws GradCheck.Mismatch if a gradient is wrong
 * }</pre>
 */
public final class GradCheck {
    private GradCheck() {}

    /** A gradient that does not match finite differences: which input, which element, both values. */
    public static final class Mismatch extends AssertionError {
        Mismatch(String message) { super(message); }
    }

    public static void check(Function<List<Tensor>, Tensor> fn, Tensor... inputs) { check(fn, List.of(inputs), 1e-6, 1e-5, 1e-3); }

    /**
     * Checks with step {@code eps} and tolerance {@code |analytic − numeric| ≤ atol + rtol·|numeric|}.
     * The function's output must be floating point; a function returning integers has no gradient to check.
     */
    public static void check(Function<List<Tensor>, Tensor> fn, List<Tensor> inputs, double eps, double atol, double rtol) {
        for (Tensor t : inputs) {
            if (t.requiresGrad() && t.dtype() != DType.FLOAT64) {
                throw new IllegalArgumentException("gradcheck wants float64 inputs (finite differences in float32 are too coarse), got " + t.meta().describe());
            }
        }
        Tensor out = fn.apply(inputs);
        if (!out.requiresGrad()) throw new Mismatch("the function's output does not require grad: nothing recorded a path from the inputs");
        Generator g = new Generator(1234);
        for (int trial = 0; trial < 2; trial++) {
            Tensor v = Tensor.randn(g, out.shape()).to(out.dtype());
            List<Tensor> wrt = new ArrayList<>();
            for (Tensor t : inputs) if (t.requiresGrad()) wrt.add(t);
            List<Tensor> analytic = Autograd.grad(List.of(fn.apply(inputs)), wrt, List.of(v), false, false, true);
            for (int k = 0; k < wrt.size(); k++) {
                Tensor x = wrt.get(k);
                double[] a = analytic.get(k) == null ? new double[x.numel()] : analytic.get(k).contiguous().toDoubleArray();
                double[] numeric = numeric(fn, inputs, x, v, eps);
                for (int i = 0; i < numeric.length; i++) {
                    if (Math.abs(a[i] - numeric[i]) > atol + rtol * Math.abs(numeric[i]) || Double.isNaN(a[i]) != Double.isNaN(numeric[i])) {
                        throw new Mismatch("Jacobian mismatch for input " + inputs.indexOf(x) + " (" + x.meta().describe() + ") at element " + i
                                + ": analytic " + a[i] + ", numeric " + numeric[i] + " (eps " + eps + ", atol " + atol + ", rtol " + rtol + ")");
                    }
                }
            }
        }
    }

    /** The central difference of {@code v · fn} along each element of {@code x}, with recording off. */
    private static double[] numeric(Function<List<Tensor>, Tensor> fn, List<Tensor> inputs, Tensor x, Tensor v, double eps) {
        double[] out = new double[x.numel()];
        double[] vs = v.contiguous().toDoubleArray();
        try (var unused = GradMode.noGrad()) {
            Tensor flat = x.detach().reshape(-1);
            if (!flat.isContiguous() || flat.numel() != x.numel()) throw new IllegalArgumentException("gradcheck needs contiguous inputs, got " + x.meta().describe());
            for (int i = 0; i < out.length; i++) {
                double orig = flat.select(0, i).item();
                flat.select(0, i).fill_(orig + eps);
                double plus = dot(fn.apply(inputs), vs);
                flat.select(0, i).fill_(orig - eps);
                double minus = dot(fn.apply(inputs), vs);
                flat.select(0, i).fill_(orig);
                out[i] = (plus - minus) / (2 * eps);
            }
        }
        return out;
    }

    private static double dot(Tensor y, double[] v) {
        double[] ys = y.contiguous().to(DType.FLOAT64).toDoubleArray();
        double s = 0;
        for (int i = 0; i < ys.length; i++) s += ys[i] * v[i];
        return s;
    }
}
