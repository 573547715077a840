package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.dynamo.ExplainOutput;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * index_put / index_put_ and advanced indexing (index.Tensor with integer indices, nulls and masks),
 * put / put_, against libtorch: values over dtypes and layouts, accumulate with repeated indices,
 * broadcast values, gradients, ATen's refusals, and compiled functions against eager.
 */
class IndexPutTest {
    private final Random rng = new Random(91);

    @AfterEach
    void reset() { Ember.reset(); }

    /** One indexing case: self's shape, the indices (nulls for whole dims), their TorchScript spelling with b, c, … for the tensors. */
    private record Case(String name, int[] self, List<Tensor> indices, String torchIndices) {}

    private static List<Tensor> idx(Tensor... perDim) { return Arrays.asList(perDim); }

    private List<Case> cases() {
        Tensor rows = Tensor.ofLongs(3, 0, -1), cols = Tensor.ofLongs(1, 2).reshape(2, 1), third = Tensor.ofLongs(4, 0, 2);
        Tensor mask = Tensor.of(new boolean[] {true, false, true, true, false}, 5);
        Tensor mask2 = Tensor.of(new boolean[] {true, false, false, true, true, false, true, false, false, false, true, true}, 4, 3);
        return List.of(
                new Case("rows", new int[] {5, 4}, idx(rows), "[b]"),
                new Case("int32 rows", new int[] {5, 4}, idx(rows.to(DType.INT32)), "[b]"),
                new Case("whole dim 0, then cols", new int[] {5, 4}, idx(null, Tensor.ofLongs(3, 1)), "[None, b]"),
                new Case("broadcast rows x cols", new int[] {5, 4}, idx(Tensor.ofLongs(0, 4, 2).reshape(3, 1), Tensor.ofLongs(1, -2)), "[b, c]"),
                new Case("apart: front", new int[] {4, 3, 5}, idx(Tensor.ofLongs(1, 3, 0), null, third), "[b, None, c]"),
                new Case("adjacent, in place", new int[] {4, 3, 5}, idx(null, cols, Tensor.ofLongs(0, 4, 1)), "[None, b, c]"),
                new Case("mask over dim 0", new int[] {5, 4}, idx(mask), "[b]"),
                new Case("mask over two dims", new int[] {4, 3, 2}, idx(mask2), "[b]"),
                new Case("mask then index", new int[] {5, 4}, idx(mask, Tensor.ofLongs(2, 0, 3)), "[b, c]"),
                new Case("empty index", new int[] {5, 4}, idx(Tensor.zeros(DType.INT64, 0)), "[b]"),
                new Case("0-d index", new int[] {5, 4}, idx(Tensor.scalar(2L)), "[b]"));
    }

    /** {@code [b, None, c]} as Python's subscript {@code a[b, :, c]}. */
    private static String subscript(String indices) { return "a[" + indices.substring(1, indices.length() - 1).replace("None", ":") + "]"; }

    private static Object[] torchArgs(Tensor self, Case c, Tensor values) {
        List<Object> out = new java.util.ArrayList<>(List.of(self));
        for (Tensor t : c.indices()) if (t != null) out.add(t);
        if (values != null) out.add(values);
        return out.toArray();
    }

    /** The letter of the argument after self and the non-null indices. */
    private static String valuesName(Case c) { return String.valueOf((char) ('b' + c.indices().stream().filter(t -> t != null).count())); }

    @Test
    void indexReadsAsLibtorch() {
        try (NDManager m = Torch.scope()) {
            for (Case c : cases()) {
                for (DType d : new DType[] {DType.FLOAT32, DType.INT64, DType.BOOL}) {
                    Tensor x = d == DType.BOOL ? Inputs.randn(rng, DType.FLOAT32, c.self()).gt(0.0) : Inputs.randn(rng, DType.FLOAT32, c.self()).mul(10.0).to(d);
                    for (Inputs.Layout in : Inputs.layouts(x)) {
                        assertClose(in.tensor().index(c.indices()), Torch.call(m, subscript(c.torchIndices()), torchArgs(in.tensor(), c, null)),
                                c.name() + " " + d + " " + in);
                    }
                }
            }
        }
    }

