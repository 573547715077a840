package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Views, copies and joins, checked against index arithmetic done by hand in the test. */
class ShapeOpsTest {

    private static Tensor iota(int... shape) {
        int n = 1;
        for (int s : shape) n *= s;
        float[] d = new float[n];
        for (int i = 0; i < n; i++) d[i] = i;
        return Tensor.of(d, shape);
    }

    @Test
    void viewsShareStorageAndSeeWrites() {
        Tensor x = iota(2, 3);
        Tensor t = x.t();
        assertSame(x.storage(), t.storage());
        assertArrayEquals(new float[] {0, 3, 1, 4, 2, 5}, t.toFloatArray());
        t.select(0, 1).copy_(Tensor.scalar(-1.0));   // column 1 of x
        assertArrayEquals(new float[] {0, -1, 2, 3, -1, 5}, x.toFloatArray());
        assertEquals(1, x.version());
    }

    @Test
    void permuteMovesDimensions() {
        Tensor x = iota(2, 3, 4);
        Tensor p = x.permute(2, 0, 1);
        assertArrayEquals(new int[] {4, 2, 3}, p.shape());
        for (int a = 0; a < 4; a++) for (int b = 0; b < 2; b++) for (int c = 0; c < 3; c++) {
            assertEquals(b * 12 + c * 4 + a, p.get(a, b, c));
        }
        var e = assertThrows(IllegalArgumentException.class, () -> x.permute(0, 0, 1));
        assertTrue(e.getMessage().contains("repeated dim"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> x.permute(0, 1));
    }

    @Test
    void viewFollowsStridesAndRefusesIncompatibleOnes() {
        Tensor x = iota(4, 6);
        assertArrayEquals(new int[] {2, 2, 6}, x.view(2, -1, 6).shape());
        Tensor xt = x.t();
        var e = assertThrows(IllegalArgumentException.class, () -> xt.view(24));
        assertTrue(e.getMessage().contains("reshape"), e.getMessage());
        Tensor r = xt.reshape(24);
        assertNotSame(x.storage(), r.storage());
        assertArrayEquals(xt.toFloatArray(), r.toFloatArray());
        // a permuted view that can still be viewed: split the leading dim of a transposed tensor
        assertArrayEquals(new int[] {3, 2, 4}, xt.view(3, 2, 4).shape());
        assertSame(x.storage(), xt.view(3, 2, 4).storage());
        var bad = assertThrows(IllegalArgumentException.class, () -> x.view(5, 5));
        assertTrue(bad.getMessage().contains("invalid for input of size 24"), bad.getMessage());
    }

    @Test
    void expandBroadcastsWithoutCopying() {
        Tensor x = iota(3, 1);
        Tensor e = x.expand(2, 3, 4);
        assertArrayEquals(new int[] {0, 1, 0}, e.strides());
        assertEquals(2.0, e.get(1, 2, 3));
        var err = assertThrows(IllegalArgumentException.class, () -> x.expand(4, 4));
        assertTrue(err.getMessage().contains("must match the existing size (3) at non-singleton dimension 0"), err.getMessage());
    }

    @Test
    void sliceNarrowSelectSqueeze() {
        Tensor x = iota(5, 4);
        Tensor s = x.slice(0, 1, 100, 2);          // rows 1, 3 (end clamped)
        assertArrayEquals(new float[] {4, 5, 6, 7, 12, 13, 14, 15}, s.toFloatArray());
        assertArrayEquals(new int[] {0, 4}, x.slice(0, 4, 2, 1).shape());
        assertArrayEquals(new float[] {1, 2, 5, 6}, x.narrow(1, 1, 2).narrow(0, 0, 2).toFloatArray());
        var e = assertThrows(IllegalArgumentException.class, () -> x.narrow(0, 3, 3));
        assertTrue(e.getMessage().contains("exceeds dimension size (5)"), e.getMessage());
        assertArrayEquals(new float[] {2, 6, 10, 14, 18}, x.select(1, -2).toFloatArray());
        var oob = assertThrows(IndexOutOfBoundsException.class, () -> x.select(0, 5));
        assertTrue(oob.getMessage().contains("index 5 out of range"), oob.getMessage());
        assertArrayEquals(new int[] {5, 4}, x.unsqueeze(0).unsqueeze(-1).squeeze().shape());
        assertArrayEquals(new int[] {1, 5, 4}, x.unsqueeze(0).unsqueeze(-1).squeeze(-1).shape());
        assertThrows(IndexOutOfBoundsException.class, () -> x.unsqueeze(3));
    }

    @Test
    void flattenRanges() {
        Tensor x = iota(2, 3, 4, 5);
        assertArrayEquals(new int[] {120}, x.flatten().shape());
        assertArrayEquals(new int[] {2, 12, 5}, x.flatten(1, 2).shape());
        assertArrayEquals(new int[] {1}, Tensor.scalar(1.0).flatten().shape());
        assertThrows(IllegalArgumentException.class, () -> x.flatten(2, 1));
    }

    @Test
    void catPromotesAndChecksSizes() {
        Tensor a = Tensor.tensor(new int[][] {{1, 2}});
        Tensor b = Tensor.tensor(new float[][] {{3.5f, 4}, {5, 6}});
        Tensor c = Tensor.cat(List.of(a, b), 0);
        assertEquals(DType.FLOAT32, c.dtype());
        assertArrayEquals(new float[] {1, 2, 3.5f, 4, 5, 6}, c.toFloatArray());
        assertArrayEquals(new int[] {2, 4}, Tensor.cat(List.of(b, b.t()), 1).shape());
        assertArrayEquals(new int[] {3, 2}, Tensor.cat(List.of(Tensor.zeros(0), b, Tensor.zeros(1, 2)), 0).shape());
        var e = assertThrows(IllegalArgumentException.class, () -> Tensor.cat(List.of(b, Tensor.zeros(2, 3)), 0));
        assertTrue(e.getMessage().contains("Sizes of tensors must match except in dimension 0. Expected size 2 but got size 3 for tensor number 1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Tensor.cat(List.of(), 0));
    }

    @Test
    void stackAddsADimension() {
        Tensor a = iota(2, 3), b = iota(2, 3).t().contiguous().view(2, 3);
        Tensor s = Tensor.stack(List.of(a, b), 1);
        assertArrayEquals(new int[] {2, 2, 3}, s.shape());
        assertEquals(a.get(1, 2), s.get(1, 0, 2));
        var e = assertThrows(IllegalArgumentException.class, () -> Tensor.stack(List.of(a, iota(3, 2)), 0));
        assertTrue(e.getMessage().contains("equal size"), e.getMessage());
    }

    @Test
    void splitAndChunkAreViews() {
        Tensor x = iota(7, 2);
        List<Tensor> parts = x.split(3, 0);
        assertEquals(3, parts.size());
        assertArrayEquals(new int[] {1, 2}, parts.get(2).shape());
        assertSame(x.storage(), parts.get(1).storage());
        assertArrayEquals(new float[] {6, 7, 8, 9, 10, 11}, parts.get(1).toFloatArray());
        assertEquals(4, x.chunk(4, 0).size());
        assertEquals(2, x.chunk(2, 1).size());
        List<Tensor> sized = x.split(new int[] {2, 5}, 0);
        assertArrayEquals(new int[] {5, 2}, sized.get(1).shape());
        var e = assertThrows(IllegalArgumentException.class, () -> x.split(new int[] {2, 4}, 0));
        assertTrue(e.getMessage().contains("sum to 6"), e.getMessage());
    }

    @Test
    void copyBroadcastsConvertsAndBumpsVersion() {
        Tensor dst = Tensor.zeros(DType.INT32, 2, 3);
        dst.copy_(Tensor.of(1.9f, -2.5f, 3f));
        assertArrayEquals(new int[] {1, -2, 3, 1, -2, 3}, dst.toIntArray());
        assertEquals(1, dst.version());
        var e = assertThrows(IllegalArgumentException.class, () -> dst.copy_(Tensor.ones(4)));
        assertTrue(e.getMessage().contains("copy_"), e.getMessage());
        assertArrayEquals(new int[] {1, -2, 3, 1, -2, 3}, dst.toIntArray(), "a failed copy_ writes nothing");
        assertEquals(1, dst.version());
    }

    @Test
    void cloneOfANonContiguousTensorIsContiguous() {
        Tensor x = iota(3, 4).t();
        Tensor c = x.clone();
        assertTrue(c.isContiguous());
        assertArrayEquals(x.toFloatArray(), c.toFloatArray());
        assertSame(c, c.contiguous());
    }

    @Test
    void stridedLoopHandlesZeroSizeAndScalars() {
        assertEquals(0, Tensor.zeros(0, 3).t().clone().numel());
        assertEquals(5.0, Tensor.scalar(5.0).clone().item());
    }

    @Test
    void stridedReadsWithSizeOneDimensionsVisitEveryRow() {
        // shape [2, 1, 3, 2] with strides [6, 6, 1, 3]: a size-1 dim between non-mergeable ones
        Tensor base = Tensor.arange(12);
        Tensor v = Tensor.wrap(base.storage(), new int[] {2, 1, 3, 2}, new int[] {6, 6, 1, 3}, 0);
        long[] expected = new long[12];
        int k = 0;
        for (int a = 0; a < 2; a++) for (int c = 0; c < 3; c++) for (int d = 0; d < 2; d++) expected[k++] = a * 6 + c + d * 3;
        assertArrayEquals(expected, v.toLongArray());
    }
}
