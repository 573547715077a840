package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.*;

/** scaled_dot_product_attention against libtorch's own op: masks, causality, scale, broadcasting, layouts; and its errors. */
class AttentionOpsTest {
    private static final OpOverload SDPA = OpRegistry.get("aten.scaled_dot_product_attention.default");
    private static final String TORCH_SDPA = "torch.scaled_dot_product_attention(a, b, c, attn_mask=";

    private static Tensor sdpa(Object... args) { return SDPA.callTensor(args); }

    @Test
    void plainAttentionForBothFloatTypesAndLayouts() {
        Random rng = new Random(21);
        for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            Tensor q = Inputs.randn(rng, d, 2, 3, 4, 8), k = Inputs.randn(rng, d, 2, 3, 6, 8), v = Inputs.randn(rng, d, 2, 3, 6, 5);
            for (Inputs.Layout lq : Inputs.layouts(q)) {
                Tensor kt = Inputs.nonContiguous(k);
                assertClose(sdpa(lq.tensor(), kt, v), Torch.call("torch.scaled_dot_product_attention(a, b, c)", q, k, v), "sdpa " + d + " q " + lq);
            }
            Tensor q2 = Inputs.randn(rng, d, 5, 3), k2 = Inputs.randn(rng, d, 7, 3), v2 = Inputs.randn(rng, d, 7, 2);
            assertClose(sdpa(q2, k2, v2), Torch.call("torch.scaled_dot_product_attention(a, b, c)", q2, k2, v2), "2-d " + d);
        }
    }

    @Test
    void boolMasksAttendWhereTrueAndFullyMaskedRowsGiveZeros() {
        Random rng = new Random(22);
        Tensor q = Inputs.randn(rng, DType.FLOAT32, 2, 3, 4, 8), k = Inputs.randn(rng, DType.FLOAT32, 2, 3, 6, 8), v = Inputs.randn(rng, DType.FLOAT32, 2, 3, 6, 5);
        Tensor mask = Inputs.randint(rng, DType.BOOL, 0, 2, 4, 6);
        mask.select(0, 1).fill_(0);                                     // row 1 attends to nothing
        Tensor out = sdpa(q, k, v, mask);
        assertClose(out, Torch.call(TORCH_SDPA + "d)", q, k, v, mask), "bool [L, S] mask");
        assertArrayEquals(new double[2 * 3 * 5], out.select(2, 1).toDoubleArray(), "fully masked row");
        Tensor perHead = Inputs.randint(rng, DType.BOOL, 0, 2, 2, 1, 4, 6);
        assertClose(sdpa(q, k, v, perHead), Torch.call(TORCH_SDPA + "d)", q, k, v, perHead), "bool [B, 1, L, S] mask");
        Tensor strided = Inputs.nonContiguous(perHead);
        assertClose(sdpa(q, k, v, strided), Torch.call(TORCH_SDPA + "d)", q, k, v, perHead), "non-contiguous mask");
    }

    @Test
    void floatMasksAreAdded() {
        Random rng = new Random(23);
        for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            Tensor q = Inputs.randn(rng, d, 2, 4, 8), k = Inputs.randn(rng, d, 2, 6, 8), v = Inputs.randn(rng, d, 2, 6, 3);
            Tensor bias = Inputs.randn(rng, d, 2, 4, 6);
            assertClose(sdpa(q, k, v, bias), Torch.call(TORCH_SDPA + "d)", q, k, v, bias), "float mask " + d);
            Tensor withInf = bias.maskedFill(Inputs.randint(rng, DType.BOOL, 0, 2, 4, 6), Double.NEGATIVE_INFINITY);
            assertClose(sdpa(q, k, v, withInf), Torch.call(TORCH_SDPA + "d)", q, k, v, withInf), "float mask with -inf " + d);
        }
    }

    @Test
    void causalScaleAndBroadcastBatches() {
        Random rng = new Random(24);
        Tensor q = Inputs.randn(rng, DType.FLOAT64, 2, 3, 4, 8), k = Inputs.randn(rng, DType.FLOAT64, 2, 3, 6, 8), v = Inputs.randn(rng, DType.FLOAT64, 2, 3, 6, 5);
        assertClose(sdpa(q, k, v, null, 0.0, true), Torch.call(TORCH_SDPA + "None, is_causal=True)", q, k, v), "causal L < S");
        Tensor qLong = Inputs.randn(rng, DType.FLOAT64, 2, 3, 7, 8);
        assertClose(sdpa(qLong, k, v, null, 0.0, true), Torch.call(TORCH_SDPA + "None, is_causal=True)", qLong, k, v), "causal L > S");
        assertClose(sdpa(q, k, v, null, 0.0, false, 0.3), Torch.call(TORCH_SDPA + "None, scale=0.3)", q, k, v), "scale 0.3");
        assertClose(sdpa(q, k, v, null, 0.0, false, -0.5), Torch.call(TORCH_SDPA + "None, scale=-0.5)", q, k, v), "negative scale");
        Tensor kShared = Inputs.randn(rng, DType.FLOAT64, 3, 6, 8), vShared = Inputs.randn(rng, DType.FLOAT64, 1, 6, 5);
        assertClose(sdpa(q, kShared, vShared), Torch.call("torch.scaled_dot_product_attention(a, b, c)", q, kShared, vShared), "broadcast batch");
    }

    @Test
    void dropoutZeroesTheWeights() {
        Random rng = new Random(25);
        Tensor q = Inputs.randn(rng, DType.FLOAT32, 2, 4, 8), k = Inputs.randn(rng, DType.FLOAT32, 2, 6, 8), v = Inputs.randn(rng, DType.FLOAT32, 2, 6, 3);
        assertArrayEquals(new double[2 * 4 * 3], sdpa(q, k, v, null, 1.0, false).toDoubleArray());
        Tensor plain = sdpa(q, k, v), dropped = sdpa(q, k, v, null, 0.5, false);
        assertArrayEquals(plain.shape(), dropped.shape());
        assertFalse(plain.sameData(dropped));
    }

    @Test
    void fakeInputsGiveTheOutputShape() {
        Tensor q = new FakeTensor(TensorMeta.contiguous(DType.FLOAT32, 2, 1, 5, 8));
        Tensor k = new FakeTensor(TensorMeta.contiguous(DType.FLOAT32, 3, 7, 8));
        Tensor v = new FakeTensor(TensorMeta.contiguous(DType.FLOAT32, 3, 7, 4));
        Tensor out = sdpa(q, k, v);
        assertTrue(out.isFake());
        assertArrayEquals(new int[] {2, 3, 5, 4}, out.shape());
    }

    @Test
    void badInputsFailWithClearMessages() {
        Tensor q = Tensor.randn(2, 4, 8), k = Tensor.randn(2, 6, 8), v = Tensor.randn(2, 6, 3);
        assertError("Expected query, key, and value to have the same dtype", q, k.to(DType.FLOAT64), v);
        assertError("at least 2 dimensional", Tensor.randn(8), k, v);
        assertError("to be floating point", q.to(DType.INT64), k.to(DType.INT64), v.to(DType.INT64));
        assertError("Expected attn_mask dtype to be bool or float or to match query dtype", q, k, v, Tensor.zeros(DType.INT64, 4, 6));
        assertError("Expected attn_mask dtype", q, k, v, Tensor.zeros(DType.FLOAT64, 4, 6));
        assertError("Explicit attn_mask should not be set when is_causal=True", q, k, v, Tensor.zeros(DType.BOOL, 4, 6), 0.0, true);
        assertError("query and key must have the same embedding size", q, Tensor.randn(2, 6, 7), v);
        assertError("key and value must have the same sequence length", q, k, Tensor.randn(2, 5, 3));
        assertError("attn_mask of shape [4, 5] cannot be broadcast to the attention scores' shape [2, 4, 6]", q, k, v, Tensor.zeros(DType.BOOL, 4, 5));
        assertError("dropout probability has to be between 0 and 1", q, k, v, null, 1.5, false);
        assertError("must match the size of tensor b", Tensor.randn(2, 4, 8), Tensor.randn(3, 6, 8), Tensor.randn(3, 6, 3));
    }

    private static void assertError(String expected, Object... args) {
        var e = assertThrows(IllegalArgumentException.class, () -> sdpa(args));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