    @Test
    void indexPutWritesAsLibtorch() {
        try (NDManager m = Torch.scope()) {
            for (Case c : cases()) {
                int[] indexed = Tensor.zeros(c.self()).index(c.indices()).shape();
                for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.INT64, DType.BOOL}) {
                    Tensor x = values(d, c.self());
                    // values of the indexed shape, broadcast along the leading dims, and a 0-d value
                    int[] trailing = indexed.length == 0 ? new int[0] : Arrays.copyOfRange(indexed, 1, indexed.length);
                    for (Tensor v : List.of(values(d, indexed), values(d, trailing), values(d))) {
                        String expr = "torch.index_put(a, " + c.torchIndices() + ", " + valuesName(c) + ")";
                        for (Inputs.Layout in : Inputs.layouts(x)) {
                            String what = c.name() + " " + d + " " + in + " values " + Arrays.toString(v.shape());
                            assertClose(in.tensor().indexPut(c.indices(), v), Torch.call(m, expr, torchArgs(in.tensor(), c, v)), what);
                            Tensor target = in.tensor().clone();
                            assertSame(target, target.indexPut_(c.indices(), v), what + " returns self");
                            assertClose(target, Torch.call(m, expr, torchArgs(in.tensor(), c, v)), what + " in place");
                        }
                    }
                }
            }
        }
    }

    private Tensor values(DType d, int... shape) {
        Tensor f = Inputs.randn(rng, DType.FLOAT32, shape);
        return d == DType.BOOL ? f.gt(0.0) : d.isFloatingPoint() ? f.to(d) : f.mul(10.0).to(d);
    }

    @Test
    void accumulateSumsRepeatedIndices() {
        try (NDManager m = Torch.scope()) {
            Tensor repeated = Tensor.ofLongs(0, 2, 0, -5, 4, 2, 0);
            for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.INT64}) {
                Tensor x = values(d, 5, 3), v = values(d, 7, 3), row = values(d, 3);
                assertClose(x.indexPut(idx(repeated), v, true), Torch.call(m, "torch.index_put(a, [b], c, True)", x, repeated, v), "rows " + d);
                assertClose(x.indexPut(idx(repeated), row, true), Torch.call(m, "torch.index_put(a, [b], c, True)", x, repeated, row), "one row broadcast " + d);
                Tensor cols = Tensor.ofLongs(1, 1, 2, 1, 0, 1, 1);
                Tensor pairs = values(d, 7);
                assertClose(x.indexPut(idx(repeated, cols), pairs, true), Torch.call(m, "torch.index_put(a, [b, c], d, True)", x, repeated, cols, pairs), "pairs " + d);
                Tensor t = x.transpose(0, 1).clone().transpose(0, 1), columns = cols.narrow(0, 0, 3), strided = values(d, 5, 6).narrow(1, 1, 3);
                t.indexPut_(idx(null, columns), strided, true);
                assertClose(t, Torch.call(m, "torch.index_put(a, [None, b], c, True)", x, columns, strided), "strided self and values " + d);
            }
        }
    }

    @Test
    void gradientsMatchLibtorch() {
        Tensor rows = Tensor.ofLongs(3, 0, -1, 0), cols = Tensor.ofLongs(1, 2, 0, 2);
        for (boolean accumulate : new boolean[] {false, true}) {
            for (List<Tensor> indices : List.of(idx(Tensor.ofLongs(3, 0, -1)), idx(null, Tensor.ofLongs(2, 0)), idx(rows, cols))) {
                boolean repeats = indices.size() == 2 && indices.get(0) != null;
                if (repeats && !accumulate) continue;   // which repeated write wins is not part of ATen's contract
                Tensor x = Inputs.randn(rng, DType.FLOAT64, 4, 3);
                Tensor probe = x.index(indices);
                Tensor v = Inputs.randn(rng, DType.FLOAT64, Arrays.copyOfRange(probe.shape(), 1, probe.dim()));   // broadcast along dim 0
                Tensor xs = x.detach().requiresGrad(true), vs = v.detach().requiresGrad(true);
                Tensor y = xs.mul(2.0).indexPut(indices, vs, accumulate).sin().sum();
                List<Tensor> got = Autograd.grad(List.of(y), List.of(xs, vs), null, false, false, false);
                StringBuilder torchIdx = new StringBuilder("[");
                List<Object> args = new java.util.ArrayList<>(List.of(x, v));
                char name = 'c';
                for (Tensor t : indices) {
                    if (torchIdx.length() > 1) torchIdx.append(", ");
                    if (t == null) torchIdx.append("None");
                    else {
                        torchIdx.append(name++);
                        args.add(t);
                    }
                }
                torchIdx.append("]");
                String body = "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\n"
                        + "y = torch.index_put(a * 2.0, " + torchIdx + ", b, " + (accumulate ? "True" : "False") + ").sin().sum()\nreturn torch.autograd.grad([y], [a, b])";
                try (NDManager m = Torch.scope()) {
                    var want = Torch.callListWithGrad(m, body, args.toArray());
                    assertClose(got.get(0), want.get(0), "self's gradient " + torchIdx + " accumulate " + accumulate);
                    assertClose(got.get(1), want.get(1), "values' gradient " + torchIdx + " accumulate " + accumulate);
                }
            }
        }
    }

    @Test
    void indexGradientSumsRepeats() {
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 4, 3), rows = Tensor.ofLongs(3, 0, 3, 3);
        Tensor xs = x.detach().requiresGrad(true);
        Tensor g = Autograd.grad(List.of(xs.index(idx(rows, null)).exp().sum()), List.of(xs), null, false, false, false).getFirst();
        try (NDManager m = Torch.scope()) {
            var want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\ny = a[b].exp().sum()\nreturn torch.autograd.grad([y], [a])", x, rows);
            assertClose(g, want.get(0), "index's gradient with a repeated row");
        }
    }

    @Test
    void badCallsAreRefusedAsLibtorch() {
        Tensor x = Tensor.randn(5, 4);
        try (NDManager m = Torch.scope()) {
            ScatterConformanceTest.refused(m, "dtype", () -> x.indexPut(idx(Tensor.ofLongs(1)), Tensor.zeros(DType.FLOAT64, 4)),
                    "torch.index_put(a, [b], c)", x, Tensor.ofLongs(1), Tensor.zeros(DType.FLOAT64, 4));
            ScatterConformanceTest.refused(m, "values shape", () -> x.indexPut(idx(Tensor.ofLongs(1, 2)), Tensor.zeros(3)),
                    "torch.index_put(a, [b], c)", x, Tensor.ofLongs(1, 2), Tensor.zeros(3));
            ScatterConformanceTest.refused(m, "out of bounds", () -> x.indexPut(idx(Tensor.ofLongs(1, 5)), Tensor.zeros(4)),
                    "torch.index_put(a, [b], c)", x, Tensor.ofLongs(1, 5), Tensor.zeros(4));
            ScatterConformanceTest.refused(m, "negative out of bounds", () -> x.indexPut(idx(null, Tensor.ofLongs(-5)), Tensor.zeros(1)),
                    "torch.index_put(a, [None, b], c)", x, Tensor.ofLongs(-5), Tensor.zeros(1));
            ScatterConformanceTest.refused(m, "too many", () -> x.indexPut(idx(Tensor.ofLongs(1), Tensor.ofLongs(1), Tensor.ofLongs(0)), Tensor.zeros(1)),
                    "torch.index_put(a, [b, b, c], d)", x, Tensor.ofLongs(1), Tensor.ofLongs(0), Tensor.zeros(1));
            ScatterConformanceTest.refused(m, "float index", () -> x.indexPut(idx(Tensor.zeros(2)), Tensor.zeros(4)),
                    "torch.index_put(a, [b], c)", x, Tensor.zeros(2), Tensor.zeros(4));
            Tensor badMask = Tensor.of(new boolean[] {true, false, true}, 3);
            ScatterConformanceTest.refused(m, "mask shape", () -> x.indexPut(idx(badMask), Tensor.zeros(4)),
                    "torch.index_put(a, [b], c)", x, badMask, Tensor.zeros(4));
            ScatterConformanceTest.refused(m, "indices broadcast", () -> x.index(idx(Tensor.ofLongs(0, 1), Tensor.ofLongs(0, 1, 2))),
                    "a[b, c]", x, Tensor.ofLongs(0, 1), Tensor.ofLongs(0, 1, 2));
            ScatterConformanceTest.refused(m, "index out of bounds", () -> x.index(idx(null, Tensor.ofLongs(4))),
                    "a[:, b]", x, Tensor.ofLongs(4));
        }
        // nothing is written when a later index is out of range
        Tensor y = Tensor.zeros(5);
        assertThrows(IndexOutOfBoundsException.class, () -> y.indexPut_(idx(Tensor.ofLongs(0, 9)), Tensor.ones(2)));
        assertEquals(0.0, y.sum().item());
    }

    // ------------------------------------------------------------------ put

    @Test
    void putMatchesLibtorch() {
        try (NDManager m = Torch.scope()) {
            Tensor index = Tensor.ofLongs(0, 11, -1, 5, 0, 6).reshape(2, 3);
            for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64, DType.INT32, DType.INT64}) {
                Tensor x = values(d, 3, 4), source = values(d, 6);
                for (Inputs.Layout in : Inputs.layouts(x)) {
                    assertClose(in.tensor().put(index, source, true), Torch.call(m, "torch.put(a, b, c, True)", in.tensor(), index, source), "put accumulate " + d + " " + in);
                    Tensor distinct = Tensor.ofLongs(0, 11, -2, 5);
                    Tensor s4 = source.narrow(0, 0, 4).reshape(2, 2);
                    assertClose(in.tensor().put(distinct, s4, false), Torch.call(m, "torch.put(a, b, c)", in.tensor(), distinct, s4), "put " + d + " " + in);
                    Tensor t = in.tensor().clone();
                    assertSame(t, t.put_(index, source, true));
                    assertClose(t, Torch.call(m, "a.put_(b, c, True)", in.tensor().clone(), index, source), "put_ " + d + " " + in);
                }
            }
            Tensor scalar = Tensor.scalar(3.0);
            assertClose(scalar.put(Tensor.ofLongs(0), Tensor.of(5.0f), false), Torch.call(m, "torch.put(a, b, c)", scalar, Tensor.ofLongs(0), Tensor.of(5.0f)), "0-d self");
            Tensor x = Tensor.randn(3, 4);
            ScatterConformanceTest.refused(m, "put out of range", () -> x.put(Tensor.ofLongs(12), Tensor.ones(1), false), "torch.put(a, b, c)", x, Tensor.ofLongs(12), Tensor.ones(1));
            ScatterConformanceTest.refused(m, "put counts", () -> x.put(Tensor.ofLongs(1, 2), Tensor.ones(3), false), "torch.put(a, b, c)", x, Tensor.ofLongs(1, 2), Tensor.ones(3));
            ScatterConformanceTest.refused(m, "put dtype", () -> x.put(Tensor.ofLongs(1), Tensor.ones(DType.FLOAT64, 1), false),
                    "torch.put(a, b, c)", x, Tensor.ofLongs(1), Tensor.ones(DType.FLOAT64, 1));
            ScatterConformanceTest.refused(m, "put int index", () -> x.put(Tensor.of(new int[] {1}, 1), Tensor.ones(1), false),
                    "torch.put(a, b, c)", x, Tensor.of(new int[] {1}, 1), Tensor.ones(1));
        }
    }

    @Test
    void putGradientsMatchLibtorch() {
        Tensor x = Inputs.randn(rng, DType.FLOAT64, 3, 4), s = Inputs.randn(rng, DType.FLOAT64, 2, 2), index = Tensor.ofLongs(7, 0, -1, 7).reshape(2, 2);
        for (boolean accumulate : new boolean[] {true, false}) {
            Tensor ix = accumulate ? index : Tensor.ofLongs(7, 0, -1, 3).reshape(2, 2);
            Tensor xs = x.detach().requiresGrad(true), ss = s.detach().requiresGrad(true);
            List<Tensor> got = Autograd.grad(List.of(xs.put(ix, ss, accumulate).cos().sum()), List.of(xs, ss), null, false, false, false);
            String body = "a = a.detach().requires_grad_(True)\nb = b.detach().requires_grad_(True)\ny = torch.put(a, c, b, " + (accumulate ? "True" : "False")
                    + ").cos().sum()\nreturn torch.autograd.grad([y], [a, b])";
            try (NDManager m = Torch.scope()) {
                var want = Torch.callListWithGrad(m, body, x, s, ix);
                assertClose(got.get(0), want.get(0), "self accumulate " + accumulate);
                assertClose(got.get(1), want.get(1), "source accumulate " + accumulate);
            }
        }
    }

    /** docs/tensors.md, "Training ops", the advanced-indexing example as written there. */
    @Test
    void docsExample() {
        Tensor x = Tensor.zeros(4, 3), rows = Tensor.ofLongs(3, 0, 3);
        x.indexPut_(List.of(rows), Tensor.ones(3), true);
        x.indexPut_(Arrays.asList(null, Tensor.ofLongs(2)), 7.0);
        Tensor picked = x.index(Arrays.asList(Tensor.ofLongs(0, 3), Tensor.ofLongs(1, 2)));
        Tensor flat = x.put(Tensor.ofLongs(0, -1), Tensor.of(5f, 6f), false);
        assertClose(x, Tensor.of(new float[] {1, 1, 7, 0, 0, 7, 0, 0, 7, 2, 2, 7}, 4, 3), "x");
        assertClose(picked, Tensor.of(1f, 7f), "picked");
        assertEquals(5.0, flat.get(0, 0));
        assertEquals(6.0, flat.get(3, 2));
    }

    // ------------------------------------------------------------------ compiled

    static Tensor scatterRows(Tensor x, Tensor rows, Tensor v) { return x.mul(2.0).indexPut(List.of(rows), v.relu(), true).sin(); }

    static Tensor setColumns(Tensor x, Tensor cols, Tensor v) {
        Tensor y = x.add(1.0);
        y.indexPut_(Arrays.asList(null, cols), v);
        return y.put(cols, v.narrow(0, 0, 1).reshape(-1), false).mul(3.0);
    }

    /** Python's {@code y[y < 0] = 0} and {@code y[mask] = v}: a bool mask, whose count only the data gives, in one graph (index_put's shape is self's). */
    static Tensor zeroNegatives(Tensor x, Tensor mask, Tensor v) {
        Tensor y = x.mul(2.0);
        y.indexPut_(List.of(y.lt(0.0)), 0.0);
        return y.indexPut(List.of(mask), v.sum(0)).add(1.0);
    }

    /** Writes into its input, as {@code x[rows] += v} does in Python. */
    static Tensor addRowsInto(Tensor x, Tensor rows, Tensor v) {
        x.indexPut_(List.of(rows), v, true);
        return x.sum();
    }

    @Test
    void compiledWriteIntoAnInputReachesIt() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 5, 4), rows = Tensor.ofLongs(4, 0, 4), v = Inputs.randn(rng, DType.FLOAT32, 3, 4);
        Tensor eager = x.clone(), compiledInput = x.clone();
        Tensor want = addRowsInto(eager, rows, v);
        var compiled = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) IndexPutTest::addRowsInto, Options.backend("inductor").fullgraph(true));
        assertClose(compiled.apply(compiledInput, rows, v), want, "the sum", TorchAssert.Tolerance.of(0, 0));
        assertClose(compiledInput, eager, "the input written", TorchAssert.Tolerance.of(0, 0));
    }

    @Test
    void compiledGivesEagersResult() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 5, 4), rows = Tensor.ofLongs(4, 0, 4, 1), v = Inputs.randn(rng, DType.FLOAT32, 4, 4);
        var compiled = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) IndexPutTest::scatterRows, Options.backend("inductor").fullgraph(true));
        assertClose(compiled.apply(x, rows, v), scatterRows(x, rows, v), "index_put accumulate, compiled", TorchAssert.Tolerance.of(0, 0));
        Tensor cols = Tensor.ofLongs(3, 1), w = Inputs.randn(rng, DType.FLOAT32, 5, 2);
        var compiled2 = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) IndexPutTest::setColumns, Options.backend("inductor").fullgraph(true));
        assertClose(compiled2.apply(x, cols, w), setColumns(x, cols, w), "index_put_ with a null and put, compiled", TorchAssert.Tolerance.of(0, 0));
        Tensor mask = Tensor.of(new boolean[] {true, false, true, true, false}, 5), rowsOfFour = Inputs.randn(rng, DType.FLOAT32, 3, 4);
        var compiled3 = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) IndexPutTest::zeroNegatives, Options.backend("inductor").fullgraph(true));
        assertClose(compiled3.apply(x, mask, rowsOfFour), zeroNegatives(x, mask, rowsOfFour), "masks, compiled", TorchAssert.Tolerance.of(0, 0));
        Tensor other = Tensor.of(new boolean[] {false, false, true, false, false}, 5);
        assertClose(compiled3.apply(x, other, rowsOfFour), zeroNegatives(x, other, rowsOfFour), "another mask, same graph", TorchAssert.Tolerance.of(0, 0));
    }

    /** {@code x[rows][:, cols]} with integer positions: its shape is the positions' shape, so it stays in the graph. */
    static Tensor gatherRowsAndColumns(Tensor x, Tensor rows, Tensor cols) {
        Tensor y = x.mul(2.0).index(List.of(rows));
        return y.index(Arrays.asList(null, cols)).add(y.index(List.of(rows.narrow(0, 1, 2), cols.narrow(0, 0, 2))).sum()).relu();
    }

    static Tensor maskedRead(Tensor x, Tensor mask) { return x.mul(2.0).index(List.of(mask)).sum(); }

    @Test
    void integerIndexingStaysInTheGraphAndAMaskBreaksIt() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 5, 4), rows = Tensor.ofLongs(4, 0, -1, 1), cols = Tensor.ofLongs(3, 1, 0);
        var compiled = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) IndexPutTest::gatherRowsAndColumns, Options.backend("inductor").fullgraph(true));
        assertClose(compiled.apply(x, rows, cols), gatherRowsAndColumns(x, rows, cols), "x[rows][:, cols], compiled in one graph", TorchAssert.Tolerance.of(0, 0));
        // and trains through it: index's gradient is index_put with accumulate (rows repeat 4 and -1)
        var training = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) IndexPutTest::gatherRowsAndColumns, Options.backend("aot_eager").fullgraph(true));
        Tensor xe = x.detach().requiresGrad(true), xc = x.detach().requiresGrad(true);
        gatherRowsAndColumns(xe, rows, cols).sum().backward();
        training.apply(xc, rows, cols).sum().backward();
        assertClose(xc.grad(), xe.grad(), "x's gradient through x[rows], compiled");
        // a mask's count only its values give: the graph breaks there, as Dynamo's does, and the result is eager's
        Tensor mask = Tensor.of(new boolean[] {true, false, true, true, false}, 5);
        ExplainOutput explain = Ember.explain((Fn2<Tensor, Tensor, Tensor>) IndexPutTest::maskedRead).with(x, mask);
        assertTrue(explain.graphBreakCount() >= 1 && explain.toString().contains("aten.index.Tensor"), explain.toString());
        assertClose(Ember.compile((Fn2<Tensor, Tensor, Tensor>) IndexPutTest::maskedRead).apply(x, mask), maskedRead(x, mask), "x[mask], compiled");
    }

    @Test
    void compiledTrainingGivesEagersGradients() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 5, 4), rows = Tensor.ofLongs(4, 0, 4, 1), v = Inputs.randn(rng, DType.FLOAT32, 4, 4);
        var compiled = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) IndexPutTest::scatterRows, Options.backend("aot_eager").fullgraph(true));
        Tensor xe = x.detach().requiresGrad(true), ve = v.detach().requiresGrad(true), xc = x.detach().requiresGrad(true), vc = v.detach().requiresGrad(true);
        scatterRows(xe, rows, ve).sum().backward();
        compiled.apply(xc, rows, vc).sum().backward();
        assertClose(xc.grad(), xe.grad(), "x's gradient, compiled");
        assertClose(vc.grad(), ve.grad(), "v's gradient, compiled");
    }
}
