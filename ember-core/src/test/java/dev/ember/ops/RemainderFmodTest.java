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

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Stream;

import static dev.ember.ops.PointwiseBinaryTest.DTYPE_PAIRS;
import static dev.ember.ops.PointwiseBinaryTest.SHAPES;
import static dev.ember.ops.PointwiseBinaryTest.atenMessage;
import static dev.ember.ops.PointwiseBinaryTest.check;
import static dev.ember.ops.PointwiseBinaryTest.input;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * remainder (Python's sign-of-divisor rule) and fmod (C's sign-of-dividend rule), and the
 * in-place and out= forms of them and of floor_divide, against libtorch: every dtype pair,
 * broadcast shape and layout, Scalar operands on either side, IEEE special values, and ATen's
 * ZeroDivisionError for an integer zero divisor.
 */
class RemainderFmodTest {

    static OpOverload op(String name) { return OpRegistry.get(name); }

    static final List<PointwiseBinaryTest.Op> OPS = List.of(
            new PointwiseBinaryTest.Op("remainder", "torch.remainder(a, b)", Tensor::remainder, true),
            new PointwiseBinaryTest.Op("fmod", "torch.fmod(a, b)", Tensor::fmod, true));

    static Stream<Arguments> opsAndDtypes() {
        List<Arguments> out = new ArrayList<>();
        for (PointwiseBinaryTest.Op o : OPS) for (DType[] p : DTYPE_PAIRS) out.add(Arguments.of(o, p[0], p[1]));
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("opsAndDtypes")
    void matchesLibtorchOnEveryBroadcastShapeAndLayout(PointwiseBinaryTest.Op op, DType da, DType db) {
        Random rng = new Random(op.name().hashCode() * 31L + da.ordinal() * 7L + db.ordinal());
        try (NDManager m = Torch.scope()) {
            for (int[][] s : SHAPES) {
                Tensor a = input(rng, da, false, s[0]), b = input(rng, db, true, s[1]);
                List<Inputs.Layout> layouts = Inputs.layouts(a);
                for (int k = 0; k < layouts.size(); k++) {
                    Tensor x = layouts.get(k).tensor(), y = k == 0 ? b : Inputs.nonContiguous(b);
                    String context = op + " " + da + Arrays.toString(s[0]) + " " + layouts.get(k).name() + " with " + db + Arrays.toString(s[1]);
                    check(m, context, () -> op.ember().apply(x, y), op.torch(), x, y);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyDtype")
    void scalarOperandsOnEitherSidePromoteLikePythonNumbers(DType dtype) {
        Random rng = new Random(dtype.ordinal() + 5);
        Tensor x = input(rng, dtype, true, 3, 7), nonContiguous = Inputs.nonContiguous(x);
        try (NDManager m = Torch.scope()) {
            for (Tensor t : List.of(x, nonContiguous, input(rng, dtype, true), input(rng, dtype, true, 0, 2))) {
                String ctx = dtype + " " + Arrays.toString(t.shape());
                check(m, "remainder by 3 " + ctx, () -> t.remainder(3L), "torch.remainder(a, 3)", t);
                check(m, "remainder by -2.5 " + ctx, () -> t.remainder(-2.5), "torch.remainder(a, -2.5)", t);
                check(m, "fmod by -3 " + ctx, () -> t.fmod(-3L), "torch.fmod(a, -3)", t);
                check(m, "fmod by 1.5 " + ctx, () -> t.fmod(1.5), "torch.fmod(a, 1.5)", t);
                Tensor divisor = dtype == DType.BOOL ? Tensor.ones(DType.BOOL, t.shape()) : t;   // false would divide by zero
                check(m, "7 remainder " + ctx, () -> Tensor.remainder(7L, divisor), "torch.remainder(7, a)", divisor);
                check(m, "-7.5 remainder " + ctx, () -> Tensor.remainder(-7.5, divisor), "torch.remainder(-7.5, a)", divisor);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("floatDtypes")
    void specialValuesAndFloatDivisionByZeroFollowAten(DType dtype) {
        // NaN, ±inf, ±0 (a zero divisor gives NaN), subnormals and extremes, each against each; but for
        // float64 no divisor at or below DBL_MIN: libtorch's SIMD fmod (its vector lanes only) gives NaN
        // for 1 % DBL_TRUE_MIN or DBL_MAX % DBL_MIN, where C's fmod, ATen's scalar loop and Ember give the exact result
        Tensor s = Inputs.specials(dtype);
        int n = s.numel();
        Tensor a = s.reshape(n, 1);
        Tensor b = dtype == DType.FLOAT64
                ? Tensor.of(Arrays.stream(s.toDoubleArray()).filter(v -> v == 0 || !(Math.abs(v) <= Double.MIN_NORMAL)).toArray()).reshape(1, n - 2)
                : s.reshape(1, n);
        try (NDManager m = Torch.scope()) {
            for (PointwiseBinaryTest.Op op : OPS) check(m, op + " specials " + dtype, () -> op.ember().apply(a, b), op.torch(), a, b);
        }
        assertTrue(Double.isNaN(Tensor.of(5f).remainder(0.0).get(0)), "float remainder by zero is NaN");
        assertEquals(0.0, Tensor.of(Double.MAX_VALUE).remainder(Double.MIN_NORMAL).get(0), "C's fmod is exact");
        assertEquals(0.0, Tensor.of(1.0).fmod(Double.MIN_VALUE).get(0), "C's fmod is exact");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("integerDtypes")
    void integerExtremesAndSignsMatch(DType dtype) {
        Tensor s = Inputs.specials(dtype);
        Tensor a = s.reshape(s.numel(), 1);
        // not 0 (ZeroDivisionError) and not -1 against MIN (libtorch itself dies of SIGFPE)
        Tensor divisors = Tensor.of(new long[] {1, 7, -7, 2, -2, dtype == DType.INT32 ? Integer.MAX_VALUE : Long.MAX_VALUE,
                dtype == DType.INT32 ? Integer.MIN_VALUE : Long.MIN_VALUE}, 1, 7).to(dtype);
        try (NDManager m = Torch.scope()) {
            for (PointwiseBinaryTest.Op op : OPS) check(m, op + " extremes " + dtype, () -> op.ember().apply(a, divisors), op.torch(), a, divisors);
        }
    }

    @Test
    void anIntegerZeroDivisorRaisesZeroDivisionErrorLikeAten() {
        Tensor a = Tensor.ofLongs(5, 3, -4), zeroAmong = Tensor.ofLongs(2, 0, 1);
        String aten;
        try (NDManager m = Torch.scope()) {
            aten = atenMessage(assertThrows(IllegalStateException.class, () -> Torch.call(m, "torch.remainder(a, b)", a, zeroAmong)));
        }
        assertEquals("ZeroDivisionError", aten);
        for (Function<Tensor, Tensor> call : List.<Function<Tensor, Tensor>>of(
                t -> t.remainder(zeroAmong), t -> t.fmod(zeroAmong), t -> t.remainder(0L), t -> t.fmod(0L),
                t -> Tensor.remainder(3L, zeroAmong), t -> t.to(DType.INT32).remainder(zeroAmong.to(DType.INT32)),
                t -> t.clone().remainder_(zeroAmong), t -> t.fmodOut(zeroAmong, Tensor.zeros(DType.INT64, 3)))) {
            ArithmeticException e = assertThrows(ArithmeticException.class, () -> call.apply(a));
            assertEquals(aten, e.getMessage());
        }
        // nothing is divided when the result is empty, so nothing raises, as in ATen
        Tensor empty = Tensor.zeros(DType.INT64, 0, 3);
        try (NDManager m = Torch.scope()) {
            assertClose(empty.remainder(zeroAmong), Torch.call(m, "torch.remainder(a, b)", empty, zeroAmong), "empty");
        }
    }

    /** An in-place or out= form on (self, other, out): Ember's call and libtorch's, which returns what it wrote. */
    record Written(String name, Writer ember, String torch) {
        @Override
        public String toString() { return name; }
    }

    @FunctionalInterface
    interface Writer { Tensor apply(Tensor self, Tensor other, Tensor out); }

    static final List<Written> WRITTEN = List.of(
            new Written("remainder_", (a, b, o) -> o.copy_(a).remainder_(b), "c.copy_(a)\nreturn c.remainder_(b)"),
            new Written("remainder_ Scalar", (a, b, o) -> o.copy_(a).remainder_(-2.5), "c.copy_(a)\nreturn c.remainder_(-2.5)"),
            new Written("fmod_", (a, b, o) -> o.copy_(a).fmod_(b), "c.copy_(a)\nreturn c.fmod_(b)"),
            new Written("fmod_ Scalar", (a, b, o) -> o.copy_(a).fmod_(1.5), "c.copy_(a)\nreturn c.fmod_(1.5)"),
            new Written("floor_divide_", (a, b, o) -> o.copy_(a).floorDivide_(b), "c.copy_(a)\nreturn c.floor_divide_(b)"),
            new Written("remainder out", (a, b, o) -> a.remainderOut(b, o), "return torch.remainder(a, b, out=c)"),
            new Written("remainder.Scalar_out", (a, b, o) -> op("aten.remainder.Scalar_out").callTensor(a, 3L, o), "return torch.remainder(a, 3, out=c)"),
            new Written("fmod out", (a, b, o) -> a.fmodOut(b, o), "return torch.fmod(a, b, out=c)"),
            new Written("fmod.Scalar_out", (a, b, o) -> op("aten.fmod.Scalar_out").callTensor(a, -2.5, o), "return torch.fmod(a, -2.5, out=c)"),
            new Written("floor_divide out", (a, b, o) -> a.floorDivideOut(b, o), "return torch.floor_divide(a, b, out=c)"));

    @ParameterizedTest(name = "inputs {0}")
    @MethodSource("everyDtype")
    void inPlaceAndOutFormsWriteWhatLibtorchWrites(DType dtype) {
        Random rng = new Random(dtype.ordinal() + 40);
        try (NDManager m = Torch.scope()) {
            for (Written w : WRITTEN) {
                Tensor a = input(rng, dtype, false, 3, 5), b = dtype == DType.BOOL ? Tensor.ones(DType.BOOL, 5) : input(rng, dtype, true, 5);
                for (DType outType : DType.values()) {
                    for (Inputs.Layout layout : Inputs.layouts(Tensor.zeros(outType, 3, 5))) {
                        Tensor out = layout.tensor();
                        String context = w + " " + dtype + " into " + outType + " " + layout;
                        NDArray expected;
                        try {
                            expected = Torch.call(m, w.torch(), a, b, Tensor.zeros(outType, 3, 5));
                        } catch (IllegalStateException torchError) {
                            String aten = atenMessage(torchError);
                            int version = out.version();
                            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> w.ember().apply(a, b, out), context + ": ATen says " + aten);
                            assertTrue(e.getMessage().contains(aten), context + ": Ember says '" + e.getMessage() + "', ATen '" + aten + "'");
                            if (!w.torch().startsWith("c.copy_")) assertEquals(version, out.version(), context + ": nothing written");
                            continue;
                        }
                        Tensor returned = w.ember().apply(a, b, out);
                        assertSame(out, returned, context + ": returns what it wrote");
                        assertClose(out, expected, context);
                    }
                }
            }
        }
    }

    @Test
    void boolHasNoKernelAsInAten() {
        Tensor t = Tensor.of(new boolean[] {true, false}, 2);
        try (NDManager m = Torch.scope()) {
            for (PointwiseBinaryTest.Op op : OPS) check(m, op + " bool", () -> op.ember().apply(t, t), op.torch(), t, t);
        }
        var e = assertThrows(IllegalArgumentException.class, () -> t.remainder(t));
        assertEquals("remainder: \"remainder_cpu\" not implemented for 'Bool'", e.getMessage());
    }

    static Stream<DType> everyDtype() { return Arrays.stream(DType.values()); }

    static Stream<DType> floatDtypes() { return Stream.of(DType.FLOAT32, DType.FLOAT64); }

    static Stream<DType> integerDtypes() { return Stream.of(DType.INT32, DType.INT64); }
}
