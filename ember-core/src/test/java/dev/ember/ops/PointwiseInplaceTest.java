package dev.ember.ops;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static dev.ember.ops.PointwiseBinaryTest.input;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * In-place ops against libtorch's in-place ops: the result lands in self (any layout, any dtype
 * the result casts to), self is returned, the version counter counts one write, the gaps of a
 * strided self are untouched, and an {@code other} that aliases self gives the out-of-place answer.
 */
class PointwiseInplaceTest {

    static OpOverload op(String name) { return OpRegistry.get(name); }

    /** An in-place op applied to self (with its other operands bound), and the same in TorchScript on {@code a} and {@code b}. */
    record Case(String name, UnaryOperator<Tensor> ember, String torch, Tensor other) {
        @Override
        public String toString() { return name; }
    }

    static List<Case> cases(Random rng, DType dtype, int[] shape) {
        Tensor other = input(rng, dtype, false, shape), row = input(rng, dtype, false, shape[shape.length - 1]);
        Tensor f64 = Inputs.randn(rng, DType.FLOAT64, shape), i64zeroD = Tensor.scalar(3L);
        Tensor mask = Inputs.rand(rng, DType.BOOL, shape);
        List<Case> c = new ArrayList<>(List.of(
                new Case("add_", t -> t.add_(other), "a.add_(b)", other),
                new Case("add_ row", t -> t.add_(row), "a.add_(b)", row),
                new Case("add_ 0-d int64", t -> t.add_(i64zeroD), "a.add_(b)", i64zeroD),
                new Case("add_.Scalar 2", t -> op("aten.add_.Scalar").callTensor(t, 2L), "a.add_(2)", null),
                new Case("mul_", t -> t.mul_(other), "a.mul_(b)", other),
                new Case("mul_.Scalar 3", t -> op("aten.mul_.Scalar").callTensor(t, 3L), "a.mul_(3)", null),
                new Case("fill_ 2.5", t -> t.fill_(2.5), "a.fill_(2.5)", null),
                new Case("zero_", Tensor::zero_, "a.zero_()", null),
                new Case("masked_fill_", t -> t.maskedFill_(mask, -1.5), "a.masked_fill_(b, -1.5)", mask),
                new Case("clamp_ int bounds", t -> op("aten.clamp_.default").callTensor(t, -1L, 1L), "a.clamp_(-1, 1)", null),
                new Case("sign_", Tensor::sign_, "a.sign_()", null)));
        if (dtype != DType.BOOL) {
            c.add(new Case("sub_ alpha 2", t -> op("aten.sub_.Tensor").callTensor(t, other, 2L), "a.sub_(b, alpha=2)", other));
            c.add(new Case("sub_.Scalar 1", t -> op("aten.sub_.Scalar").callTensor(t, 1L), "a.sub_(1)", null));
            c.add(new Case("neg_", Tensor::neg_, "a.neg_()", null));
            c.add(new Case("abs_", Tensor::abs_, "a.abs_()", null));
            c.add(new Case("relu_", Tensor::relu_, "a.relu_()", null));
        }
        if (dtype.isFloatingPoint()) {
            c.add(new Case("add_ f64 other", t -> t.add_(f64, 0.5), "a.add_(b, alpha=0.5)", f64));
            c.add(new Case("div_", t -> t.div_(other), "a.div_(b)", other));
            c.add(new Case("div_.Scalar", t -> t.div_(4.0), "a.div_(4.0)", null));
            c.add(new Case("exp_", Tensor::exp_, "a.exp_()", null));
            c.add(new Case("sqrt_", Tensor::sqrt_, "a.sqrt_()", null));
            c.add(new Case("tanh_", Tensor::tanh_, "a.tanh_()", null));
            c.add(new Case("sigmoid_", Tensor::sigmoid_, "a.sigmoid_()", null));
            c.add(new Case("clamp_", t -> t.clamp_(-0.5, 0.25), "a.clamp_(-0.5, 0.25)", null));
            c.add(new Case("clamp_ min only", t -> t.clamp_(0.0, null), "a.clamp_(0.0, None)", null));
        }
        return c;
    }

    static Stream<Arguments> dtypes() {
        return Arrays.stream(DType.values()).map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dtypes")
    void everyInPlaceOpWritesSelfInEveryLayout(DType dtype) {
        Random rng = new Random(dtype.ordinal() + 40);
        int[] shape = {3, 37};
        try (NDManager m = Torch.scope()) {
            for (Case c : cases(rng, dtype, shape)) {
                Tensor base = input(rng, dtype, false, shape);
                for (Inputs.Layout layout : Inputs.layouts(base)) {
                    Tensor self = layout.tensor();
                    Object before = copyOfStorage(self.storage());
                    int version = self.version();
                    String context = c + " " + dtype + " " + layout;
                    NDArray expected;
                    try {
                        expected = c.other() == null ? Torch.call(m, c.torch(), self) : Torch.call(m, c.torch(), self, c.other());
                    } catch (IllegalStateException torchError) {
                        // ATen refuses (e.g. bool self += int): so must Ember, before writing anything
                        String aten = PointwiseBinaryTest.atenMessage(torchError);
                        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.ember().apply(self), context);
                        assertTrue(e.getMessage().contains(aten), context + ": Ember says '" + e.getMessage() + "', ATen '" + aten + "'");
                        assertEquals(version, self.version(), context + ": version unchanged");
                        assertTrue(java.util.Objects.deepEquals(before, self.storage().data()), context + ": nothing written");
                        continue;
                    }

                    Tensor returned = c.ember().apply(self);

                    assertSame(self, returned, context + ": returns self");
                    assertEquals(version + 1, self.version(), context + ": one write in the version counter");
                    assertClose(self, expected, context);
                    assertGapsUntouched(self, before, context);
                }
            }
        }
    }

