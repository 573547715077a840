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
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static dev.ember.ops.PointwiseBinaryTest.check;
import static dev.ember.ops.PointwiseBinaryTest.input;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The Scalar overloads against libtorch: a Java {@code long} is a Python int and a {@code double}
 * a Python float, so they promote as wrapped numbers (int32 tensor + 2.5 is float32, int32 + 3
 * stays int32).
 */
class PointwiseScalarTest {

    static OpOverload op(String name) { return OpRegistry.get(name); }

    /** An op taking (tensor, scalar): its registry name and its TorchScript spelling on {@code a, b}. */
    record Op(String name, String aten, String torch, boolean divides) {
        @Override
        public String toString() { return name; }
    }

    static final List<Op> OPS = List.of(
            new Op("add", "aten.add.Scalar", "torch.add(a, b)", false),
            new Op("sub", "aten.sub.Scalar", "torch.sub(a, b)", false),
            new Op("rsub", "aten.rsub.Scalar", "torch.rsub(a, b)", false),
            new Op("mul", "aten.mul.Scalar", "torch.mul(a, b)", false),
            new Op("div", "aten.div.Scalar", "torch.div(a, b)", false),
            new Op("floor_divide", "aten.floor_divide.Scalar", "torch.floor_divide(a, b)", true),
            new Op("pow", "aten.pow.Tensor_Scalar", "torch.pow(a, b)", false),
            new Op("eq", "aten.eq.Scalar", "torch.eq(a, b)", false),
            new Op("ne", "aten.ne.Scalar", "torch.ne(a, b)", false),
            new Op("lt", "aten.lt.Scalar", "torch.lt(a, b)", false),
            new Op("le", "aten.le.Scalar", "torch.le(a, b)", false),
            new Op("gt", "aten.gt.Scalar", "torch.gt(a, b)", false),
            new Op("ge", "aten.ge.Scalar", "torch.ge(a, b)", false),
            new Op("bitwise_and", "aten.bitwise_and.Scalar", "torch.bitwise_and(a, b)", false),
            new Op("bitwise_or", "aten.bitwise_or.Scalar", "torch.bitwise_or(a, b)", false),
            new Op("bitwise_xor", "aten.bitwise_xor.Scalar", "torch.bitwise_xor(a, b)", false));

    static final List<Object> SCALARS = List.of(3L, -2L, 2.5, -0.5, 0.0);

    static final List<int[]> SHAPES = List.of(new int[] {}, new int[] {0}, new int[] {7}, new int[] {3, 37}, new int[] {2, 3, 4});

