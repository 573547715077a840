package dev.ember.ops;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.stream.Stream;

import static dev.ember.ops.PointwiseBinaryTest.atenMessage;
import static dev.ember.ops.PointwiseBinaryTest.input;
import static dev.ember.ops.PointwiseInplaceTest.assertGapsUntouched;
import static dev.ember.ops.PointwiseInplaceTest.copyOfStorage;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * out= ops ({@code add.out}, …) against libtorch's own out= variants: the result lands in out
 * (any layout, any dtype the result can be cast to), out is returned, its version counter counts
 * one write, the gaps of a strided out are untouched; every refusal carries ATen's message and
 * writes nothing.
 */
class PointwiseOutTest {

    /** An out op on (a, b, out), and the same in TorchScript on {@code a}, {@code b}, {@code c} (c is out). */
    record Case(String name, Op ember, String torch, boolean binary) {
        @Override
        public String toString() { return name; }
    }

    @FunctionalInterface
    interface Op { Tensor apply(Tensor a, Tensor b, Tensor out); }

    static final List<Case> CASES = List.of(
            new Case("add", (a, b, o) -> a.addOut(b, o), "torch.add(a, b, out=c)", true),
            new Case("add alpha 2", (a, b, o) -> OpRegistry.get("aten.add.out").callTensor(a, b, 2L, o), "torch.add(a, b, alpha=2, out=c)", true),
            new Case("add alpha 0.5", (a, b, o) -> a.addOut(b, 0.5, o), "torch.add(a, b, alpha=0.5, out=c)", true),
            new Case("sub alpha 0.5", (a, b, o) -> a.subOut(b, 0.5, o), "torch.sub(a, b, alpha=0.5, out=c)", true),
            new Case("sub", (a, b, o) -> a.subOut(b, o), "torch.sub(a, b, out=c)", true),
            new Case("mul", (a, b, o) -> a.mulOut(b, o), "torch.mul(a, b, out=c)", true),
            new Case("div", (a, b, o) -> a.divOut(b, o), "torch.div(a, b, out=c)", true),
            new Case("div floor", (a, b, o) -> a.divOut(b, "floor", o), "torch.div(a, b, rounding_mode='floor', out=c)", true),
            new Case("neg", (a, b, o) -> a.negOut(o), "torch.neg(a, out=c)", false),
            new Case("abs", (a, b, o) -> a.absOut(o), "torch.abs(a, out=c)", false),
            new Case("exp", (a, b, o) -> a.expOut(o), "torch.exp(a, out=c)", false),
            new Case("sqrt", (a, b, o) -> a.sqrtOut(o), "torch.sqrt(a, out=c)", false),
            new Case("tanh", (a, b, o) -> a.tanhOut(o), "torch.tanh(a, out=c)", false),
            new Case("sigmoid", (a, b, o) -> a.sigmoidOut(o), "torch.sigmoid(a, out=c)", false),
            new Case("log", (a, b, o) -> a.logOut(o), "torch.log(a, out=c)", false),
            new Case("log1p", (a, b, o) -> a.log1pOut(o), "torch.log1p(a, out=c)", false),
            new Case("rsqrt", (a, b, o) -> a.rsqrtOut(o), "torch.rsqrt(a, out=c)", false),
            new Case("sin", (a, b, o) -> a.sinOut(o), "torch.sin(a, out=c)", false),
            new Case("cos", (a, b, o) -> a.cosOut(o), "torch.cos(a, out=c)", false),
            new Case("maximum", (a, b, o) -> a.maximumOut(b, o), "torch.maximum(a, b, out=c)", true),
            new Case("minimum", (a, b, o) -> a.minimumOut(b, o), "torch.minimum(a, b, out=c)", true));

    static Stream<Arguments> inputDtypes() {
        return Arrays.stream(DType.values()).map(Arguments::of);
    }

