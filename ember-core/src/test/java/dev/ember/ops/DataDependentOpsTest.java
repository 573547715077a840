package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.GradCheck;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.dynamo.Unsupported;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static dev.ember.ops.ScatterConformanceTest.refused;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ops whose output's shape depends on the data (nonzero, nonzero as a tuple, masked_select,
 * boolean-mask indexing) against libtorch over every dtype, shape and layout, their gradients, and
 * under Ember.compile: a graph break of type GB0021 naming the op, eager's results, and fullgraph's error.
 */
class DataDependentOpsTest {

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    static Stream<DType> everyDtype() { return Arrays.stream(DType.values()); }

    /** Values with many zeros (and, for floats, NaN and -0.0, which count as nonzero and zero). */
    static Tensor sparse(Random rng, DType d, int... shape) {
        if (d.isFloatingPoint()) {
            double[] v = new double[Arrays.stream(shape).reduce(1, (x, y) -> x * y)];
            double[] pool = {0, -0.0, 1.5, -2, Double.NaN, 0, 3};
            for (int i = 0; i < v.length; i++) v[i] = pool[rng.nextInt(pool.length)];
            return Inputs.fromDoubles(v, d, shape);
        }
        return Inputs.randint(rng, d, 0, d.isBool() ? 2 : 3, shape);
    }

