package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static dev.ember.ops.PointwiseBinaryTest.atenMessage;
import static dev.ember.ops.PointwiseBinaryTest.check;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * scatter (src and value), scatter_add and index_add, functional, in place and out=, against
 * libtorch over every dtype, layouts of self, index and source, every dim, duplicate indices,
 * 0-d and empty indices; every refusal carries libtorch's message and writes nothing.
 */
class ScatterConformanceTest {

    static Tensor values(Random rng, DType d, int... shape) {
        return d.isFloatingPoint() ? Inputs.randn(rng, d, shape) : Inputs.randint(rng, d, d.isBool() ? 0 : -50, d.isBool() ? 2 : 50, shape);
    }

    static Stream<DType> everyDtype() { return Arrays.stream(DType.values()); }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyDtype")
    void scatterAndScatterAddMatchLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 21);
        try (NDManager m = Torch.scope()) {
            Tensor self = values(rng, d, 4, 5, 6), src = values(rng, d, 4, 5, 7);
            for (Inputs.Layout in : Inputs.layouts(self)) {
                Tensor t = in.tensor();
                for (int dim : new int[] {0, 1, -1}) {
                    int size = t.size(dim);
                    // few distinct positions, so most of them are written more than once
                    Tensor index = Inputs.randint(rng, DType.INT64, 0, Math.min(size, 3), 3, 4, 5), strided = Inputs.nonContiguous(index);
                    String ctx = d + " " + in + " dim " + dim;
                    check(m, "scatter " + ctx, () -> t.scatter(dim, index, src), "torch.scatter(a, " + dim + ", b, c)", t, index, src);
                    check(m, "scatter strided index " + ctx, () -> t.scatter(dim, strided, Inputs.nonContiguous(src)), "torch.scatter(a, " + dim + ", b, c)", t, strided, src);
                    check(m, "scatter value " + ctx, () -> t.scatter(dim, index, -2.5), "torch.scatter(a, " + dim + ", b, -2.5)", t, index);
                    check(m, "scatter long value " + ctx, () -> t.scatter(dim, index, 3L), "torch.scatter(a, " + dim + ", b, 3)", t, index);
                    check(m, "scatter_add " + ctx, () -> t.scatterAdd(dim, index, src), "torch.scatter_add(a, " + dim + ", b, c)", t, index, src);
                    for (String reduce : new String[] {"add", "multiply"}) {
                        check(m, "scatter reduce " + reduce + " " + ctx, () -> t.scatter(dim, index, src, reduce), "torch.scatter(a, " + dim + ", b, c, reduce='" + reduce + "')", t, index, src);
                        check(m, "scatter value reduce " + reduce + " " + ctx, () -> t.scatter(dim, index, 1.5, reduce), "torch.scatter(a, " + dim + ", b, 1.5, reduce='" + reduce + "')", t, index);
                        check(m, "scatter_ reduce " + reduce + " " + ctx, () -> OpRegistry.get("aten.scatter_.reduce").callTensor(t.clone(), (long) dim, index, src, reduce),
                                "a.clone().scatter_(" + dim + ", b, c, reduce='" + reduce + "')", t, index, src);
                    }
                    check(m, "scatter_ " + ctx, () -> t.clone().scatter_(dim, index, src), "a.clone().scatter_(" + dim + ", b, c)", t, index, src);
                    check(m, "scatter_add_ " + ctx, () -> t.clone().scatterAdd_(dim, index, src), "a.clone().scatter_add_(" + dim + ", b, c)", t, index, src);
                }
            }
            Tensor scalar = values(rng, d), zero = Tensor.scalar(0L), scalarSrc = values(rng, d);
            check(m, "0-d " + d, () -> scalar.scatter(0, zero, scalarSrc), "torch.scatter(a, 0, b, c)", scalar, zero, scalarSrc);
            check(m, "0-d add " + d, () -> scalar.scatterAdd(0, zero, scalarSrc), "torch.scatter_add(a, 0, b, c)", scalar, zero, scalarSrc);
            Tensor empty = Tensor.zeros(DType.INT64, 0, 5, 6);
            check(m, "empty index " + d, () -> self.scatter(0, empty, src), "torch.scatter(a, 0, b, c)", self, empty, src);
            Tensor emptyFloat = Tensor.zeros(DType.FLOAT32, 0, 5, 6);
            check(m, "empty float index " + d, () -> self.scatterAdd(1, emptyFloat, src), "torch.scatter_add(a, 1, b, c)", self, emptyFloat, src);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyDtype")
    void indexAddMatchesLibtorch(DType d) {
        Random rng = new Random(d.ordinal() + 31);
        try (NDManager m = Torch.scope()) {
            Tensor self = values(rng, d, 5, 4, 3);
            for (Inputs.Layout in : Inputs.layouts(self)) {
                Tensor t = in.tensor();
                for (int dim : new int[] {0, 1, -1}) {
                    for (DType id : new DType[] {DType.INT64, DType.INT32}) {
                        int[] sourceShape = t.shape();
                        sourceShape[Math.floorMod(dim, 3)] = 7;
                        Tensor index = Inputs.randint(rng, id, 0, t.size(dim), 7), source = Inputs.nonContiguous(values(rng, d, sourceShape));
                        String ctx = d + " " + in + " dim " + dim + " index " + id;
                        check(m, "index_add " + ctx, () -> t.indexAdd(dim, index, source), "torch.index_add(a, " + dim + ", b, c)", t, index, source);
                        check(m, "index_add_ " + ctx, () -> t.clone().indexAdd_(dim, index, source), "a.clone().index_add_(" + dim + ", b, c)", t, index, source);
                        if (d != DType.BOOL) {
                            Object alpha = d.isFloatingPoint() ? (Object) 2.0 : (Object) 2L;
                            check(m, "index_add alpha 2 " + ctx, () -> OpRegistry.get("aten.index_add.default").callTensor(t, (long) dim, index, source, alpha),
                                    "torch.index_add(a, " + dim + ", b, c, alpha=2)", t, index, source);
                        }
                    }
                }
            }
            Tensor vector = values(rng, d, 6), index = Tensor.ofLongs(5, 0, 5), source = values(rng, d, 3);
            check(m, "index_add 1-d " + d, () -> vector.indexAdd(0, index, source), "torch.index_add(a, 0, b, c)", vector, index, source);
            Tensor scalar = values(rng, d), one = values(rng, d);
            check(m, "index_add 0-d " + d, () -> scalar.indexAdd(0, Tensor.ofLongs(0), one), "torch.index_add(a, 0, b, c)", scalar, Tensor.ofLongs(0), one);
        }
    }

    @Test
    void outFormsWriteSelfsCopyIntoOut() {
        Random rng = new Random(5);
        Tensor self = Inputs.randn(rng, DType.FLOAT32, 3, 4), src = Inputs.randn(rng, DType.FLOAT32, 3, 4);
        Tensor index = Inputs.randint(rng, DType.INT64, 0, 3, 2, 4), vectorIndex = Tensor.ofLongs(2, 0, 2);
        try (NDManager m = Torch.scope()) {
            for (Inputs.Layout layout : Inputs.layouts(Tensor.zeros(3, 4))) {
                Tensor out = layout.tensor();
                int version = out.version();
                assertSame(out, OpRegistry.get("aten.scatter.src_out").callTensor(self, 0L, index, src, out));
                assertClose(out, Torch.call(m, "torch.scatter(a, 0, b, c)", self, index, src), "scatter.src_out " + layout);
                assertEquals(version + 1, out.version(), "one write");
                OpRegistry.get("aten.scatter.value_out").callTensor(self, 0L, index, 1.5, out);
                assertClose(out, Torch.call(m, "torch.scatter(a, 0, b, 1.5)", self, index), "scatter.value_out " + layout);
                OpRegistry.get("aten.scatter_add.out").callTensor(self, 0L, index, src, out);
                assertClose(out, Torch.call(m, "torch.scatter_add(a, 0, b, c)", self, index, src), "scatter_add.out " + layout);
                OpRegistry.get("aten.index_add.out").callTensor(self, 0L, vectorIndex, src, 1L, out);
                assertClose(out, Torch.call(m, "torch.index_add(a, 0, b, c)", self, vectorIndex, src), "index_add.out " + layout);
            }
        }
    }

    @Test
    void badCallsFailWithLibtorchsMessageAndWriteNothing() {
        Random rng = new Random(6);
        Tensor self = Inputs.randn(rng, DType.FLOAT32, 3, 4), src = Inputs.randn(rng, DType.FLOAT32, 3, 4);
        Tensor index = Tensor.of(new long[] {0, 1, 2, 1}, 1, 4);
        try (NDManager m = Torch.scope()) {
            refused(m, "float index", () -> self.scatter(0, index.to(DType.FLOAT32), src), "torch.scatter(a, 0, b, c)", self, index.to(DType.FLOAT32), src);
            refused(m, "src dtype", () -> self.scatter(0, index, src.to(DType.FLOAT64)), "torch.scatter(a, 0, b, c)", self, index, src.to(DType.FLOAT64));
            refused(m, "add src dtype", () -> self.scatterAdd(0, index, src.to(DType.FLOAT64)), "torch.scatter_add(a, 0, b, c)", self, index, src.to(DType.FLOAT64));
            Tensor wide = Tensor.zeros(DType.INT64, 1, 5);
            refused(m, "index wider than self", () -> self.scatter(0, wide, src), "torch.scatter(a, 0, b, c)", self, wide, src);
            refused(m, "index wider than self, value", () -> self.scatter(0, wide, 1.0), "torch.scatter(a, 0, b, 1.0)", self, wide);
            Tensor flat = Tensor.zeros(DType.INT64, 4);
            refused(m, "index rank", () -> self.scatter(0, flat, src), "torch.scatter(a, 0, b, c)", self, flat, src);
            Tensor beyond = Tensor.of(new long[] {0, 3, 1, 1}, 1, 4);
            refused(m, "index out of range", () -> self.scatter(0, beyond, src), "torch.scatter(a, 0, b, c)", self, beyond, src);
            refused(m, "negative index", () -> self.scatterAdd(1, Tensor.of(new long[] {-1}, 1, 1), src), "torch.scatter_add(a, 1, b, c)",
                    self, Tensor.of(new long[] {-1}, 1, 1), src);
            refused(m, "unknown reduce", () -> self.scatter(0, index, src, "max"), "torch.scatter(a, 0, b, c, reduce='max')", self, index, src);
            refused(m, "dim out of range", () -> self.scatter(2, index, src), "torch.scatter(a, 2, b, c)", self, index, src);

            Tensor rows = Tensor.ofLongs(0, 2);
            refused(m, "index_add matrix index", () -> self.indexAdd(0, index, src), "torch.index_add(a, 0, b, c)", self, index, src);
            refused(m, "index_add float index", () -> self.indexAdd(0, rows.to(DType.FLOAT32), src.narrow(0, 0, 2)), "torch.index_add(a, 0, b, c)",
                    self, rows.to(DType.FLOAT32), src.narrow(0, 0, 2));
            refused(m, "index_add source dtype", () -> self.indexAdd(0, rows, src.narrow(0, 0, 2).to(DType.FLOAT64)), "torch.index_add(a, 0, b, c)",
                    self, rows, src.narrow(0, 0, 2).to(DType.FLOAT64));
            refused(m, "index_add count", () -> self.indexAdd(0, rows, src), "torch.index_add(a, 0, b, c)", self, rows, src);
            refused(m, "index_add slice shape", () -> self.indexAdd(0, rows, Tensor.zeros(2, 5)), "torch.index_add(a, 0, b, c)", self, rows, Tensor.zeros(2, 5));
            refused(m, "index_add out of range", () -> self.indexAdd(0, Tensor.ofLongs(0, 3), src.narrow(0, 0, 2)), "torch.index_add(a, 0, b, c)",
                    self, Tensor.ofLongs(0, 3), src.narrow(0, 0, 2));
            refused(m, "src of fewer dims", () -> self.scatter(0, index, Tensor.ones(4)), "torch.scatter(a, 0, b, c)", self, index, Tensor.ones(4));
            Tensor ints = Tensor.ofLongs(1, 2);
            check(m, "integer self, float alpha: truncated", () -> OpRegistry.get("aten.index_add.default").callTensor(ints, 0L, Tensor.ofLongs(0), Tensor.ofLongs(3), 1.5),
                    "torch.index_add(a, 0, b, c, alpha=1.5)", ints, Tensor.ofLongs(0), Tensor.ofLongs(3));
        }
        Tensor target = self.clone();
        int version = target.version();
        assertThrows(IndexOutOfBoundsException.class, () -> target.scatter_(0, Tensor.of(new long[] {0, 1, 2, 3}, 1, 4), src));
        assertThrows(IndexOutOfBoundsException.class, () -> target.indexAdd_(0, Tensor.ofLongs(1, 7), src.narrow(0, 0, 2)));
        assertEquals(version, target.version(), "nothing written");
        assertClose(target, Torch.toNd(self), "in place: nothing written");
    }

    /** libtorch refuses the call; Ember refuses it with a message containing libtorch's. */
    static void refused(NDManager m, String context, Supplier<Tensor> ember, String torch, Object... args) {
        String aten = atenMessage(assertThrows(IllegalStateException.class, () -> Torch.call(m, torch, args), context + ": libtorch accepts it"));
        RuntimeException e = assertThrows(RuntimeException.class, ember::get, context + ": libtorch says '" + aten + "'");
        assertTrue(e.getMessage().contains(aten), context + ": Ember says '" + e.getMessage() + "', ATen '" + aten + "'");
    }
}