    /**
     * Every op, inputs of {@code dtype} ([3, 5] and a broadcast [5]), into an out of every dtype
     * and layout: libtorch's out= variant decides whether it succeeds (and with what values) or
     * which message it fails with.
     */
    @ParameterizedTest(name = "inputs {0}")
    @MethodSource("inputDtypes")
    void everyOutOpWritesOutLikeLibtorchsOutVariant(DType dtype) {
        Random rng = new Random(dtype.ordinal() + 70);
        try (NDManager m = Torch.scope()) {
            for (Case c : CASES) {
                Tensor a = input(rng, dtype, false, 3, 5), b = input(rng, dtype, true, 5);
                for (DType outType : DType.values()) {
                    Tensor base = input(rng, outType, false, 3, 5);
                    for (Inputs.Layout layout : Inputs.layouts(base)) {
                        Tensor out = layout.tensor();
                        String context = c + " " + dtype + " into " + outType + " " + layout;
                        Object before = copyOfStorage(out.storage());
                        int version = out.version();
                        NDArray expected;
                        try {
                            expected = Torch.call(m, c.torch() + "\nreturn c", a, b, out);
                        } catch (IllegalStateException torchError) {
                            String aten = atenMessage(torchError);
                            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.ember().apply(a, b, out), context);
                            if (!e.getMessage().contains(aten)) {
                                // a call with two faults: Ember may name the other, which ATen checks later (e.g. int32 into a bool out with a float alpha)
                                String functional = atenMessage(assertThrows(IllegalStateException.class,
                                        () -> Torch.call(m, c.torch().replace(", out=c", ""), a, b), context + ": Ember says '" + e.getMessage() + "', ATen '" + aten + "'"));
                                assertTrue(e.getMessage().contains(functional), context + ": Ember says '" + e.getMessage() + "', ATen '" + aten + "' or '" + functional + "'");
                            }
                            assertEquals(version, out.version(), context + ": version unchanged");
                            assertTrue(Objects.deepEquals(before, out.storage().data()), context + ": nothing written");
                            continue;
                        }

                        Tensor returned = c.ember().apply(a, b, out);

                        assertSame(out, returned, context + ": returns out");
                        assertEquals(outType, out.dtype(), context);
                        assertEquals(version + 1, out.version(), context + ": one write in the version counter");
                        assertClose(out, expected, context);
                        assertGapsUntouched(out, before, context);
                    }
                }
            }
        }
    }

    @Test
    void intInputsIntoAFloatOutComputeInIntThenCast() {
        // the result type is int32 (the sum wraps like ATen's), cast into the wider float32 out
        Tensor a = Tensor.of(new int[] {Integer.MAX_VALUE, 2}, 2), b = Tensor.of(new int[] {1, 3}, 2), out = Tensor.zeros(DType.FLOAT32, 2);
        a.addOut(b, out);
        try (NDManager m = Torch.scope()) {
            assertClose(out, Torch.call(m, "torch.add(a, b, out=c)\nreturn c", a, b, Tensor.zeros(DType.FLOAT32, 2)), "int32 + int32 into float32");
        }
        assertEquals((float) Integer.MIN_VALUE, out.get(0), "computed in int32 (wrapped), then cast");
    }

    @Test
    void outMayBeAnInputItselfButNotPartOfOne() {
        Random rng = new Random(3);
        try (NDManager m = Torch.scope()) {
            Tensor x = Inputs.randn(rng, DType.FLOAT32, 4, 4), y = Inputs.randn(rng, DType.FLOAT32, 4, 4);
            Tensor self = x.clone();
            NDArray expected = Torch.call(m, "torch.mul(a, b)", x, y);
            assertSame(self, self.mulOut(y, self));
            assertClose(self, expected, "out is self");
            Tensor sq = x.clone();
            sq.mulOut(sq, sq);
            assertClose(sq, Torch.call(m, "torch.mul(a, a)", x), "out is both inputs");

            String aten = atenMessage(assertThrows(IllegalStateException.class, () -> Torch.call(m, "torch.add(a.t(), b, out=a)\nreturn a", x, y)));
            assertTrue(aten.contains("some elements of the input tensor and the written-to tensor refer to a single memory location"), aten);
            for (var partial : List.<BiFunction<Tensor, Tensor, Tensor>>of(
                    (t, u) -> t.t().addOut(u, t),                                                  // the same memory, other strides
                    (t, u) -> t.narrow(0, 1, 2).addOut(u.narrow(0, 0, 2), t.narrow(0, 0, 2)))) {   // shifted by a row
                Tensor t = x.clone();
                Object before = copyOfStorage(t.storage());
                int version = t.version();
                var e = assertThrows(IllegalArgumentException.class, () -> partial.apply(t, y));
                assertTrue(e.getMessage().contains(aten), e.getMessage());
                assertEquals(version, t.version(), "version unchanged");
                assertTrue(Objects.deepEquals(before, t.storage().data()), "nothing written");
            }
        }
    }

    @Test
    void interleavedViewsShareNoElementButEmberRefusesWhatAtenCannotJudge() {
        Tensor v = Tensor.randn(8);
        try (NDManager m = Torch.scope()) {
            Torch.call(m, "c = a[0::2]\ntorch.neg(a[1::2], out=c)\nreturn c", v);   // ATen: neither is dense, "too hard", allowed
        }
        var e = assertThrows(IllegalArgumentException.class, () -> v.slice(0, 1, 8, 2).negOut(v.slice(0, 0, 8, 2)));
        assertTrue(e.getMessage().contains("some elements of the input tensor and the written-to tensor refer to a single memory location"), e.getMessage());
        assertEquals(0, v.version());
    }

    @Test
    void anOutOfTheWrongShapeIsRefusedNotResized() {
        Tensor a = Tensor.ones(3, 5), b = Tensor.ones(5), out = Tensor.zeros(5);
        var e = assertThrows(IllegalArgumentException.class, () -> a.addOut(b, out));
        assertEquals("add: the out tensor has shape [5] but the result has shape [3, 5]; Ember does not resize out (ATen would, with a warning): "
                + "pass an out of shape [3, 5]", e.getMessage());
        assertEquals(0, out.version());
        assertEquals(0.0, out.sum().item());
        var u = assertThrows(IllegalArgumentException.class, () -> a.expOut(Tensor.zeros(5, 3)));
        assertTrue(u.getMessage().startsWith("exp: the out tensor has shape [5, 3] but the result has shape [3, 5]"), u.getMessage());
    }

    @Test
    void anExpandedOutIsRefusedLikeAten() {
        Tensor one = Tensor.zeros(1);
        String aten;
        try (NDManager m = Torch.scope()) {
            aten = atenMessage(assertThrows(IllegalStateException.class,
                    () -> Torch.call(m, "c = b.expand(3)\ntorch.add(a, a, out=c)\nreturn c", Tensor.ones(3), one)));
        }
        var e = assertThrows(IllegalArgumentException.class, () -> Tensor.ones(3).addOut(Tensor.ones(3), one.expand(3)));
        assertTrue(e.getMessage().contains(aten), e.getMessage() + " vs " + aten);
        assertEquals(0.0, one.item());
    }
}
