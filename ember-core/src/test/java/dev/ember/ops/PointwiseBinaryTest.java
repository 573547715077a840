package dev.ember.ops;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.BinaryOperator;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Tensor-tensor binary ops against libtorch: every dtype and mixed-dtype pair, every broadcast
 * shape pair of the harness (0-d and zero-size included), contiguous and non-contiguous layouts.
 * Where libtorch refuses a combination (bool subtraction, bool floor division, …) Ember must
 * refuse it too, with libtorch's message.
 */
class PointwiseBinaryTest {

    /** One op: how Ember calls it and how TorchScript spells it on {@code a, b}. */
    record Op(String name, String torch, BinaryOperator<Tensor> ember, boolean nonZeroDivisor) {
        @Override
        public String toString() { return name; }
    }

    static OpOverload op(String name) { return OpRegistry.get(name); }

    static final List<Op> OPS = List.of(
            new Op("add", "torch.add(a, b)", Tensor::add, false),
            new Op("add alpha=2", "torch.add(a, b, alpha=2)", (x, y) -> op("aten.add.Tensor").callTensor(x, y, 2L), false),
            new Op("sub", "torch.sub(a, b)", Tensor::sub, false),
            new Op("sub alpha=3", "torch.sub(a, b, alpha=3)", (x, y) -> op("aten.sub.Tensor").callTensor(x, y, 3L), false),
            new Op("mul", "torch.mul(a, b)", Tensor::mul, false),
            new Op("div", "torch.div(a, b)", Tensor::div, false),
            new Op("div trunc", "torch.div(a, b, rounding_mode='trunc')", (x, y) -> x.div(y, "trunc"), true),
            new Op("div floor", "torch.div(a, b, rounding_mode='floor')", (x, y) -> x.div(y, "floor"), true),
            new Op("floor_divide", "torch.floor_divide(a, b)", Tensor::floorDivide, true),
            new Op("pow", "torch.pow(a, b)", Tensor::pow, false),
            new Op("maximum", "torch.maximum(a, b)", Tensor::maximum, false),
            new Op("minimum", "torch.minimum(a, b)", Tensor::minimum, false),
            new Op("eq", "torch.eq(a, b)", Tensor::eq, false),
            new Op("ne", "torch.ne(a, b)", Tensor::ne, false),
            new Op("lt", "torch.lt(a, b)", Tensor::lt, false),
            new Op("le", "torch.le(a, b)", Tensor::le, false),
            new Op("gt", "torch.gt(a, b)", Tensor::gt, false),
            new Op("ge", "torch.ge(a, b)", Tensor::ge, false),
            new Op("logical_and", "torch.logical_and(a, b)", Tensor::logicalAnd, false),
            new Op("logical_or", "torch.logical_or(a, b)", Tensor::logicalOr, false),
            new Op("logical_xor", "torch.logical_xor(a, b)", Tensor::logicalXor, false),
            new Op("bitwise_and", "torch.bitwise_and(a, b)", Tensor::bitwiseAnd, false),
            new Op("bitwise_or", "torch.bitwise_or(a, b)", Tensor::bitwiseOr, false),
            new Op("bitwise_xor", "torch.bitwise_xor(a, b)", Tensor::bitwiseXor, false),
            new Op("atan2", "torch.atan2(a, b)", Tensor::atan2, false));

    static final List<DType[]> DTYPE_PAIRS = List.of(
            new DType[] {DType.FLOAT32, DType.FLOAT32}, new DType[] {DType.FLOAT64, DType.FLOAT64},
            new DType[] {DType.INT32, DType.INT32}, new DType[] {DType.INT64, DType.INT64}, new DType[] {DType.BOOL, DType.BOOL},
            new DType[] {DType.INT32, DType.INT64}, new DType[] {DType.INT64, DType.FLOAT32}, new DType[] {DType.FLOAT32, DType.FLOAT64},
            new DType[] {DType.BOOL, DType.INT32}, new DType[] {DType.FLOAT64, DType.BOOL}, new DType[] {DType.INT32, DType.FLOAT64});