    static Tensor mask(Random rng, int... shape) { return Inputs.randint(rng, DType.BOOL, 0, 2, shape); }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyDtype")
    void nonzeroMatchesLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 11);
        try (NDManager m = Torch.scope()) {
            for (int[] shape : Inputs.SHAPES) {
                Tensor x = sparse(rng, d, shape);
                for (Inputs.Layout in : Inputs.layouts(x)) {
                    String ctx = "nonzero " + d + " " + Arrays.toString(shape) + " " + in;
                    assertClose(in.tensor().nonzero(), Torch.call(m, "torch.nonzero(a)", in.tensor()), ctx);
                    assertClose(in.tensor().nonzeroAsTuple(), Torch.callList(m, "ops.aten.nonzero_numpy(a)", in.tensor()), ctx + " as_tuple");
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyDtype")
    void maskedSelectMatchesLibtorchWithBroadcasting(DType d) {
        Random rng = new Random(d.ordinal() + 21);
        try (NDManager m = Torch.scope()) {
            for (int[][] s : Inputs.BROADCAST_SHAPES) {
                Tensor x = sparse(rng, d, s[0]), mask = mask(rng, s[1]);
                for (Inputs.Layout in : Inputs.layouts(x)) {
                    String ctx = "masked_select " + d + " " + Arrays.toString(s[0]) + " " + Arrays.toString(s[1]) + " " + in;
                    assertClose(in.tensor().maskedSelect(mask), Torch.call(m, "torch.masked_select(a, b)", in.tensor(), mask), ctx);
                    assertClose(mask.maskedSelect(in.tensor().ne(0L)), Torch.call(m, "torch.masked_select(a, b)", mask, in.tensor().ne(0L)), ctx + " swapped");
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyDtype")
    void booleanMaskIndexingMatchesLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 31);
        try (NDManager m = Torch.scope()) {
            Tensor x = sparse(rng, d, 4, 3, 2);
            for (Inputs.Layout in : Inputs.layouts(x)) {
                for (int[] maskShape : List.of(new int[] {4}, new int[] {4, 3}, new int[] {4, 3, 2})) {
                    Tensor mask = mask(rng, maskShape);
                    assertClose(in.tensor().index(mask), Torch.call(m, "a[b]", in.tensor(), mask), "index " + d + " " + in + " mask " + Arrays.toString(maskShape));
                }
                // a 0-d mask selects the whole tensor or nothing, as Python's x[True] (ATen's index asserts on it)
                for (boolean keep : new boolean[] {true, false}) {
                    Tensor mask = Tensor.of(new boolean[] {keep});
                    assertClose(in.tensor().index(mask), Torch.call(m, "a.unsqueeze(0)[b.unsqueeze(0)]", in.tensor(), mask), "index " + d + " " + in + " 0-d mask");
                }
            }
            Tensor empty = sparse(rng, d, 0, 3);
            assertClose(empty.index(mask(rng, 0)), Torch.call(m, "a[b]", empty, mask(rng, 0)), "empty");
        }
    }

    /** docs/tensors.md, "Data-dependent shapes", as written there. */
    @Test
    void docsExample() {
        Tensor x = Tensor.of(new float[] {0, 2, -1, 0, 3, 0}, 2, 3);
        Tensor at = x.nonzero();                       // int64 [[0, 1], [0, 2], [1, 1]]
        List<Tensor> perDim = x.nonzeroAsTuple();      // [0, 0, 1] and [1, 2, 1]: nonzero(as_tuple=True)
        Tensor pos = x.maskedSelect(x.gt(0.0));        // [2, 3]; the mask broadcasts with x
        Tensor rows = x.index(Tensor.of(new boolean[] {false, true}, 2));   // x[mask]: [[0, 3, 0]]
        assertArrayEquals(new long[] {0, 1, 0, 2, 1, 1}, at.toLongArray());
        assertArrayEquals(new int[] {3, 2}, at.shape());
        assertArrayEquals(new long[] {0, 0, 1}, perDim.get(0).toLongArray());
        assertArrayEquals(new long[] {1, 2, 1}, perDim.get(1).toLongArray());
        assertArrayEquals(new float[] {2, 3}, pos.toFloatArray());
        assertArrayEquals(new float[] {0, 3, 0}, rows.toFloatArray());
        assertArrayEquals(new int[] {1, 3}, rows.shape());
    }

    @Test
    void badCallsFailLikeLibtorch() {
        Tensor x = Tensor.randn(4, 3);
        try (NDManager m = Torch.scope()) {
            Tensor ints = Tensor.ofLongs(1, 0, 1);
            refused(m, "non-bool mask", () -> x.maskedSelect(ints), "torch.masked_select(a, b)", x, ints);
            Tensor three = Tensor.of(new boolean[] {true, false, true}, 3);
            refused(m, "mask shape", () -> x.index(three), "a[b]", x, three);
            Tensor five = Tensor.of(new boolean[] {true, false, true, true, false}, 5);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> x.maskedSelect(five));
            assertTrue(e.getMessage().contains("size of tensor a (5) must match the size of tensor b (3) at non-singleton dimension 1"), e.getMessage());
        }
    }

    @Test
    void gradientsGoBackToTheSelectedPositions() {
        Tensor x = Tensor.randn(3, 4).to(DType.FLOAT64).requiresGrad(true);
        Tensor rowMask = Tensor.of(new boolean[] {true, false, true}, 3), mask = x.detach().gt(0.0);
        GradCheck.check(in -> in.get(0).maskedSelect(mask), x);
        GradCheck.check(in -> in.get(0).maskedSelect(Tensor.of(new boolean[] {false, true, true, false}, 4)), x);   // x broadcast... along rows
        GradCheck.check(in -> in.get(0).index(rowMask), x);
        GradCheck.check(in -> in.get(0).maskedSelect(Tensor.of(new boolean[] {false, false, false, false}, 4)), x);   // nothing selected: zeros
        Tensor row = Tensor.randn(1, 4).to(DType.FLOAT64).requiresGrad(true);
        Tensor tall = Tensor.of(new boolean[] {true, false, true, true, false, true, true, true}, 2, 4);
        GradCheck.check(in -> in.get(0).maskedSelect(tall), row);   // self broadcast: its gradient sums the rows
    }

    @Test
    void maskIndexingGradientMatchesLibtorch() {
        Random rng = new Random(41);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 3, 2, 4).requiresGrad(true), mask = mask(rng, 3, 2);
        Tensor y = x.index(mask);
        Tensor v = Inputs.randn(rng, DType.FLOAT32, y.shape());
        y.backward(v);
        try (NDManager m = Torch.scope()) {
            assertClose(x.grad(), Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\ngo: List[Optional[Tensor]] = [c]\n"
                    + "return torch.autograd.grad([a[b]], [a], go)", x.detach(), mask, v).head(), "index backward");
        }
    }

    // ------------------------------------------------------------------ under Ember.compile

    static Tensor selectPositives(Tensor x, Tensor y) {
        Tensor s = x.mul(2.0).add(y);
        Tensor picked = s.maskedSelect(s.gt(0.0));
        return picked.exp().sum().add(s.nonzero().size(0));
    }

    static Tensor rowsOf(Tensor x, Tensor y) {
        Tensor keep = y.sum(1).gt(0.0);
        return x.index(keep).relu().mul(3.0);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"eager", "aot_eager", "inductor"})
    void compiledBreaksTheGraphAndReturnsWhatEagerReturns(String backend) {
        Tensor.manualSeed(5);
        Tensor x = Tensor.randn(4, 5), y = Tensor.randn(4, 5);
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(DataDependentOpsTest::selectPositives, Options.backend(backend));
        assertArrayEquals(selectPositives(x, y).toFloatArray(), f.apply(x, y).toFloatArray(), 1e-5f, backend);
        Fn2<Tensor, Tensor, Tensor> g = Ember.compile(DataDependentOpsTest::rowsOf, Options.backend(backend));
        assertArrayEquals(rowsOf(x, y).toFloatArray(), g.apply(x, y).toFloatArray(), 1e-6f, backend);
        Tensor y2 = Tensor.randn(4, 5);   // another mask: another row count, same compiled code
        assertArrayEquals(rowsOf(x, y2).toFloatArray(), g.apply(x, y2).toFloatArray(), 1e-6f, backend);
    }

    @Test
    void theBreakIsReportedWithTheOpItsReasonAndLine() {
        Tensor x = Tensor.randn(4, 5), y = Tensor.randn(4, 5);
        ExplainOutput e = Ember.explain((Fn2<Tensor, Tensor, Tensor>) DataDependentOpsTest::selectPositives).with(x, y);
        assertEquals(2, e.graphBreakCount(), e.toString());
        var first = e.breakReasons().getFirst();
        assertTrue(first.reason().contains("aten.masked_select.default; its output's shape depends on the input's values"), e.toString());
        assertEquals("GB0021", first.gbId());
        assertTrue(e.breakReasons().get(1).reason().contains("aten.nonzero.default"), e.toString());
    }

    @Test
    void fullgraphRaisesNamingTheOp() {
        Fn2<Tensor, Tensor, Tensor> f = Ember.compile(DataDependentOpsTest::rowsOf, Options.defaults().fullgraph(true));
        Unsupported u = assertThrows(Unsupported.class, () -> f.apply(Tensor.randn(4, 5), Tensor.randn(4, 5)));
        assertEquals("GB0021", u.gbId(), u.getMessage());
        assertTrue(u.getMessage().contains("aten.index.Tensor"), u.getMessage());
    }
}
