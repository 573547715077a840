package dev.ember.ops;

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
import java.util.stream.Stream;

import static dev.ember.ops.PointwiseBinaryTest.check;
import static dev.ember.ops.PointwiseBinaryTest.input;
import static dev.ember.testing.TorchAssert.assertClose;

/**
 * Three-operand ops against libtorch: where (condition, self, other), clamp with tensor bounds
 * (either may be absent) and masked_fill with a 0-d value tensor, each with three-way
 * broadcasting, mixed dtypes and non-contiguous operands.
 */
class PointwiseSelectTest {

    static OpOverload op(String name) { return OpRegistry.get(name); }

    /** Shape triples that broadcast together, 0-d and zero-size included. */
    static final List<int[][]> TRIPLES = List.of(
            new int[][] {{2, 3}, {2, 3}, {2, 3}},
            new int[][] {{2, 3}, {3}, {2, 1}},
            new int[][] {{}, {2, 3}, {}},
            new int[][] {{4, 1, 3}, {2, 1}, {3}},
            new int[][] {{0, 3}, {3}, {1}},
            new int[][] {{3, 37}, {37}, {3, 1}},
            new int[][] {{1}, {5, 1, 4}, {6, 1}});

    static final List<DType[]> DTYPE_PAIRS = List.of(
            new DType[] {DType.FLOAT32, DType.FLOAT32}, new DType[] {DType.FLOAT64, DType.FLOAT64}, new DType[] {DType.INT32, DType.INT32},
            new DType[] {DType.INT64, DType.INT64}, new DType[] {DType.BOOL, DType.BOOL}, new DType[] {DType.INT32, DType.FLOAT64},
            new DType[] {DType.BOOL, DType.INT64}, new DType[] {DType.FLOAT32, DType.INT64});