    /** The harness's broadcast pairs plus rows longer than a SIMD vector (16 floats), with odd tails. */
    static final List<int[][]> SHAPES = Stream.concat(Inputs.BROADCAST_SHAPES.stream(), Stream.of(
            new int[][] {{3, 37}, {3, 37}}, new int[][] {{2, 41}, {41}}, new int[][] {{35}, {2, 35}},
            new int[][] {{4, 1}, {4, 50}}, new int[][] {{2, 3, 20}, {3, 1}})).toList();

    /** Random values of any dtype: normal for floats, small integers for ints (non-zero for divisors), coin flips for bool. */
    static Tensor input(Random rng, DType dtype, boolean nonZero, int... shape) {
        Tensor t = switch (dtype) {
            case FLOAT32, FLOAT64 -> Inputs.randn(rng, dtype, shape);
            case INT32, INT64 -> Inputs.randint(rng, dtype, -9, 10, shape);
            case BOOL -> Inputs.rand(rng, dtype, shape);
        };
        if (!nonZero || dtype.isFloatingPoint() || dtype == DType.BOOL) return t;
        long[] v = t.toLongArray();
        for (int i = 0; i < v.length; i++) if (v[i] == 0) v[i] = 3;
        return Tensor.of(v, shape).to(dtype);
    }

    /** The text libtorch put after "Error: " in a failure, i.e. ATen's own message. */
    static String atenMessage(RuntimeException e) {
        String m = e.getMessage();
        int i = m.lastIndexOf("Error: ");
        String msg = i < 0 ? m : m.substring(i + 7);
        int nl = msg.indexOf('\n');
        return nl < 0 ? msg : msg.substring(0, nl);
    }

