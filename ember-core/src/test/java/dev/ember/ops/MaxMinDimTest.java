package dev.ember.ops;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * torch's {@code x.max(dim)} / {@code x.min(dim)} (aten max.dim, min.dim): values and the first
 * extremum's index against libtorch over dtypes, dims, keepdim, layouts, ties and NaN; the values'
 * gradient going to the selected index alone (ties do not share it, as amax's do); compiled equal
 * to eager. And {@code flatten(startDim)}.
 */
class MaxMinDimTest {
    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    @Test
    void valuesAndIndicesMatchLibtorch() {
        Random rng = new Random(12);
        try (NDManager m = Torch.scope()) {
            for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32}) {
                for (int[] shape : List.of(new int[] {7}, new int[] {4, 5}, new int[] {3, 6, 2}, new int[] {})) {
                    Tensor x = Inputs.randint(rng, dtype, -3, 4, shape);   // few values: ties
                    for (Inputs.Layout in : Inputs.layouts(x)) {
                        Tensor t = in.tensor();
                        for (int dim = -Math.max(1, shape.length); dim < Math.max(1, shape.length); dim++) {
                            for (boolean keep : new boolean[] {false, true}) {
                                String what = dtype + " " + java.util.Arrays.toString(shape) + " " + in + " dim " + dim + " keepdim " + keep;
                                String k = keep ? "True" : "False";
                                NDList want = Torch.callList(m, "torch.max(a, " + dim + ", " + k + ")", t);
                                List<Tensor> got = t.max(dim, keep);
                                assertClose(got.get(0), want.get(0), "max values " + what);
                                assertClose(got.get(1), want.get(1), "max indices " + what);
                                NDList wantMin = Torch.callList(m, "torch.min(a, " + dim + ", " + k + ")", t);
                                List<Tensor> gotMin = t.min(dim, keep);
                                assertClose(gotMin.get(0), wantMin.get(0), "min values " + what);
                                assertClose(gotMin.get(1), wantMin.get(1), "min indices " + what);
                            }
                        }
                    }
                }
            }
            Tensor nan = Tensor.of(new float[] {1, Float.NaN, 3, Float.NaN, 2, 0}, 2, 3);
            for (int dim : new int[] {0, 1}) {
                assertClose(nan.max(dim).get(1), Torch.callList(m, "torch.max(a, " + dim + ")", nan).get(1), "NaN counts as the maximum");
                assertClose(nan.min(dim).get(0), Torch.callList(m, "torch.min(a, " + dim + ")", nan).get(0), "NaN counts as the minimum");
            }
        }
    }

    @Test
    void theGradientGoesToTheSelectedIndexOnly() {
        Tensor x = Tensor.of(new double[] {2, 5, 5, 1, 0, 0}, 2, 3).requiresGrad(true);   // ties in both rows
        Tensor go = Tensor.of(new double[] {10, 20}, 2);
        Tensor gMax = Autograd.grad(List.of(x.max(1).get(0)), List.of(x), List.of(go), false, false, false).getFirst();
        Tensor gMin = Autograd.grad(List.of(x.min(1).get(0)), List.of(x), List.of(go), false, false, false).getFirst();
        try (NDManager m = Torch.scope()) {
            String body = "a = a.detach().requires_grad_(True)\ny = torch.%s(a, 1)[0]\ngo: List[Optional[Tensor]] = [b]\nreturn torch.autograd.grad([y], [a], go)";
            assertClose(gMax, Torch.callListWithGrad(m, body.formatted("max"), x.detach(), go).get(0), "max.dim gradient");
            assertClose(gMin, Torch.callListWithGrad(m, body.formatted("min"), x.detach(), go).get(0), "min.dim gradient");
        }
        assertArrayEquals(new double[] {0, 10, 0, 20, 0, 0}, gMax.toDoubleArray(), 0, "the first maximum takes it all");
        assertArrayEquals(new double[] {10, 0, 0, 0, 20, 0}, gMin.toDoubleArray(), 0, "the first minimum takes it all");
    }

    static Tensor predicted(Tensor logits) {
        List<Tensor> best = logits.softmax(1).max(1);
        return best.get(0).add(best.get(1).to(DType.FLOAT32)).add(logits.min(0, true).get(0).sum()).add(logits.flatten(1).sum(1));
    }

    @Test
    void compiledEqualsEager() {
        Tensor x = Tensor.randn(6, 4);
        for (String backend : List.of("aot_eager", "inductor")) {
            Fn1<Tensor, Tensor> f = Ember.compile(MaxMinDimTest::predicted, Options.backend(backend));
            assertClose(f.apply(x), predicted(x), backend);
        }
        Tensor img = Tensor.randn(2, 3, 4, 5);
        assertArrayEquals(new int[] {2, 60}, img.flatten(1).shape());
        assertArrayEquals(new int[] {2, 3, 20}, img.flatten(2).shape());
    }
}
