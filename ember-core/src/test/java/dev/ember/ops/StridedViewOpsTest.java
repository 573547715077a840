package dev.ember.ops;

import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** unfold, as_strided, as_strided_scatter and unfold_backward against libtorch; views sharing memory; compiled as eager. */
class StridedViewOpsTest {

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    private static final Random RNG = new Random(17);

    @Test
    void unfoldMatchesLibtorchOnContiguousStridedAndScalarInputs() {
        int[][] cases = {{0, 3, 2}, {0, 4, 3}, {1, 2, 1}, {-1, 3, 3}, {2, 1, 2}, {1, 0, 1}, {0, 10, 1}};
        Tensor x = Inputs.randn(RNG, DType.FLOAT32, 10, 4, 3);
        for (Inputs.Layout in : Inputs.layouts(x)) {
            for (int[] c : cases) {
                if (c[1] > in.tensor().shape()[Math.floorMod(c[0], 3)]) continue;
                Tensor got = in.tensor().unfold(c[0], c[1], c[2]);
                assertClose(got, Torch.call("a.unfold(" + c[0] + ", " + c[1] + ", " + c[2] + ")", in.tensor()), "unfold " + in + " " + java.util.Arrays.toString(c));
                assertSame(in.tensor().storage(), got.storage(), "unfold is a view");
            }
        }
        Tensor scalar = Tensor.of(new double[] {2.5}).reshape();
        assertClose(scalar.unfold(0, 1, 1), Torch.call("a.unfold(0, 1, 1)", scalar), "0-d");
        assertClose(scalar.unfold(-1, 0, 2), Torch.call("a.unfold(-1, 0, 2)", scalar), "0-d, empty window");
        Tensor ints = Tensor.arange(12L).reshape(3, 4);
        assertClose(ints.unfold(1, 2, 2), Torch.call("a.unfold(1, 2, 2)", ints), "int64");
    }

    @Test
    void unfoldWritesThroughToItsBaseAndOverlappingWindowsShareElements() {
        Tensor x = Tensor.arange(0.0, 10.0, 1.0);
        Tensor windows = x.unfold(0, 3, 2);
        windows.select(0, 1).select(0, 0).fill_(-1.0);   // window 1 starts at element 2, which window 0 ends at
        assertEquals(-1.0, x.select(0, 2).item(), 0.0);
        assertEquals(-1.0, windows.select(0, 0).select(0, 2).item(), 0.0);
    }

    @Test
    void unfoldRefusesWhatAtenRefusesInItsWords() {
        Tensor x = Tensor.randn(4, 5);
        refusedAsLibtorch(() -> x.unfold(1, 6, 1), "a.unfold(1, 6, 1)", x);
        refusedAsLibtorch(() -> x.unfold(0, 2, 0), "a.unfold(0, 2, 0)", x);
        refusedAsLibtorch(() -> x.unfold(0, -1, 1), "a.unfold(0, -1, 1)", x);
        refusedAsLibtorch(() -> x.unfold(2, 1, 1), "a.unfold(2, 1, 1)", x);
        Tensor scalar = Tensor.of(new double[] {1}).reshape();
        refusedAsLibtorch(() -> scalar.unfold(0, 2, 1), "a.unfold(0, 2, 1)", scalar);
    }

    @Test
    void asStridedMatchesLibtorchIncludingOverlapsOffsetsAndViewsOfViews() {
        Tensor x = Inputs.randn(RNG, DType.FLOAT32, 4, 6);
        assertClose(x.asStrided(new int[] {3, 3}, new int[] {1, 1}), Torch.call("a.as_strided([3, 3], [1, 1])", x), "overlapping");
        assertClose(x.asStrided(new int[] {2, 5}, new int[] {6, 2}, 3), Torch.call("a.as_strided([2, 5], [6, 2], 3)", x), "offset");
        assertClose(x.asStrided(new int[] {4, 0, 2}, new int[] {1, 3, 0}), Torch.call("a.as_strided([4, 0, 2], [1, 3, 0])", x), "empty");
        assertClose(x.asStrided(new int[] {}, new int[] {}, 23), Torch.call("a.as_strided([], [], 23)", x), "0-d, last element");
        // a view's as_strided counts in the storage, from the view's own offset unless one is given
        Tensor view = x.narrow(0, 1, 2).t();
        assertClose(view.asStrided(new int[] {2, 2}, new int[] {7, 1}), Torch.call("a.narrow(0, 1, 2).t().as_strided([2, 2], [7, 1])", x), "view, own offset");
        assertClose(view.asStrided(new int[] {3}, new int[] {5}, 0), Torch.call("a.narrow(0, 1, 2).t().as_strided([3], [5], 0)", x), "view, offset 0");
        assertEquals(6, view.storageOffset());
        Tensor shared = x.asStrided(new int[] {2}, new int[] {1}, 4);
        shared.fill_(7.0);
        assertEquals(7.0, x.select(0, 0).select(0, 5).item(), 0.0, "writes through to the base");
    }