    /**
     * Runs {@code ember} and {@code torch}: both must succeed with close results, or both fail.
     * Ember's message must then contain ATen's, except for broadcasting (worded by {@code Shapes}).
     */
    static void check(NDManager m, String context, Supplier<Tensor> ember, String torch, Object... torchArgs) {
        NDArray expected;
        try {
            expected = Torch.call(m, torch, torchArgs);
        } catch (IllegalStateException torchError) {
            String aten = atenMessage(torchError);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, ember::get, context + ": libtorch fails with '" + aten + "'");
            if (!aten.startsWith("The size of tensor")) {
                assertTrue(e.getMessage().contains(aten), context + ": Ember says '" + e.getMessage() + "', ATen '" + aten + "'");
            }
            return;
        }
        Tensor actual;
        try {
            actual = ember.get();
        } catch (RuntimeException e) {
            fail(context + ": libtorch computes " + expected.getDataType() + expected.getShape() + " but Ember throws " + e, e);
            return;
        }
        assertClose(actual, expected, context);
    }

    static Stream<Arguments> opsAndDtypes() {
        List<Arguments> out = new ArrayList<>();
        for (Op op : OPS) for (DType[] p : DTYPE_PAIRS) out.add(Arguments.of(op, p[0], p[1]));
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("opsAndDtypes")
    void matchesLibtorchOnEveryBroadcastShapeAndLayout(Op op, DType da, DType db) {
        Random rng = new Random(op.name().hashCode() * 31L + da.ordinal() * 7L + db.ordinal());
        try (NDManager m = Torch.scope()) {
            for (int[][] s : SHAPES) {
                Tensor a = input(rng, da, false, s[0]), b = input(rng, db, op.nonZeroDivisor(), s[1]);
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
    @MethodSource("floatDtypes")
    void specialValuesFollowAten(DType dtype) {
        // every special value against every other: NaN, ±inf, ±0, subnormals, extremes
        Tensor s = Inputs.specials(dtype);
        int n = s.numel();
        Tensor a = s.reshape(n, 1), b = s.reshape(1, n);
        try (NDManager m = Torch.scope()) {
            for (Op op : OPS) {
                check(m, op + " specials " + dtype, () -> op.ember().apply(a, b), op.torch(), a, b);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("integerDtypes")
    void integerExtremesWrapAndRoundLikeAten(DType dtype) {
        Tensor s = Inputs.specials(dtype);
        int n = s.numel();
        Tensor a = s.reshape(n, 1), b = s.reshape(1, n);
        try (NDManager m = Torch.scope()) {
            for (String name : List.of("add", "sub", "mul", "maximum", "minimum", "lt", "eq")) {
                Op op = OPS.stream().filter(o -> o.name().equals(name)).findFirst().orElseThrow();
                check(m, op + " extremes " + dtype, () -> op.ember().apply(a, b), op.torch(), a, b);
            }
            // division by the specials but 0 and -1 (libtorch itself dies of SIGFPE on MIN / -1): floor and trunc differ on negative quotients
            Tensor nonZero = Tensor.of(new long[] {1, 7, -7, dtype == DType.INT32 ? Integer.MAX_VALUE : Long.MAX_VALUE,
                    dtype == DType.INT32 ? Integer.MIN_VALUE : Long.MIN_VALUE}, 1, 5).to(dtype);
            for (String mode : List.of("trunc", "floor")) {
                check(m, "div " + mode + " extremes " + dtype, () -> a.div(nonZero, mode),
                        "torch.div(a, b, rounding_mode='" + mode + "')", a, nonZero);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("largeCases")
    void largeTensorsSplitAcrossCoresMatch(String layout, DType dtype) {
        // big enough that even an add forks: the elements are cut into equal spans that start and end inside rows
        Random rng = new Random(7);
        int[] shape = layout.equals("one long row") ? new int[] {600_011} : new int[] {3, 200_003};
        Tensor x = input(rng, dtype, false, shape), b = input(rng, dtype, true, shape);
        try (NDManager m = Torch.scope()) {
            check(m, "add " + layout, () -> x.add(b), "torch.add(a, b)", x, b);
            check(m, "mul row broadcast " + layout, () -> x.mul(b.select(0, 0)), "torch.mul(a, b[0])", x, b);
            check(m, "div floor " + layout, () -> x.div(b, "floor"), "torch.div(a, b, rounding_mode='floor')", x, b);
            check(m, "maximum " + layout, () -> x.maximum(b), "torch.maximum(a, b)", x, b);
        }
    }

    static Stream<Arguments> largeCases() {
        return Stream.of(Arguments.of("one long row", DType.FLOAT32), Arguments.of("one long row", DType.FLOAT64),
                Arguments.of("few long rows", DType.FLOAT32), Arguments.of("few long rows", DType.INT64));
    }

    static Stream<DType> floatDtypes() { return Stream.of(DType.FLOAT32, DType.FLOAT64); }

    static Stream<DType> integerDtypes() { return Stream.of(DType.INT32, DType.INT64); }

    @ParameterizedTest(name = "{0}")
    @MethodSource("floatDtypes")
    void comparisonsOfTiedValuesInLongRows(DType dtype) {
        // integer-valued floats tie often: equality and <= vs < differ on the SIMD lanes, not only in the tails
        Random rng = new Random(4);
        Tensor a = Inputs.randint(rng, dtype, -3, 3, 4, 53), b = Inputs.randint(rng, dtype, -3, 3, 4, 53), zeroD = Tensor.scalar(1L).to(dtype);
        try (NDManager m = Torch.scope()) {
            for (Op op : OPS.subList(12, 18)) {
                check(m, op + " ties " + dtype, () -> op.ember().apply(a, b), op.torch(), a, b);
                check(m, op + " ties, 0-d right " + dtype, () -> op.ember().apply(a, zeroD), op.torch(), a, zeroD);
                check(m, op + " ties, 0-d left " + dtype, () -> op.ember().apply(zeroD, a), op.torch(), zeroD, a);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("floatDtypes")
    void scalarBroadcastOperandOnEitherSideUsesTheSimdLoops(DType dtype) {
        // a [n] op [n, 1] row-broadcast and a 0-d operand on the left: the stride-0 SIMD paths, with tails
        Random rng = new Random(3);
        try (NDManager m = Torch.scope()) {
            for (int n : new int[] {1, 15, 16, 17, 33, 100}) {
                Tensor a = Inputs.randn(rng, dtype, 3, n), col = Inputs.randn(rng, dtype, 3, 1), zeroD = Inputs.randn(rng, dtype);
                for (Op op : OPS) {
                    check(m, op + " col " + n, () -> op.ember().apply(a, col), op.torch(), a, col);
                    check(m, op + " 0-d left " + n, () -> op.ember().apply(zeroD, a), op.torch(), zeroD, a);
                }
            }
        }
        assertEquals(dtype, Inputs.randn(rng, dtype, 2).add(Inputs.randn(rng, dtype, 2)).dtype());
    }
}
