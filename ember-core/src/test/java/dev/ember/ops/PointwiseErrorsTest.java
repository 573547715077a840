package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every refusal of the pointwise ops: ATen's message (prefixed with the op's name), thrown by the
 * meta function — so fake tensors fail the same way — and, for in-place ops, nothing written and
 * the version counter unchanged.
 */
class PointwiseErrorsTest {

    static OpOverload op(String name) { return OpRegistry.get(name); }

    static Tensor f32() { return Tensor.of(new float[] {1f, -2f, 3f, 0.5f, -1f, 2f}, 2, 3); }

    static Tensor i64() { return Tensor.of(new long[] {1, -2, 3, 4, 5, -6}, 2, 3); }

    static Tensor b8() { return Tensor.of(new boolean[] {true, false, true, true, false, false}, 2, 3); }

    /**
     * A bad call: {@code call} applies the op to {@code self} (the tensor an in-place op would
     * write); {@code message} must appear in the error.
     */
    record Bad(String name, Tensor self, Function<Tensor, Object> call, String message) {
        @Override
        public String toString() { return name; }
    }

    static Stream<Bad> badCalls() {
        return Stream.of(
                new Bad("add: float alpha with integral result", i64(), t -> op("aten.add.Tensor").callTensor(t, i64(), 1.5),
                        "add: For integral input tensors, argument alpha must not be a floating point number."),
                new Bad("add.Scalar: float alpha with integral result", i64(), t -> op("aten.add.Scalar").callTensor(t, 2L, 0.5),
                        "For integral input tensors, argument alpha must not be a floating point number."),
                new Bad("add: bool alpha with float result", f32(), t -> op("aten.add.Tensor").callTensor(t, f32(), true),
                        "Boolean alpha only supported for Boolean results."),
                new Bad("sub: two bool tensors", b8(), t -> t.sub(b8()),
                        "sub: Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."),
                new Bad("sub: one bool tensor", f32(), t -> t.sub(b8()),
                        "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."),
                new Bad("sub.Scalar: bool tensor", b8(), t -> t.sub(1L), "with a bool tensor is not supported"),
                new Bad("rsub: bool tensor", b8(), t -> t.rsub(1.0), "rsub: Subtraction, the `-` operator, with a bool tensor is not supported"),
                new Bad("div: unknown rounding mode", f32(), t -> t.div(f32(), "round"),
                        "div: div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'"),
                new Bad("div floor: bool", b8(), t -> t.div(b8(), "floor"), "div: \"div_floor_cpu\" not implemented for 'Bool'"),
                new Bad("div trunc: bool", b8(), t -> t.div(b8(), "trunc"), "\"div_trunc_cpu\" not implemented for 'Bool'"),
                new Bad("floor_divide: bool", b8(), t -> t.floorDivide(b8()), "floor_divide: \"div_floor_cpu\" not implemented for 'Bool'"),
                new Bad("pow: integer to a negative integer", i64(), t -> op("aten.pow.Tensor_Scalar").callTensor(t, -1L),
                        "pow: Integers to negative integer powers are not allowed."),
                new Bad("pow: bool to a negative integer", b8(), t -> op("aten.pow.Tensor_Scalar").callTensor(t, -2L),
                        "Integers to negative integer powers are not allowed."),
                new Bad("pow: bool tensors", b8(), t -> t.pow(b8()), "pow: \"pow\" not implemented for 'Bool'"),
                new Bad("neg: bool", b8(), Tensor::neg,
                        "neg: Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."),
                new Bad("abs: bool", b8(), Tensor::abs, "abs: \"abs_cpu\" not implemented for 'Bool'"),
                new Bad("relu: bool", b8(), Tensor::relu, "relu: Boolean inputs not supported for relu"),
                new Bad("gelu: int64", i64(), Tensor::gelu, "gelu: \"GeluKernelImpl\" not implemented for 'Long'"),
                new Bad("gelu: unknown approximation", f32(), t -> t.gelu("erf"), "gelu: approximate argument must be either none or tanh."),
                new Bad("silu: int64", i64(), Tensor::silu, "silu: \"silu_cpu\" not implemented for 'Long'"),
                new Bad("clamp: no bounds", f32(), t -> t.clamp((Double) null, null), "clamp: torch.clamp: At least one of 'min' or 'max' must not be None"),
                new Bad("clamp.Tensor: no bounds", f32(), t -> t.clamp((Tensor) null, null), "torch.clamp: At least one of 'min' or 'max' must not be None"),
                new Bad("clamp.Tensor: bounds don't broadcast", f32(), t -> t.clamp(Tensor.of(1f, 2f), null), "must match the size of tensor b (2)"),
                new Bad("where: float condition", f32(), t -> Tensor.where(f32(), t, t),
                        "where: where expected condition to be a boolean tensor, but got a tensor with dtype Float"),
                new Bad("where: int condition, scalar other", f32(), t -> Tensor.where(i64(), t, 0.0),
                        "where expected condition to be a boolean tensor, but got a tensor with dtype Long"),
                new Bad("masked_fill: int64 mask", f32(), t -> t.maskedFill(i64(), 0.0),
                        "masked_fill: masked_fill_ only supports boolean masks, but got mask with dtype long int"),
                new Bad("masked_fill: float mask", f32(), t -> t.maskedFill(f32(), Tensor.of(1f).reshape()),
                        "masked_fill_ only supports boolean masks, but got mask with dtype float"),
                new Bad("masked_fill: 1-d value", f32(), t -> t.maskedFill(b8(), Tensor.of(1f, 2f)),
                        "masked_fill: masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."),
                new Bad("add: shapes don't broadcast", f32(), t -> t.add(Tensor.of(1f, 2f)),
                        "add: the size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"),
                new Bad("dropout: p above 1", f32(), t -> op("aten.dropout.default").callTensor(t, 1.5, true),
                        "dropout: dropout probability has to be between 0 and 1, but got 1.5"),
                new Bad("dropout: negative p even when not training", f32(), t -> op("aten.dropout.default").callTensor(t, -0.1, false),
                        "dropout probability has to be between 0 and 1, but got -0.1"),
                new Bad("dropout: training on integers", i64(), t -> op("aten.dropout.default").callTensor(t, 0.5, true),
                        "dropout: result type Float can't be cast to the desired output type Long"),

                new Bad("add_: float result into int64", i64(), t -> t.add_(f32()), "add_: result type Float can't be cast to the desired output type Long"),
                new Bad("add_.Scalar: float scalar into int64", i64(), t -> t.add_(1.5), "result type Float can't be cast to the desired output type Long"),
                new Bad("add_: int result into bool", b8(), t -> t.add_(i64()), "result type Long can't be cast to the desired output type Bool"),
                new Bad("mul_.Scalar: float into int64", i64(), t -> t.mul_(2.5), "mul_: result type Float can't be cast to the desired output type Long"),
                new Bad("div_: true division into int64", i64(), t -> t.div_(i64()), "div_: result type Float can't be cast to the desired output type Long"),
                new Bad("exp_: int64", i64(), Tensor::exp_, "exp_: result type Float can't be cast to the desired output type Long"),
                new Bad("sqrt_: bool", b8(), Tensor::sqrt_, "result type Float can't be cast to the desired output type Bool"),
                new Bad("clamp_: float bound on int64", i64(), t -> t.clamp_(0.5, null), "clamp_: result type Float can't be cast to the desired output type long int"),
                new Bad("clamp_: no bounds", f32(), t -> t.clamp_((Double) null, null), "At least one of 'min' or 'max' must not be None"),
                new Bad("add_: broadcast shape larger than self", Tensor.of(1f, 2f, 3f), t -> t.add_(f32()),
                        "add_: output with shape [3] doesn't match the broadcast shape [2, 3]"),
                new Bad("sub_: broadcast shape larger than self", Tensor.of(1f, 2f, 3f).reshape(3, 1), t -> t.sub_(Tensor.of(1f, 2f)),
                        "output with shape [3, 1] doesn't match the broadcast shape [3, 2]"),
                new Bad("masked_fill_: mask larger than self", Tensor.of(1f, 2f), t -> t.maskedFill_(Tensor.of(new boolean[] {true, false, false, true}, 2, 2), 2.7),
                        "masked_fill_: output with shape [2] doesn't match the broadcast shape [2, 2]"),
                new Bad("masked_fill_: float mask", f32(), t -> t.maskedFill_(f32(), 0.0), "masked_fill_ only supports boolean masks, but got mask with dtype float"),
                new Bad("add_: self overlaps itself", Tensor.of(1f).expand(3), t -> t.add_(1.0),
                        "add_: unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation."),
                new Bad("exp_: self overlaps itself", Tensor.of(1f, 2f).reshape(2, 1).expand(2, 3), Tensor::exp_,
                        "more than one element of the written-to tensor refers to a single memory location"),
                new Bad("neg_: bool", b8(), Tensor::neg_, "neg_: Negation, the `-` operator, on a bool tensor is not supported."),
                new Bad("abs_: bool", b8(), Tensor::abs_, "\"abs_cpu\" not implemented for 'Bool'"),
                new Bad("relu_: bool", b8(), Tensor::relu_, "relu_: Boolean inputs not supported for relu"),
                new Bad("sub_: bool", b8(), t -> t.sub_(b8()), "with two bool tensors is not supported"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badCalls")
    void refusesWithAtensMessageBeforeWritingAnything(Bad bad) {
        Tensor self = bad.self();
        Object before = copy(self.storage().data());
        int version = self.version();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> bad.call().apply(self), bad.name());
        assertTrue(e.getMessage().contains(bad.message()), bad.name() + ": message was '" + e.getMessage() + "'");
        assertTrue(Objects.deepEquals(before, self.storage().data()), bad.name() + ": nothing written");
        assertEquals(version, self.version(), bad.name() + ": version unchanged");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badCalls")
    void fakeTensorsAreRefusedTheSameWay(Bad bad) {
        // the checks live in the meta functions: a fake self fails with the same message
        FakeTensor fake = FakeTensor.like(bad.self());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> bad.call().apply(fake), bad.name());
        assertTrue(e.getMessage().contains(bad.message()), bad.name() + ": message was '" + e.getMessage() + "'");
    }

    @Test
    void integerDivisionByZeroIsAZeroDivisionError() {
        Tensor a = Tensor.ofLongs(5, 3, -4), zeroAmong = Tensor.ofLongs(2, 0, 1);
        for (Function<Tensor, Tensor> call : List.<Function<Tensor, Tensor>>of(
                t -> t.div(zeroAmong, "floor"), t -> t.div(zeroAmong, "trunc"), t -> t.floorDivide(zeroAmong),
                t -> op("aten.floor_divide.Scalar").callTensor(t, 0L),
                t -> op("aten.div.Scalar_mode").callTensor(t.to(DType.INT32), 0L, "trunc"))) {
            ArithmeticException e = assertThrows(ArithmeticException.class, () -> call.apply(a));
            assertTrue(e.getMessage().contains("ZeroDivisionError"), e.getMessage());
        }
        // floating division by zero is IEEE: inf, -inf, nan
        assertArrayEquals(new float[] {Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN},
                Tensor.of(1f, -1f, 0f).div(Tensor.of(0f, 0f, 0f), "floor").toFloatArray());
        // true division of integers computes in float: no error either
        assertEquals(Float.POSITIVE_INFINITY, a.div(zeroAmong).toFloatArray()[1]);
    }

    private static Object copy(Object array) {
        int n = java.lang.reflect.Array.getLength(array);
        Object c = java.lang.reflect.Array.newInstance(array.getClass().getComponentType(), n);
        System.arraycopy(array, 0, c, 0, n);
        return c;
    }
}
