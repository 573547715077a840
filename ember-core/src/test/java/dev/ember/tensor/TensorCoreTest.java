package dev.ember.tensor;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class TensorCoreTest {

    @Test
    void fullTakesTorchsOrderToo() {
        // torch.full(size, fill_value[, dtype]) as ported code writes it, beside full(value, shape...)
        Tensor a = Tensor.full(new int[] {2, 3}, 1.5), b = Tensor.full(1.5, 2, 3);
        assertArrayEquals(b.shape(), a.shape());
        assertArrayEquals(b.toDoubleArray(), a.toDoubleArray());
        Tensor c = Tensor.full(new int[] {4}, 7.0, DType.INT64);
        assertEquals(DType.INT64, c.dtype());
        assertArrayEquals(new long[] {7, 7, 7, 7}, c.toLongArray());
    }

    @Test
    void literalsKeepShapeDtypeAndValues() {
        Tensor t = Tensor.tensor(new float[][] {{1, 2, 3}, {4, 5, 6}});
        assertArrayEquals(new int[] {2, 3}, t.shape());
        assertEquals(DType.FLOAT32, t.dtype());
        assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, t.toFloatArray());
        assertEquals(DType.INT64, Tensor.tensor(new long[] {1, 2}).dtype());
        assertEquals(DType.INT32, Tensor.tensor(new int[][][] {{{1}}}).dtype());
        assertArrayEquals(new boolean[] {true, false}, Tensor.tensor(new boolean[] {true, false}).toBooleanArray());
    }

    @Test
    void raggedAndNonArrayLiteralsAreRejected() {
        var e = assertThrows(IllegalArgumentException.class, () -> Tensor.tensor(new float[][] {{1, 2}, {3}}));
        assertTrue(e.getMessage().contains("ragged"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Tensor.tensor("abc"));
        assertThrows(IllegalArgumentException.class, () -> Tensor.of(new float[] {1, 2, 3}, 2, 2));
    }

    @Test
    void stridesFollowRowMajorOrder() {
        Tensor t = Tensor.zeros(2, 3, 4);
        assertArrayEquals(new int[] {12, 4, 1}, t.strides());
        assertTrue(t.isContiguous());
        assertEquals(24, t.numel());
        assertEquals(4, t.size(-1));
        assertThrows(IndexOutOfBoundsException.class, () -> t.size(3));
    }

    @Test
    void itemNeedsExactlyOneElement() {
        assertEquals(2.5, Tensor.scalar(2.5).item());
        assertEquals(7L, Tensor.ofLongs(7).longItem());
        var e = assertThrows(IllegalArgumentException.class, () -> Tensor.zeros(2).item());
        assertTrue(e.getMessage().contains("2 elements"), e.getMessage());
        assertTrue(Tensor.scalar(true).asBoolean());
        assertThrows(IllegalArgumentException.class, () -> Tensor.zeros(3).asBoolean());
    }

    @Test
    void longsSurviveExactly() {
        long big = (1L << 53) + 1;
        assertEquals(big, Tensor.ofLongs(big).longItem());
        assertArrayEquals(new long[] {big}, Tensor.ofLongs(big).toLongArray());
    }

    @Test
    void conversionsCastLikeC() {
        Tensor f = Tensor.of(new float[] {-1.7f, 0f, 2.9f}, 3);
        assertArrayEquals(new int[] {-1, 0, 2}, f.to(DType.INT32).toIntArray());
        assertArrayEquals(new boolean[] {true, false, true}, f.to(DType.BOOL).toBooleanArray());
        assertSame(f, f.to(DType.FLOAT32));
        assertArrayEquals(new double[] {1, 0}, Tensor.tensor(new boolean[] {true, false}).to(DType.FLOAT64).toDoubleArray());
    }

    @Test
    void fakeTensorsCarryMetadataOnly() {
        FakeTensor x = new FakeTensor(TensorMeta.contiguous(DType.FLOAT32, 3, 4));
        Tensor y = x.transpose(0, 1).reshape(2, 6);
        assertTrue(y.isFake());
        assertArrayEquals(new int[] {2, 6}, y.shape());
        assertNull(y.storage());
        var e = assertThrows(IllegalStateException.class, y::toFloatArray);
        assertTrue(e.getMessage().contains("fake"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> x.view(5, 5));
    }

    @Test
    void dtypeNamesParse() {
        assertEquals(DType.FLOAT32, DType.parse("f32"));
        assertEquals(DType.FLOAT64, DType.parse("torch.float64"));
        assertEquals(DType.INT64, DType.parse("long"));
        var e = assertThrows(IllegalArgumentException.class, () -> DType.parse("f16x"));
        assertTrue(e.getMessage().contains("f16x"));
    }

    @Test
    void defaultDtypeMustBeFloating() {
        assertThrows(IllegalArgumentException.class, () -> Defaults.setDtype(DType.INT32));
        assertEquals(DType.FLOAT32, Defaults.dtype());
    }
}
