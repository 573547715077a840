package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pointwise ops as the registry and the tracer see them: names, tags, and fake-tensor metadata. */
class PointwiseRegistryTest {

    static final List<String> OUT_OF_PLACE = List.of(
            "add.Tensor", "add.Scalar", "sub.Tensor", "sub.Scalar", "rsub.Scalar", "mul.Tensor", "mul.Scalar", "div.Tensor", "div.Scalar",
            "div.Tensor_mode", "div.Scalar_mode", "floor_divide.default", "floor_divide.Scalar", "pow.Tensor_Tensor", "pow.Tensor_Scalar",
            "maximum.default", "minimum.default", "neg.default", "abs.default", "exp.default", "log.default", "log1p.default", "sqrt.default",
            "rsqrt.default", "sin.default", "cos.default", "tanh.default", "sigmoid.default", "relu.default", "gelu.default", "silu.default",
            "clamp.default", "clamp.Tensor", "where.self", "where.ScalarOther", "masked_fill.Scalar", "masked_fill.Tensor",
            "eq.Tensor", "eq.Scalar", "ne.Tensor", "ne.Scalar", "lt.Tensor", "lt.Scalar", "le.Tensor", "le.Scalar", "gt.Tensor", "gt.Scalar",
            "ge.Tensor", "ge.Scalar", "logical_and.default", "logical_or.default", "logical_not.default", "dropout.default");

    static final List<String> IN_PLACE = List.of(
            "add_.Tensor", "add_.Scalar", "sub_.Tensor", "sub_.Scalar", "mul_.Tensor", "mul_.Scalar", "div_.Tensor", "div_.Scalar",
            "neg_.default", "abs_.default", "exp_.default", "sqrt_.default", "tanh_.default", "sigmoid_.default", "relu_.default",
            "clamp_.default", "fill_.Scalar", "zero_.default", "masked_fill_.Scalar");

    static final List<String> OUT = List.of(
            "add.out", "sub.out", "mul.out", "div.out", "div.out_mode", "neg.out", "abs.out", "exp.out", "sqrt.out", "tanh.out", "sigmoid.out");

    @Test
    void outOpsArePointwiseWriteTheirKeywordOnlyOutAndReturnIt() {
        for (String name : OUT) {
            OpOverload op = OpRegistry.get("aten." + name);
            Schema s = op.schema();
            assertTrue(op.hasTag(Tag.POINTWISE) && !op.hasTag(Tag.INPLACE), name);
            assertEquals(Schema.Kind.OUT, s.kind(), name);
            assertEquals(s.params().size() - 1, s.outIndex(), name + ": out is the last argument");
            assertTrue(s.param(s.outIndex()).kwargOnly() && s.param(s.outIndex()).mutable(), name);
            assertEquals(s.outIndex(), op.writtenArg(), name);
            assertEquals("Tensor(a!)", s.returns(), name);
        }
        assertEquals(Schema.Kind.INPLACE, OpRegistry.get("aten.add_.Tensor").schema().kind());
        assertEquals(Schema.Kind.FUNCTIONAL, OpRegistry.get("aten.add.Tensor").schema().kind());
        assertEquals(-1, OpRegistry.get("aten.add.Tensor").writtenArg());
        FakeTensor x = new FakeTensor(TensorMeta.contiguous(DType.INT32, 2, 3)), out = new FakeTensor(TensorMeta.contiguous(DType.FLOAT64, 2, 3));
        assertSame(out, x.addOut(x, out), "an out op returns out, also when fake");
        assertSame(out, x.expOut(out));
        var e = assertThrows(IllegalArgumentException.class, () -> x.addOut(x, new FakeTensor(TensorMeta.contiguous(DType.FLOAT64, 3))));
        assertTrue(e.getMessage().contains("the out tensor has shape [3] but the result has shape [2, 3]"), e.getMessage());
    }

    @Test
    void everyOpIsRegisteredAndTaggedPointwiseInPlaceOnesAlsoInplace() {
        for (String name : OUT_OF_PLACE) {
            OpOverload op = OpRegistry.get("aten." + name);
            assertTrue(op.hasTag(Tag.POINTWISE), name);
            assertTrue(!op.hasTag(Tag.INPLACE), name);
        }
        for (String name : IN_PLACE) {
            OpOverload op = OpRegistry.get("aten." + name);
            assertTrue(op.hasTag(Tag.POINTWISE) && op.hasTag(Tag.INPLACE), name);
        }
        Tensor x = Tensor.of(1f);
        assertEquals(1L, OpRegistry.get("aten.add.Tensor").bind(x, x).get(2), "alpha defaults to the int 1, as in ATen's schema");
        assertEquals("none", OpRegistry.get("aten.gelu.default").bind(x).get(1));
    }

    @Test
    void fakeTensorsGetTheBroadcastShapeAndPromotedDtypeWithoutData() {
        FakeTensor a = new FakeTensor(TensorMeta.contiguous(DType.INT32, 4, 1, 3)), b = new FakeTensor(TensorMeta.contiguous(DType.FLOAT64, 2, 1));
        Tensor sum = a.add(b);
        assertTrue(sum.isFake());
        assertEquals(DType.FLOAT64, sum.dtype());
        assertArrayEquals(new int[] {4, 2, 3}, sum.shape());
        assertEquals(DType.FLOAT32, a.div(a).dtype(), "true division of ints is float");
        assertEquals(DType.INT32, a.div(a, "floor").dtype());
        assertEquals(DType.BOOL, a.lt(b).dtype());
        assertEquals(DType.FLOAT32, a.exp().dtype());
        assertEquals(DType.INT32, a.maskedFill(new FakeTensor(TensorMeta.contiguous(DType.BOOL, 3)), 2.5).dtype());
        assertArrayEquals(new int[] {4, 2, 3}, Tensor.where(new FakeTensor(TensorMeta.contiguous(DType.BOOL, 3)), a, b).shape());
        FakeTensor self = new FakeTensor(TensorMeta.contiguous(DType.FLOAT32, 2, 3));
        assertSame(self, self.add_(new FakeTensor(TensorMeta.contiguous(DType.FLOAT64, 3))), "in-place ops return self, also when fake");
    }

    @Test
    void outputsAreFreshAndContiguousWhateverTheInputLayout() {
        Tensor x = Tensor.arange(0, 12, 1).to(DType.FLOAT32).reshape(3, 4).t();
        for (Tensor out : List.of(x.add(1.0), x.exp(), x.mul(x), x.gt(0.5), x.clamp(1.0, 5.0), Tensor.where(x.gt(3), x, x.neg()))) {
            assertTrue(out.isContiguous());
            assertArrayEquals(new int[] {4, 3}, out.shape());
            assertTrue(out.storage() != x.storage());
        }
    }
}
