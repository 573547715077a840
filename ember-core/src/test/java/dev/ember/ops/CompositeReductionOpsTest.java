package dev.ember.ops;

import dev.ember.autograd.GradCheck;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.ember.ops.CompositeShapeOpsTest.refused;
import static dev.ember.ops.CompositeShapeOpsTest.sample;
import static dev.ember.testing.TorchAssert.assertClose;

/**
 * all, any, logsumexp, norm and count_nonzero against libtorch: shapes (empty ones too), dtypes,
 * negative dims, keepdim, non-contiguous inputs, infinities and NaN; gradients against finite
 * differences; ATen's errors.
 */
class CompositeReductionOpsTest {
    private static final List<int[]> SHAPES = List.of(new int[] {5}, new int[] {3, 4}, new int[] {2, 3, 4}, new int[] {0, 3}, new int[] {});

    @Test
    void allAnyAndCountNonzeroMatchLibtorch() {
        Random rng = new Random(21);
        for (DType d : List.of(DType.FLOAT32, DType.INT64, DType.INT32, DType.BOOL)) {
            for (int[] shape : SHAPES) {
                // mostly nonzero, so that all() is sometimes true
                Tensor x = d == DType.BOOL ? Inputs.randint(rng, DType.INT64, 0, 5, shape).ne(0.0) : sample(rng, d, shape);
                for (Inputs.Layout in : Inputs.layouts(x)) {
                    Tensor t = in.tensor();
                    String what = d + " " + Arrays.toString(shape) + " " + in;
                    assertClose(t.all(), Torch.call("torch.all(a)", t), "all " + what);
                    assertClose(t.any(), Torch.call("torch.any(a)", t), "any " + what);
                    assertClose(t.countNonzero(), Torch.call("torch.count_nonzero(a)", t), "count_nonzero " + what);
                    for (int dim : new int[] {0, -1}) {
                        for (boolean keep : new boolean[] {false, true}) {
                            assertClose(t.all(dim, keep), Torch.call("torch.all(a, " + dim + ", " + (keep ? "True" : "False") + ")", t), "all " + dim + " " + keep + " " + what);
                            assertClose(t.any(dim, keep), Torch.call("torch.any(a, " + dim + ", " + (keep ? "True" : "False") + ")", t), "any " + dim + " " + keep + " " + what);
                        }
                        assertClose(t.countNonzero(dim), Torch.call("torch.count_nonzero(a, " + dim + ")", t), "count_nonzero " + dim + " " + what);
                    }
                    if (shape.length == 3) assertClose(t.countNonzero(0, -1), Torch.call("torch.count_nonzero(a, [0, -1])", t), "count_nonzero two dims " + what);
                }
            }
        }
        Tensor specials = Inputs.specials(DType.FLOAT32);
        assertClose(specials.all(), Torch.call("torch.all(a)", specials), "all with NaN and infinities");
        assertClose(specials.countNonzero(), Torch.call("torch.count_nonzero(a)", specials), "count_nonzero with NaN and infinities");
    }

