package dev.ember.ops;

import ai.djl.ndarray.NDList;
import dev.ember.Ember;
import dev.ember.autograd.GradCheck;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The everyday shape and creation composites (tensor_split, atleast_1d/2d/3d, hstack, vstack,
 * dstack, column_stack, block_diag, diag_embed, tril_indices, triu_indices, cartesian_prod,
 * combinations, vander) against libtorch over dtypes, 0-d and empty inputs, negative dims and
 * non-contiguous layouts; ATen's refusals, message for message with libtorch's; gradients against
 * finite differences; and Ember.compile giving eager's result in one graph.
 */
class EverydayShapeOpsTest {
    private static final List<DType> DTYPES = List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32, DType.BOOL);

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    private static Tensor sample(Random rng, DType dtype, int... shape) { return CompositeShapeOpsTest.sample(rng, dtype, shape); }

    /** Ember refuses with {@code type}, its message holding {@code words}, and libtorch refuses {@code torchExpr} with the same words (NumpyStyleOpsTest too). */
    static void sameRefusal(Class<? extends Throwable> type, String words, Executable ember, String torchExpr, Object... args) {
        Throwable e = assertThrows(type, ember, words);
        String torch = assertThrows(RuntimeException.class, () -> Torch.call(torchExpr, args), torchExpr).getMessage();
        assertTrue(e.getMessage().contains(words), "Ember: " + e.getMessage());
        assertTrue(torch.contains(words), "libtorch: " + torch);
    }

    @Test
    void tensorSplitMatchesLibtorch() {
        Random rng = new Random(1);
        for (DType d : DTYPES) {
            for (int[] shape : List.of(new int[] {7}, new int[] {5, 6}, new int[] {2, 3, 4}, new int[] {0, 3})) {
                for (Inputs.Layout in : Inputs.layouts(sample(rng, d, shape))) {
                    Tensor x = in.tensor();
                    String what = d + " " + Arrays.toString(shape) + " " + in;
                    for (int sections : new int[] {1, 2, 3, 8}) {
                        for (int dim : new int[] {0, -1}) {
                            assertClose(x.tensorSplit(sections, dim), Torch.callList("torch.tensor_split(a, " + sections + ", " + dim + ")", x), "sections " + sections + " dim " + dim + " " + what);
                        }
                    }
                    for (int[] cuts : List.of(new int[] {2}, new int[] {1, 4}, new int[] {-2, 9}, new int[] {4, 1}, new int[0], new int[] {0, 0, 3})) {
                        assertClose(x.tensorSplit(cuts, -1), Torch.callList("torch.tensor_split(a, b, -1)", x, cuts), "indices " + Arrays.toString(cuts) + " " + what);
                    }
                }
            }
        }
        Tensor x = Tensor.randn(6, 2);
        for (Tensor piece : x.tensorSplit(4, 0)) assertSame(x.storage(), piece.storage(), "tensor_split gives views, as ATen's");
    }

    @Test
    void tensorSplitRefusesAsAten() {
        Tensor scalar = Tensor.scalar(1.0), x = Tensor.randn(3, 4);
        sameRefusal(IllegalArgumentException.class, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims",
                () -> scalar.tensorSplit(2), "torch.tensor_split(a, 2)", scalar);
        sameRefusal(IllegalArgumentException.class, "number of sections must be larger than 0, got 0", () -> x.tensorSplit(0), "torch.tensor_split(a, 0)", x);
        sameRefusal(IndexOutOfBoundsException.class, "Dimension out of range", () -> x.tensorSplit(2, 2), "torch.tensor_split(a, 2, 2)", x);
    }

    @Test
    void atleastAndStacksMatchLibtorch() {
        Random rng = new Random(2);
        for (DType d : DTYPES) {
            for (int[] shape : List.of(new int[0], new int[] {4}, new int[] {2, 4}, new int[] {2, 3, 4}, new int[] {0})) {
                Tensor x = sample(rng, d, shape);
                String what = d + " " + Arrays.toString(shape);
                assertClose(x.atleast1d(), Torch.call("torch.atleast_1d(a)", x), "atleast_1d " + what);
                assertClose(x.atleast2d(), Torch.call("torch.atleast_2d(a)", x), "atleast_2d " + what);
                assertClose(x.atleast3d(), Torch.call("torch.atleast_3d(a)", x), "atleast_3d " + what);
            }
            for (int[][] shapes : List.of(new int[][] {{3}, {2}}, new int[][] {{}, {}}, new int[][] {{2, 3}, {2, 1}}, new int[][] {{2, 3, 4}, {2, 1, 4}}, new int[][] {{0}, {3}})) {
                List<Tensor> ts = new ArrayList<>();
                for (int[] s : shapes) ts.add(sample(rng, d, s));
                assertClose(Tensor.hstack(ts), Torch.call("torch.hstack(a)", ts), "hstack " + d + " " + Arrays.deepToString(shapes));
            }
            for (int[][] shapes : List.of(new int[][] {{3}, {3}}, new int[][] {{}, {}}, new int[][] {{2, 3}, {1, 3}}, new int[][] {{3}, {4, 3}})) {
                List<Tensor> ts = new ArrayList<>();
                for (int[] s : shapes) ts.add(sample(rng, d, s));
                assertClose(Tensor.vstack(ts), Torch.call("torch.vstack(a)", ts), "vstack " + d + " " + Arrays.deepToString(shapes));

            }
            for (int[][] shapes : List.of(new int[][] {{3}, {3}}, new int[][] {{}, {}}, new int[][] {{2, 3}, {2, 3}}, new int[][] {{2, 3, 1}, {2, 3, 2}}, new int[][] {{2}, {1, 2, 3}})) {
                List<Tensor> ts = new ArrayList<>();
                for (int[] s : shapes) ts.add(sample(rng, d, s));
                assertClose(Tensor.dstack(ts), Torch.call("torch.dstack(a)", ts), "dstack " + d + " " + Arrays.deepToString(shapes));
            }
            for (int[][] shapes : List.of(new int[][] {{3}, {3, 2}, {3}}, new int[][] {{}, {}}, new int[][] {{4, 1}, {4}})) {
                List<Tensor> ts = new ArrayList<>();
                for (int[] s : shapes) ts.add(sample(rng, d, s));
                assertClose(Tensor.columnStack(ts), Torch.call("torch.column_stack(a)", ts), "column_stack " + d + " " + Arrays.deepToString(shapes));
            }
        }
        // dtypes promote as cat's
        List<Tensor> mixed = List.of(Tensor.ofLongs(1, 2), Tensor.of(0.5f, 1.5f), Tensor.of(new boolean[] {true, false}, 2));
        assertClose(Tensor.hstack(mixed), Torch.call("torch.hstack(a)", mixed), "hstack promotes");
        assertClose(Tensor.vstack(mixed), Torch.call("torch.vstack(a)", mixed), "vstack promotes");
        assertClose(Tensor.dstack(mixed), Torch.call("torch.dstack(a)", mixed), "dstack promotes");
        assertClose(Tensor.columnStack(mixed), Torch.call("torch.column_stack(a)", mixed), "column_stack promotes");
        Tensor x = Tensor.randn(2, 3);
        assertSame(x, x.atleast2d(), "a tensor with enough dims is returned as it is, as ATen's");
    }

    @Test
    void stacksRefuseAsAten() {
        List<Tensor> none = List.of();
        sameRefusal(IllegalArgumentException.class, "hstack expects a non-empty TensorList", () -> Tensor.hstack(none), "torch.hstack(a)", none);
        sameRefusal(IllegalArgumentException.class, "vstack expects a non-empty TensorList", () -> Tensor.vstack(none), "torch.vstack(a)", none);
        sameRefusal(IllegalArgumentException.class, "dstack expects a non-empty TensorList", () -> Tensor.dstack(none), "torch.dstack(a)", none);
        sameRefusal(IllegalArgumentException.class, "column_stack expects a non-empty TensorList", () -> Tensor.columnStack(none), "torch.column_stack(a)", none);
        List<Tensor> ragged = List.of(Tensor.randn(2, 3), Tensor.randn(3, 3));
        sameRefusal(IllegalArgumentException.class, "Sizes of tensors must match except in dimension 1", () -> Tensor.hstack(ragged), "torch.hstack(a)", ragged);
    }

    @Test
    void blockDiagMatchesLibtorch() {
        Random rng = new Random(3);
        for (DType d : DTYPES) {
            Tensor a = sample(rng, d, 2, 3), b = sample(rng, d), c = sample(rng, d, 4), e = sample(rng, d, 0, 2), f = sample(rng, d, 3, 0);
            assertClose(Tensor.blockDiag(a, b, c, e, f), Torch.call("torch.block_diag(a, b, c, d, e)", a, b, c, e, f), "block_diag " + d);
            assertClose(Tensor.blockDiag(Inputs.nonContiguous(a)), Torch.call("torch.block_diag(a)", Inputs.nonContiguous(a)), "one non-contiguous block " + d);
        }
        Tensor i = Tensor.ofLongs(1, 2), f = Tensor.of(new float[] {0.5f, 1, 2, 3}, 2, 2), bool = Tensor.of(new boolean[] {true}, 1);
        assertClose(Tensor.blockDiag(i, f, bool), Torch.call("torch.block_diag(a, b, c)", i, f, bool), "promoted to float32");
        assertClose(Tensor.blockDiag(), Torch.call("torch.block_diag(a)", List.of()), "no tensors: an empty [1, 0] float matrix");
        Tensor cube = Tensor.randn(1, 2, 2);
        sameRefusal(IllegalArgumentException.class, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 1 has 3 dimensions",
                () -> Tensor.blockDiag(f, cube), "torch.block_diag(a, b)", f, cube);
    }

    @Test
    void diagEmbedMatchesLibtorch() {
        Random rng = new Random(4);
        for (DType d : DTYPES) {
            for (int[] shape : List.of(new int[] {3}, new int[] {2, 4}, new int[] {2, 1, 3}, new int[] {0}, new int[] {2, 0})) {
                for (Inputs.Layout in : Inputs.layouts(sample(rng, d, shape))) {
                    Tensor x = in.tensor();
                    String what = d + " " + Arrays.toString(shape) + " " + in;
                    assertClose(x.diagEmbed(), Torch.call("torch.diag_embed(a)", x), "diag_embed " + what);
                    for (int k : new int[] {-2, 1, 3}) {
                        assertClose(x.diagEmbed(k, -2, -1), Torch.call("torch.diag_embed(a, " + k + ")", x), "offset " + k + " " + what);
                        assertClose(x.diagEmbed(k, 0, -1), Torch.call("torch.diag_embed(a, " + k + ", 0, -1)", x), "dims 0, -1 offset " + k + " " + what);
                        assertClose(x.diagEmbed(k, -1, 0), Torch.call("torch.diag_embed(a, " + k + ", -1, 0)", x), "dims -1, 0 offset " + k + " " + what);
                        if (shape.length > 1) {
                            assertClose(x.diagEmbed(k, 1, 0), Torch.call("torch.diag_embed(a, " + k + ", 1, 0)", x), "dims 1, 0 offset " + k + " " + what);
                        }
                    }
                }
            }
        }
        Tensor x = Tensor.randn(2, 3);
        sameRefusal(IllegalArgumentException.class, "diagonal dimensions cannot be identical 1, -2", () -> x.diagEmbed(0, 1, -2), "torch.diag_embed(a, 0, 1, -2)", x);
        sameRefusal(IndexOutOfBoundsException.class, "Dimension out of range", () -> x.diagEmbed(0, 3, 0), "torch.diag_embed(a, 0, 3, 0)", x);
        Tensor scalar = Tensor.scalar(2.0);
        sameRefusal(IndexOutOfBoundsException.class, "Dimension out of range (expected to be in range of [-1, 0], but got -2)", scalar::diagEmbed, "torch.diag_embed(a)", scalar);
        // a 0-d input has a 1-d result: its two dims are out of range or the same one
        sameRefusal(IllegalArgumentException.class, "diagonal dimensions cannot be identical 0, -1", () -> scalar.diagEmbed(0, 0, -1),
                "torch.diag_embed(a, 0, 0, -1)", scalar);
    }

    @Test
    void triangleIndicesMatchLibtorch() {
        for (int[] rc : List.of(new int[] {4, 4}, new int[] {3, 5}, new int[] {5, 2}, new int[] {0, 3}, new int[] {3, 0}, new int[] {1, 1})) {
            for (int offset : new int[] {-7, -2, -1, 0, 1, 2, 6}) {
                String what = rc[0] + " x " + rc[1] + " offset " + offset;
                assertClose(Tensor.trilIndices(rc[0], rc[1], offset), Torch.call("torch.tril_indices(" + rc[0] + ", " + rc[1] + ", " + offset + ")"), "tril_indices " + what);
                assertClose(Tensor.triuIndices(rc[0], rc[1], offset), Torch.call("torch.triu_indices(" + rc[0] + ", " + rc[1] + ", " + offset + ")"), "triu_indices " + what);
            }
        }
        assertClose(Tensor.trilIndices(3, 4, 1, DType.INT32), Torch.call("torch.tril_indices(3, 4, 1, dtype=torch.int32)"), "int32");
        sameRefusal(IllegalArgumentException.class, "\"triu_indices\" not implemented for 'Float'", () -> Tensor.triuIndices(4, 3, -1, DType.FLOAT32),
                "torch.triu_indices(4, 3, -1, dtype=torch.float32)");
        sameRefusal(IllegalArgumentException.class, "\"tril_indices\" not implemented for 'Bool'", () -> Tensor.trilIndices(4, 3, -1, DType.BOOL),
                "torch.tril_indices(4, 3, -1, dtype=torch.bool)");
        assertEquals(DType.INT64, Tensor.trilIndices(2, 2).dtype());
        sameRefusal(IllegalArgumentException.class, "row must be non-negative, got-1", () -> Tensor.trilIndices(-1, 2), "torch.tril_indices(-1, 2)");
        sameRefusal(IllegalArgumentException.class, "col must be non-negative, got-3", () -> Tensor.triuIndices(2, -3), "torch.triu_indices(2, -3)");
    }

    @Test
    void cartesianProdAndCombinationsMatchLibtorch() {
        Random rng = new Random(5);
        for (DType d : DTYPES) {
            Tensor a = sample(rng, d, 3), b = sample(rng, d, 2), c = sample(rng, d, 4), empty = sample(rng, d, 0);
            assertClose(Tensor.cartesianProd(a, b, c), Torch.call("torch.cartesian_prod(a, b, c)", a, b, c), "cartesian_prod " + d);
            assertClose(Tensor.cartesianProd(a, empty), Torch.call("torch.cartesian_prod(a, b)", a, empty), "with an empty vector " + d);
            Tensor column = Inputs.nonContiguous(sample(rng, d, 3, 2)).select(1, 0);
            assertClose(Tensor.cartesianProd(column), Torch.call("torch.cartesian_prod(a)", column), "one vector " + d);
            for (int n : new int[] {0, 1, 2, 5}) {
                Tensor x = sample(rng, d, n);
                for (int r = 0; r <= 4; r++) {
                    for (boolean repl : new boolean[] {false, true}) {
                        assertClose(x.combinations(r, repl), Torch.call("torch.combinations(a, " + r + ", " + (repl ? "True" : "False") + ")", x),
                                "combinations n " + n + " r " + r + " replacement " + repl + " " + d);
                    }
                }
            }
        }
        Tensor x = Tensor.randn(6);
        assertClose(x.combinations(), Torch.call("torch.combinations(a)", x), "pairs");
        Tensor strided = Inputs.nonContiguous(Tensor.randn(5, 2)).select(1, 1);
        assertClose(strided.combinations(3, false), Torch.call("torch.combinations(a, 3)", strided), "non-contiguous");
        Tensor m = Tensor.randn(2, 2);
        sameRefusal(IllegalArgumentException.class, "Expect a 1D vector, but got shape [2, 2]", () -> Tensor.cartesianProd(m, x), "torch.cartesian_prod(a, b)", m, x);
        sameRefusal(IllegalArgumentException.class, "Expect a 1D vector, but got shape [2, 2]", () -> m.combinations(), "torch.combinations(a)", m);
        sameRefusal(IllegalArgumentException.class, "Expect a non-negative number, but got -1", () -> x.combinations(-1, false), "torch.combinations(a, -1)", x);
    }

    @Test
    void vanderMatchesLibtorch() {
        Random rng = new Random(6);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32, DType.BOOL)) {
            Tensor x = d.isFloatingPoint() ? Inputs.uniform(rng, d, -1.5, 1.5, 5) : sample(rng, d, 5);
            if (d.isIntegral()) x = x.remainder(5L).sub(2L).to(d);
            assertClose(x.vander(), Torch.call("torch.vander(a)", x), "vander " + d);
            for (int n : new int[] {0, 1, 2, 4}) {
                assertClose(x.vander(n, false), Torch.call("torch.vander(a, " + n + ")", x), "N " + n + " " + d);
                assertClose(x.vander(n, true), Torch.call("torch.vander(a, " + n + ", True)", x), "N " + n + " increasing " + d);
            }
        }
        Tensor empty = Tensor.zeros(0), m = Tensor.randn(2, 2), v = Tensor.randn(3);
        assertClose(empty.vander(), Torch.call("torch.vander(a)", empty), "empty");
        sameRefusal(IllegalArgumentException.class, "x must be a one-dimensional tensor.", m::vander, "torch.vander(a)", m);
        sameRefusal(IllegalArgumentException.class, "N must be non-negative.", () -> v.vander(-1, false), "torch.vander(a, -1)", v);
    }

    @Test
    void gradientsMatchFiniteDifferences() {
        Tensor x = Tensor.randn(3, 4).to(DType.FLOAT64).requiresGrad(true);
        Tensor v = Tensor.randn(4).to(DType.FLOAT64).requiresGrad(true);
        Tensor w = Tensor.randn(3).to(DType.FLOAT64).requiresGrad(true);
        Tensor s = Tensor.randn().to(DType.FLOAT64).requiresGrad(true);
        GradCheck.check(in -> Tensor.stack(in.get(0).tensorSplit(3, 1).stream().map(t -> t.sum()).toList(), 0), x);
        GradCheck.check(in -> in.get(0).tensorSplit(new int[] {1, -1}, 0).get(1).mul(2.0), x);
        GradCheck.check(in -> Tensor.hstack(List.of(in.get(0), in.get(1), in.get(2).atleast1d())), v, w, s);
        GradCheck.check(in -> Tensor.vstack(List.of(in.get(0), in.get(1))), x, v);
        GradCheck.check(in -> Tensor.dstack(List.of(in.get(0), in.get(0).mul(in.get(1)))), x, v);
        GradCheck.check(in -> Tensor.columnStack(List.of(in.get(0), in.get(1))), w, x);
        GradCheck.check(in -> Tensor.blockDiag(in.get(0), in.get(1), in.get(2)), x, v, s);
        GradCheck.check(in -> in.get(0).diagEmbed(1, 0, 2), x);
        GradCheck.check(in -> in.get(0).diagEmbed(-2, -1, -2), v);
        GradCheck.check(in -> Tensor.cartesianProd(in.get(0), in.get(1)), v, w);
        GradCheck.check(in -> in.get(0).combinations(3, true), v);
        GradCheck.check(in -> in.get(0).combinations(), w);
        GradCheck.check(in -> in.get(0).vander(4, false), w);
    }

    /** Every op of this class in one function, its results flattened into one vector. */
    static Tensor everyday(Tensor x, Tensor v) {
        List<Tensor> parts = new ArrayList<>();
        parts.addAll(x.tensorSplit(3, 1));
        parts.addAll(x.tensorSplit(new int[] {1, -1}, 0));
        parts.add(Tensor.hstack(List.of(v, v.mul(2.0))));
        parts.add(Tensor.vstack(List.of(x, v.narrow(0, 0, 4))));
        parts.add(Tensor.dstack(List.of(x, x.neg())));
        parts.add(Tensor.columnStack(List.of(v.narrow(0, 0, 3), x)));
        parts.add(Tensor.blockDiag(x, v.narrow(0, 0, 2), v.sum()));
        parts.add(v.diagEmbed(1, 0, 1));
        parts.add(x.diagEmbed(-1, 2, 0));
        parts.add(Tensor.trilIndices(3, 4, 1).to(DType.FLOAT32));
        parts.add(Tensor.triuIndices(4, 3, -1).to(DType.FLOAT32));
        parts.add(Tensor.cartesianProd(v.narrow(0, 0, 3), v.narrow(0, 2, 2)));
        parts.add(v.combinations());
        parts.add(v.combinations(3, true));
        parts.add(v.narrow(0, 0, 3).vander());
        parts.add(x.atleast3d().add(v.sum().atleast2d()));
        return CompiledOpsCheck.flattenedAndJoined(parts);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"aot_eager", "inductor"})
    void compiledMatchesEagerInOneGraph(String backend) {
        Tensor.manualSeed(11);
        Tensor x = Tensor.randn(3, 4), v = Tensor.randn(5);
        CompiledOpsCheck.oneGraphWithEagersValuesAndGradients(EverydayShapeOpsTest::everyday, x, v, backend, "x", "v");
    }
}