    @Test
    void asStridedRefusesWhatAtenRefusesInItsWords() {
        Tensor x = Tensor.randn(4, 4);
        refusedAsLibtorch(() -> x.asStrided(new int[] {2, 2}, new int[] {1}), "a.as_strided([2, 2], [1])", x);
        refusedAsLibtorch(() -> x.asStrided(new int[] {2, 2}, new int[] {-1, 1}), "a.as_strided([2, 2], [-1, 1])", x);
        refusedAsLibtorch(() -> x.asStrided(new int[] {4, 4}, new int[] {4, 2}), "a.as_strided([4, 4], [4, 2])", x);
        refusedAsLibtorch(() -> x.asStrided(new int[] {2}, new int[] {1}, 15), "a.as_strided([2], [1], 15)", x);
        refusedAsLibtorch(() -> x.asStrided(new int[] {2}, new int[] {1}, -1), "a.as_strided([2], [1], -1)", x);
        refusedAsLibtorch(() -> x.asStrided(new int[] {-1, 2}, new int[] {1, 1}), "a.as_strided([-1, 2], [1, 1])", x);
    }

    @Test
    void asStridedScatterMatchesLibtorchForContiguousAndTransposedSelf() {
        Tensor x = Inputs.randn(RNG, DType.FLOAT32, 4, 5), src = Inputs.randn(RNG, DType.FLOAT32, 2, 3);
        assertClose(x.asStridedScatter(src, new int[] {2, 3}, new int[] {5, 2}, 1),
                Torch.call("torch.as_strided_scatter(a, b, [2, 3], [5, 2], 1)", x, src), "contiguous");
        assertClose(x.t().asStridedScatter(src, new int[] {2, 3}, new int[] {5, 2}, null),
                Torch.call("torch.as_strided_scatter(a.t(), b, [2, 3], [5, 2])", x, src), "transposed: clone keeps its strides");
        Tensor ints = Tensor.arange(6L).reshape(2, 3);
        assertClose(ints.asStridedScatter(Tensor.of(new double[] {-1.5, 2.5}), new int[] {2}, new int[] {4}, null),
                Torch.call("torch.as_strided_scatter(a, b, [2], [4])", ints, Tensor.of(new double[] {-1.5, 2.5}).to(DType.INT64)), "cast to self's dtype");
        refusedAsLibtorch(() -> x.asStridedScatter(src, new int[] {3, 2}, new int[] {5, 2}, 1), "torch.as_strided_scatter(a, b, [3, 2], [5, 2], 1)", x, src);
        refusedAsLibtorch(() -> x.asStridedScatter(src, new int[] {2, 3}, new int[] {15, 2}, 1), "torch.as_strided_scatter(a, b, [2, 3], [15, 2], 1)", x, src);
    }

    @Test
    void unfoldBackwardMatchesLibtorch() {
        int[][] cases = {{0, 3, 2}, {1, 2, 1}, {-1, 3, 3}, {2, 1, 2}, {0, 4, 1}};
        int[] sizes = {6, 4, 5};
        for (int[] c : cases) {
            int[] shape = StridedViewOps.unfold(dev.ember.tensor.TensorMeta.contiguous(DType.FLOAT64, sizes), c[0], c[1], c[2]).shape();
            Tensor grad = Inputs.randn(RNG, DType.FLOAT64, shape);
            Tensor got = StridedViewOps.UNFOLD_BACKWARD.callTensor(grad, sizes, (long) c[0], (long) c[1], (long) c[2]);
            assertClose(got, Torch.call("ops.aten.unfold_backward(a, b, " + c[0] + ", " + c[1] + ", " + c[2] + ")", grad, sizes),
                    "unfold_backward " + java.util.Arrays.toString(c));
        }
    }