    static Stream<Arguments> opsAndDtypes() {
        List<Arguments> out = new ArrayList<>();
        for (Op op : OPS) for (DType d : DType.values()) out.add(Arguments.of(op, d));
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("opsAndDtypes")
    void matchesLibtorchForIntAndFloatScalars(Op op, DType dtype) {
        Random rng = new Random(op.name().hashCode() + 17L * dtype.ordinal());
        try (NDManager m = Torch.scope()) {
            for (int[] shape : SHAPES) {
                Tensor a = input(rng, dtype, false, shape);
                for (Inputs.Layout layout : Inputs.layouts(a)) {
                    Tensor x = layout.tensor();
                    for (Object s : SCALARS) {
                        if (op.divides() && ((Number) s).doubleValue() == 0 && !dtype.isFloatingPoint()) continue;
                        check(m, op + " " + layout + " " + s, () -> op(op.aten()).callTensor(x, s), op.torch(), x, s);
                    }
                }
            }
        }
    }

    static Stream<Arguments> alphaAndModes() {
        List<Arguments> out = new ArrayList<>();
        for (DType d : DType.values()) for (Object s : List.of(3L, 2.5, -7L)) out.add(Arguments.of(d, s));
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("alphaAndModes")
    void alphaAndRoundingModesMatchLibtorch(DType dtype, Object s) {
        Random rng = new Random(5);
        Tensor x = input(rng, dtype, false, 4, 19);
        try (NDManager m = Torch.scope()) {
            for (Object alpha : List.of(2L, -1L, 0.5)) {
                check(m, "add alpha " + alpha, () -> op("aten.add.Scalar").callTensor(x, s, alpha), "torch.add(a, b, alpha=c)", x, s, alpha);
                check(m, "sub alpha " + alpha, () -> op("aten.sub.Scalar").callTensor(x, s, alpha), "torch.sub(a, b, alpha=c)", x, s, alpha);
                check(m, "rsub alpha " + alpha, () -> op("aten.rsub.Scalar").callTensor(x, s, alpha), "torch.rsub(a, b, alpha=c)", x, s, alpha);
            }
            for (String mode : List.of("trunc", "floor")) {
                check(m, "div " + mode, () -> op("aten.div.Scalar_mode").callTensor(x, s, mode), "torch.div(a, b, rounding_mode=c)", x, s, mode);
            }
        }
    }

    static Stream<Arguments> powCases() {
        List<Arguments> out = new ArrayList<>();
        for (DType d : DType.values()) out.add(Arguments.of(d));
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("powCases")
    void powWithEveryFastPathExponent(DType dtype) {
        // 0 and 1 fill and copy; 2, 3, ±0.5, -1, -2 have dedicated kernels in ATen (and here); the rest call pow
        Random rng = new Random(9);
        Tensor base = dtype.isFloatingPoint() ? Inputs.uniform(rng, dtype, 0.1, 3, 5, 21) : input(rng, dtype, false, 5, 21);
        List<Object> exponents = List.of(0L, 1L, 2L, 3L, -1L, -2L, 13L, 0.0, 1.0, 2.0, 3.0, 0.5, -0.5, -1.0, -2.0, 1.7, -2.3);
        try (NDManager m = Torch.scope()) {
            for (Object e : exponents) {
                for (Tensor x : List.of(base, Inputs.nonContiguous(base), Inputs.specials(dtype))) {
                    check(m, "pow " + dtype + " ** " + e, () -> op("aten.pow.Tensor_Scalar").callTensor(x, e), "torch.pow(a, b)", x, e);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("powCases")
    void clampWithScalarBoundsMatchesLibtorch(DType dtype) {
        Random rng = new Random(13);
        Tensor x = input(rng, dtype, false, 3, 40);
        Object[][] bounds = {{-0.5, 0.5}, {null, 1.5}, {-1L, null}, {2L, -2L}, {0L, 4L}, {Double.NaN, null}, {null, Double.NaN}, {-1.0, Double.NaN}};
        try (NDManager m = Torch.scope()) {
            for (Tensor in : List.of(x, Inputs.nonContiguous(x), Inputs.specials(dtype))) {
                for (Object[] b : bounds) {
                    String expr = "torch.clamp(a, " + (b[0] == null ? "None" : "b") + ", " + (b[1] == null ? "None" : "c") + ")";
                    List<Object> args = new ArrayList<>(List.of(in));
                    if (b[0] != null) args.add(b[0]);
                    if (b[1] != null) args.add(b[1]);
                    if (b[0] == null && b[1] != null) expr = "torch.clamp(a, None, b)";
                    check(m, "clamp " + dtype + " [" + b[0] + ", " + b[1] + "]",
                            () -> op("aten.clamp.default").callTensor(in, b[0], b[1]), expr, args.toArray());
                }
            }
        }
    }

    @Test
    void whereWithAScalarOtherAndMaskedFillWithAScalarValue() {
        Random rng = new Random(21);
        try (NDManager m = Torch.scope()) {
            for (DType d : DType.values()) {
                Tensor x = input(rng, d, false, 3, 33), cond = Inputs.rand(rng, DType.BOOL, 3, 33), row = Inputs.rand(rng, DType.BOOL, 33);
                for (Object v : List.of(2.5, -4L)) {
                    check(m, "where scalar " + d + " " + v, () -> op("aten.where.ScalarOther").callTensor(cond, x, v), "torch.where(a, b, c)", cond, x, v);
                    check(m, "masked_fill " + d + " " + v, () -> op("aten.masked_fill.Scalar").callTensor(x, row, v), "a.masked_fill(b, c)", x, row, v);
                    Tensor xt = Inputs.nonContiguous(x);
                    check(m, "masked_fill transposed " + d + " " + v, () -> op("aten.masked_fill.Scalar").callTensor(xt, cond, v), "a.masked_fill(b, c)", xt, cond, v);
                }
            }
        }
    }

    @Test
    void wrappedNumbersPromoteOnlyAcrossCategories() {
        Tensor i32 = Tensor.of(new int[] {1, 2, 3}, 3), f32 = Tensor.of(1f, 2f), b = Tensor.of(new boolean[] {true, false}, 2);
        assertEquals(DType.INT32, op("aten.add.Scalar").callTensor(i32, 3L).dtype());
        assertEquals(DType.FLOAT32, op("aten.add.Scalar").callTensor(i32, 2.5).dtype());
        assertEquals(DType.FLOAT32, op("aten.mul.Scalar").callTensor(f32, 2.5).dtype());
        assertEquals(DType.INT64, op("aten.mul.Scalar").callTensor(b, 3L).dtype());
        assertEquals(DType.FLOAT32, op("aten.div.Scalar").callTensor(i32, 2L).dtype());
        assertEquals(DType.INT32, op("aten.div.Scalar_mode").callTensor(i32, 2L, "floor").dtype());
        try (NDManager m = Torch.scope()) {
            assertClose(op("aten.mul.Scalar").callTensor(b, 3L), Torch.call(m, "torch.mul(a, 3)", b), "bool * 3");
            assertClose(op("aten.add.Scalar").callTensor(Tensor.of(new int[] {Integer.MAX_VALUE}, 1), 1L),
                    Torch.call(m, "torch.add(a, 1)", Tensor.of(new int[] {Integer.MAX_VALUE}, 1)), "int32 wraps");
        }
    }
}