    @Test
    void otherAliasingSelfGivesTheOutOfPlaceResult() {
        Random rng = new Random(1);
        try (NDManager m = Torch.scope()) {
            Tensor x = Inputs.randn(rng, DType.FLOAT32, 33, 33);
            List<UnaryOperator<Tensor>> others = List.of(t -> t, Tensor::t, t -> t.select(0, 5), t -> t.slice(0, 1, 33, 1).slice(0, 0, 32, 1).narrow(0, 0, 1));
            List<String> names = List.of("self", "self.t()", "self[5] broadcast", "self[1:2] broadcast");
            for (int k = 0; k < others.size(); k++) {
                for (String opName : List.of("add_", "mul_", "sub_", "div_")) {
                    Tensor self = x.clone(), other = others.get(k).apply(self);
                    var expected = Torch.call(m, "torch." + opName.replace("_", "") + "(a, b)", x, others.get(k).apply(x));
                    op("aten." + opName + ".Tensor").callTensor(self, other);
                    assertClose(self, expected, opName + " with other = " + names.get(k));
                }
            }
            Tensor self = x.clone(), mask = x.gt(0);
            self.maskedFill_(self.gt(0), 0.0);
            assertClose(self, Torch.call(m, "a.masked_fill(b, 0.0)", x, mask), "masked_fill_ with a mask computed from self");
        }
    }

    @Test
    void inPlaceIntoANarrowerDtypeComputesInTheResultTypeThenCasts() {
        // float32 self += float64 other computes in float64 and rounds once; int32 self += int64 wraps like ATen
        Tensor f = Tensor.of(new float[] {1f, 16777216f}, 2), d = Tensor.of(new double[] {1e-9, 1.0}, 2);
        Tensor i = Tensor.of(new int[] {Integer.MAX_VALUE, -5}, 2), l = Tensor.ofLongs(1, 1L << 33);
        try (NDManager m = Torch.scope()) {
            var fe = Torch.call(m, "a.add_(b)", f, d);
            var ie = Torch.call(m, "a.add_(b)", i, l);
            f.add_(d);
            i.add_(l);
            assertClose(f, fe, "float32 += float64");
            assertClose(i, ie, "int32 += int64");
        }
        assertEquals(DType.FLOAT32, f.dtype());
        assertEquals(DType.INT32, i.dtype());
    }

    @Test
    void inPlaceOnAViewWritesTheBaseTensor() {
        Tensor base = Tensor.zeros(4, 5);
        Tensor column = base.select(1, 2);
        column.add_(Tensor.arange(4).to(DType.FLOAT32));
        base.t().slice(0, 0, 1, 1).fill_(7.0);
        float[] got = base.toFloatArray();
        assertArrayEquals(new float[] {7, 0, 0, 0, 0, 7, 0, 1, 0, 0, 7, 0, 2, 0, 0, 7, 0, 3, 0, 0}, got, 0f);
        assertEquals(2, base.version(), "views share the storage's version counter");
    }

    @Test
    void fillAndZeroAcceptAnExpandedSelfLikeAten() {
        // ATen checks self-overlap for arithmetic, not for fill_/zero_/masked_fill_
        Tensor one = Tensor.of(1f);
        one.expand(3).fill_(2.0);
        assertEquals(2.0, one.item());
        one.expand(3).zero_();
        assertEquals(0.0, one.item());
        one.expand(3).maskedFill_(Tensor.of(new boolean[] {false, true, false}, 3), 5.0);
        assertEquals(5.0, one.item());
    }

    static Object copyOfStorage(Storage s) {
        Object data = s.data();
        Object copy = s.dtype().allocate(s.length());
        System.arraycopy(data, 0, copy, 0, s.length());
        return copy;
    }

    /** Every storage element outside {@code view} still holds what it held before. */
    static void assertGapsUntouched(Tensor view, Object before, String context) {
        Storage s = view.storage();
        boolean[] inView = new boolean[s.length()];
        int[] shape = view.shape(), strides = view.strides();
        int n = view.numel();
        for (int flat = 0; flat < n; flat++) {
            int rem = flat, off = view.storageOffset();
            for (int d = shape.length - 1; d >= 0; d--) {
                off += (rem % shape[d]) * strides[d];
                rem /= shape[d];
            }
            inView[off] = true;
        }
        Tensor was = Tensor.wrap(new Storage(s.dtype(), before), new int[] {s.length()}, new int[] {1}, 0);
        Tensor now = Tensor.wrap(s, new int[] {s.length()}, new int[] {1}, 0);
        double[] w = was.toDoubleArray(), x = now.toDoubleArray();
        for (int i = 0; i < w.length; i++) {
            if (!inView[i]) assertTrue(Double.compare(w[i], x[i]) == 0, context + ": storage element " + i + " outside the view changed");
        }
    }
}