    @Test
    void asStridedOfAnOverlappingInputSharesEachGradientAsLibtorch() {
        Tensor x = Inputs.randn(RNG, DType.FLOAT64, 3).requiresGrad(true);
        Tensor y = x.expand(4, 3).asStrided(new int[] {2, 2}, new int[] {1, 1});
        Tensor weights = Inputs.randn(RNG, DType.FLOAT64, 2, 2);
        y.mul(weights).sum().backward();
        try (ai.djl.ndarray.NDManager m = Torch.scope()) {
            var want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\n"
                    + "y = a.expand(4, 3).as_strided([2, 2], [1, 1]).mul(b).sum()\nreturn torch.autograd.grad([y], [a])", x.detach(), weights);
            assertClose(x.grad(), want.get(0), "grad of as_strided of an expanded input");
        }
    }

    // ------------------------------------------------------------------ compiled

    static Tensor windowsAndStrides(Tensor x, Tensor y) {
        Tensor windows = x.unfold(1, 3, 2).sum(-1).add(y.unfold(0, 2, 1).sum(-1).t()).unsqueeze(-1).mul(x.unfold(1, 3, 2));
        Tensor ofIntermediate = x.mul(2.0).unfold(0, 2, 2).sum(-1);
        Tensor strided = x.asStrided(new int[] {3, 3}, new int[] {2, 1}, 1).add(y.t().asStrided(new int[] {3, 3}, new int[] {1, 0}));
        return CompiledOpsCheck.flattenedAndJoined(List.of(windows, ofIntermediate, strided));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledUnfoldAndAsStridedOfInputsGiveEagersValuesAndGradients(String backend) {
        Tensor x = Inputs.randn(RNG, DType.FLOAT32, 4, 7), y = Inputs.randn(RNG, DType.FLOAT32, 4, 4);
        CompiledOpsCheck.oneGraphWithEagersValuesAndGradients(StridedViewOpsTest::windowsAndStrides, x, y, backend, "x", "y");
    }

    static Tensor asStridedOfAComputedValue(Tensor x, Tensor y) {
        return x.add(y).t().asStrided(new int[] {2, 3}, new int[] {3, 1}, 2).mul(3.0);
    }

    @Test
    void inductorRunsAsStridedOfAComputedValueAsEagerDoes() {
        Tensor x = Inputs.randn(RNG, DType.FLOAT32, 3, 4), y = Inputs.randn(RNG, DType.FLOAT32, 3, 4);
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(StridedViewOpsTest::asStridedOfAComputedValue, Options.backend("inductor"));
        assertClose(f.apply(x, y), asStridedOfAComputedValue(x, y), "as_strided of a computed, transposed value");
    }

    @Test
    void inductorIndexesUnfoldOfAStridedInputWithItsOwnStrides() {
        Tensor wide = Inputs.randn(RNG, DType.FLOAT32, 5, 12);
        Tensor strided = wide.slice(1, 1, 12, 2);
        Fn2<Tensor, Tensor, Tensor> fn = (a, b) -> a.unfold(0, 2, 1).add(b.unfold(1, 3, 3).sum(-1).unsqueeze(-1).sum(1, true));
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(fn, Options.backend("inductor").fullgraph(true));
        Tensor b = Inputs.randn(RNG, DType.FLOAT32, 4, 6);
        assertClose(f.apply(strided, b), fn.apply(strided, b), "strided input");
        assertTrue(f.apply(strided, b).dim() == 3);
    }

    /** Ember refuses with ATen's words (after the op's name, where Ember's dim checks put it first). */
    private static void refusedAsLibtorch(Runnable ember, String torch, Object... args) {
        RuntimeException e = assertThrows(RuntimeException.class, ember::run, torch);
        assertTrue(e instanceof IllegalArgumentException || e instanceof IndexOutOfBoundsException, e.toString());
        RuntimeException t = assertThrows(RuntimeException.class, () -> Torch.call(torch, args), torch);
        String aten = Torch.refusalText(t), words = e.getMessage().replaceFirst("^unfold: ", "");
        assertTrue(aten.contains(words), "ember: " + e.getMessage() + "\nlibtorch: " + aten);
    }
}