    static Stream<Arguments> dtypePairs() {
        return DTYPE_PAIRS.stream().map(p -> Arguments.of(p[0], p[1]));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dtypePairs")
    void whereBroadcastsThreeWaysAndPromotesItsValues(DType ds, DType dOther) {
        Random rng = new Random(ds.ordinal() * 11L + dOther.ordinal());
        try (NDManager m = Torch.scope()) {
            for (int[][] s : TRIPLES) {
                for (int[] order : new int[][] {{0, 1, 2}, {1, 0, 2}, {2, 1, 0}}) {
                    Tensor c = Inputs.rand(rng, DType.BOOL, s[order[0]]), x = input(rng, ds, false, s[order[1]]), y = input(rng, dOther, false, s[order[2]]);
                    Tensor cn = Inputs.nonContiguous(c), xn = Inputs.nonContiguous(x);
                    String context = "where " + Arrays.toString(c.shape()) + " " + ds + Arrays.toString(x.shape()) + " " + dOther + Arrays.toString(y.shape());
                    check(m, context, () -> Tensor.where(c, x, y), "torch.where(a, b, c)", c, x, y);
                    check(m, context + " non-contiguous", () -> Tensor.where(cn, xn, y), "torch.where(a, b, c)", cn, xn, y);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyDtype")
    void whereTakesAPythonNumberForEitherValueOrBoth(DType dtype) {
        Random rng = new Random(dtype.ordinal() + 17);
        try (NDManager m = Torch.scope()) {
            for (int[][] s : TRIPLES) {
                Tensor c = Inputs.nonContiguous(Inputs.rand(rng, DType.BOOL, s[0])), x = input(rng, dtype, false, s[1]);
                String context = "where " + Arrays.toString(s[0]) + " " + dtype + Arrays.toString(s[1]);
                check(m, context + " ScalarOther long", () -> Tensor.where(c, x, 7L), "torch.where(a, b, 7)", c, x);
                check(m, context + " ScalarOther double", () -> Tensor.where(c, x, -0.5), "torch.where(a, b, -0.5)", c, x);
                check(m, context + " ScalarSelf long", () -> Tensor.where(c, -3L, x), "torch.where(a, -3, b)", c, x);
                check(m, context + " ScalarSelf double", () -> Tensor.where(c, 2.5, x), "torch.where(a, 2.5, b)", c, x);
            }
            Tensor c = Inputs.rand(rng, DType.BOOL, 3, 4);
            check(m, "where.Scalar longs", () -> Tensor.where(c, 1L, 0L), "torch.where(a, 1, 0)", c);
            check(m, "where.Scalar doubles", () -> Tensor.where(c, 1.5, Double.NEGATIVE_INFINITY), "torch.where(a, 1.5, float('-inf'))", c);
        }
    }

    static Stream<DType> everyDtype() { return Arrays.stream(DType.values()); }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dtypePairs")
    void clampWithTensorBoundsMatchesLibtorch(DType ds, DType dBounds) {
        Random rng = new Random(ds.ordinal() * 13L + dBounds.ordinal());
        try (NDManager m = Torch.scope()) {
            for (int[][] s : TRIPLES) {
                Tensor x = input(rng, ds, false, s[0]), lo = input(rng, dBounds, false, s[1]), hi = input(rng, dBounds, false, s[2]);
                Tensor xn = Inputs.nonContiguous(x);
                String context = "clamp " + ds + Arrays.toString(s[0]) + " bounds " + dBounds + Arrays.toString(s[1]) + Arrays.toString(s[2]);
                check(m, context, () -> x.clamp(lo, hi), "torch.clamp(a, b, c)", x, lo, hi);
                check(m, context + " min only", () -> xn.clamp(lo, null), "torch.clamp(a, b, None)", xn, lo);
                check(m, context + " max only", () -> x.clamp(null, hi), "torch.clamp(a, None, b)", x, hi);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dtypePairs")
    void clampInPlaceAndIntoOutMatchLibtorch(DType ds, DType dBounds) {
        Random rng = new Random(ds.ordinal() * 17L + dBounds.ordinal());
        try (NDManager m = Torch.scope()) {
            Tensor x = input(rng, ds, false, 3, 4), lo = input(rng, dBounds, false, 4), hi = Inputs.nonContiguous(input(rng, dBounds, false, 3, 1));
            String context = "clamp " + ds + " bounds " + dBounds;
            check(m, context + " in place", () -> x.clone().clamp_(lo, hi), "a.clone().clamp_(b, c)", x, lo, hi);
            check(m, context + " in place, min only", () -> x.clone().clamp_(lo, null), "a.clone().clamp_(b, None)", x, lo);
            for (DType outType : DType.values()) {
                for (Inputs.Layout layout : Inputs.layouts(Tensor.zeros(outType, 3, 4))) {
                    Tensor out = layout.tensor();
                    String into = context + " into " + outType + " " + layout;
                    check(m, into, () -> x.clampOut(lo, hi, out), "torch.clamp(a, b, c, out=d)\nreturn d", x, lo, hi, Tensor.zeros(outType, 3, 4));
                    check(m, into + " max only", () -> x.clampOut(null, hi, out), "torch.clamp(a, None, b, out=c)\nreturn c", x, hi, Tensor.zeros(outType, 3, 4));
                    check(m, into + " scalar bounds", () -> x.clampOut(-0.5, 2.0, out), "torch.clamp(a, -0.5, 2.0, out=b)\nreturn b", x, Tensor.zeros(outType, 3, 4));
                }
            }
        }
    }

    @Test
    void clampWithTensorBoundsPropagatesNaNFromAnyOperand() {
        Tensor s = Inputs.specials(DType.FLOAT32);
        int n = s.numel();
        Tensor x = s.reshape(n, 1, 1), lo = s.reshape(1, n, 1), hi = s.reshape(1, 1, n);
        try (NDManager m = Torch.scope()) {
            assertClose(x.clamp(lo, hi), Torch.call(m, "torch.clamp(a, b, c)", x, lo, hi), "clamp of specials by specials");
        }
    }

    static Stream<Arguments> maskedFillCases() {
        List<Arguments> out = new ArrayList<>();
        for (DType self : DType.values()) for (DType value : List.of(DType.FLOAT64, DType.INT64, DType.BOOL)) out.add(Arguments.of(self, value));
        return out.stream();
    }

    @ParameterizedTest(name = "self {0} value {1}")
    @MethodSource("maskedFillCases")
    void maskedFillWithAZeroDimValueKeepsSelfsDtype(DType dSelf, DType dValue) {
        Random rng = new Random(dSelf.ordinal() * 5L + dValue.ordinal());
        Tensor value = switch (dValue) {
            case FLOAT64 -> Tensor.of(new double[] {-2.75}, new int[0]);
            case INT64 -> Tensor.scalar(9L);
            default -> Tensor.scalar(true);
        };
        try (NDManager m = Torch.scope()) {
            for (int[][] s : PointwiseBinaryTest.SHAPES) {
                Tensor x = input(rng, dSelf, false, s[0]), mask = Inputs.rand(rng, DType.BOOL, s[1]);
                String context = "masked_fill " + dSelf + Arrays.toString(s[0]) + " mask " + Arrays.toString(s[1]) + " value " + dValue;
                check(m, context, () -> x.maskedFill(mask, value), "a.masked_fill(b, c)", x, mask, value);
                Tensor xn = Inputs.nonContiguous(x);
                check(m, context + " non-contiguous", () -> xn.maskedFill(mask, value), "a.masked_fill(b, c)", xn, mask, value);
            }
        }
    }
}