    @Test
    void logsumexpMatchesLibtorch() {
        Random rng = new Random(22);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.BOOL)) {
            for (int[] shape : SHAPES.subList(0, SHAPES.size() - 1)) {
                Tensor x = d.isFloatingPoint() ? Inputs.randn(rng, d, shape).mul(30.0) : sample(rng, d, shape);
                for (Inputs.Layout in : Inputs.layouts(x)) {
                    String what = d + " " + Arrays.toString(shape) + " " + in;
                    for (boolean keep : new boolean[] {false, true}) {
                        String k = keep ? "True" : "False";
                        assertClose(in.tensor().logsumexp(new int[] {-1}, keep), Torch.call("torch.logsumexp(a, [-1], " + k + ")", in.tensor()), "logsumexp -1 " + what);
                        // dim [] reduces every dim, as sum's does (libtorch 2.7 fails its own logsumexp over [])
                        int[] every = java.util.stream.IntStream.range(0, shape.length).toArray();
                        assertClose(in.tensor().logsumexp(new int[0], keep), Torch.call("torch.logsumexp(a, b, " + k + ")", in.tensor(), every), "logsumexp all " + what);
                        if (shape.length == 3) {
                            assertClose(in.tensor().logsumexp(new int[] {0, 2}, keep), Torch.call("torch.logsumexp(a, [0, 2], " + k + ")", in.tensor()), "logsumexp 0 2 " + what);
                        }
                    }
                }
            }
        }
        // libtorch 2.7 fails its own logsumexp of a 0-d tensor ("output with shape [] doesn't match the broadcast shape [1]"): it is the element's
        Tensor scalar = Tensor.scalar(1.5);
        assertClose(scalar.logsumexp(0), Torch.call("torch.logsumexp(a.reshape([1]), 0)", scalar), "logsumexp of a 0-d tensor");
        double inf = Double.POSITIVE_INFINITY;
        Tensor rows = Tensor.of(new double[] {-inf, -inf, -inf, 1, inf, 2, -inf, 0.5, 3, 1e300, 1e300, -1e300}, 4, 3);
        assertClose(rows.logsumexp(1), Torch.call("torch.logsumexp(a, 1)", rows), "logsumexp of infinite rows and huge values");
    }

    @Test
    void normMatchesLibtorch() {
        Random rng = new Random(23);
        double inf = Double.POSITIVE_INFINITY;
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64)) {
            for (int[] shape : List.of(new int[] {5}, new int[] {3, 4}, new int[] {2, 3, 4}, new int[] {})) {
                Tensor x = Inputs.randn(rng, d, shape);
                for (Inputs.Layout in : Inputs.layouts(x)) {
                    Tensor t = in.tensor();
                    String what = d + " " + Arrays.toString(shape) + " " + in;
                    // a float64 reference for float32: libtorch sums in its own order
                    String ref = d == DType.FLOAT32 ? ".float()" : "";
                    assertClose(t.norm(), Torch.call("torch.norm(a.double())" + ref, t), "norm " + what);
                    for (double p : new double[] {1, 2, 3, 0.5, 0, inf, -inf}) {
                        String ps = p == inf ? "float('inf')" : p == -inf ? "float('-inf')" : Double.toString(p);
                        assertClose(t.norm(p), Torch.call("torch.norm(a.double(), " + ps + ")" + ref, t), "norm " + p + " " + what);
                        assertClose(t.norm(p, new int[] {-1}, true), Torch.call("torch.norm(a.double(), " + ps + ", [-1], True)" + ref, t), "norm " + p + " -1 " + what);
                        if (shape.length == 3) {
                            assertClose(t.norm(p, new int[] {0, 2}, false), Torch.call("torch.norm(a.double(), " + ps + ", [0, 2])" + ref, t), "norm " + p + " 0 2 " + what);
                        }
                    }
                    if (shape.length >= 2) {
                        assertClose(t.norm("fro", new int[] {0, 1}, false), Torch.call("torch.frobenius_norm(a.double(), [0, 1])" + ref, t), "norm fro " + what);
                    }
                }
            }
        }
        Tensor empty = Tensor.randn(0, 3);
        assertClose(empty.norm(2, new int[] {0}, false), Torch.call("torch.norm(a, 2, [0])", empty), "norm over an empty dim");
    }

    @Test
    void gradientsMatchFiniteDifferences() {
        Tensor x = Tensor.randn(3, 4).to(DType.FLOAT64).requiresGrad(true);
        GradCheck.check(in -> in.get(0).mul(3.0).logsumexp(new int[] {1}, false), x);
        GradCheck.check(in -> in.get(0).logsumexp(new int[0], true), x);
        for (double p : new double[] {1, 2, 3, 0.5, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            GradCheck.check(in -> in.get(0).norm(p, new int[] {0}, false), x);
        }
        GradCheck.check(in -> in.get(0).norm(), x);
    }

    @Test
    void badInputIsRefusedNamingTheOp() {
        Tensor x = Tensor.randn(2, 3);
        refused(IndexOutOfBoundsException.class, "all", () -> x.all(2));
        refused(IndexOutOfBoundsException.class, "any", () -> x.any(-3));
        refused(IndexOutOfBoundsException.class, "logsumexp", () -> x.logsumexp(new int[] {5}, false));
        refused(IllegalArgumentException.class, "logsumexp", () -> x.logsumexp(new int[] {0, 0}, false));
        refused(IllegalArgumentException.class, "norm", () -> Tensor.ofLongs(1, 2).norm());
        refused(IndexOutOfBoundsException.class, "norm", () -> x.norm(3, new int[] {5}, false));
        refused(IllegalArgumentException.class, "norm", () -> Tensor.randn(0, 3).norm(Double.POSITIVE_INFINITY, new int[] {0}, false));
        refused(IllegalArgumentException.class, "norm", () -> x.norm("nuc", new int[] {0, 1}, false));
        refused(IllegalArgumentException.class, "count_nonzero", () -> x.countNonzero(0, 0));
        refused(IndexOutOfBoundsException.class, "count_nonzero", () -> x.countNonzero(2));
    }
}
