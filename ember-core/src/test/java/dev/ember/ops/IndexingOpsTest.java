package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** index_select, gather and embedding against element-by-element references computed here, and their errors. */
class IndexingOpsTest {

    /** 0, 1, 2, … in {@code dtype} (bool alternates). */
    private static Tensor iota(DType dtype, int... shape) {
        int n = 1;
        for (int s : shape) n *= s;
        double[] d = new double[n];
        for (int i = 0; i < n; i++) d[i] = dtype == DType.BOOL ? i % 3 == 0 ? 1 : 0 : i * 1.5 - 7;
        return Tensor.of(d, shape).to(dtype);
    }

    private static List<int[]> positions(int[] shape) {
        List<int[]> out = new ArrayList<>();
        int n = 1;
        for (int s : shape) n *= s;
        for (int flat = 0; flat < n; flat++) {
            int[] p = new int[shape.length];
            for (int d = shape.length - 1, r = flat; d >= 0; d--) { p[d] = r % shape[d]; r /= shape[d]; }
            out.add(p);
        }
        return out;
    }

    private static void assertIndexSelect(Tensor self, int dim, Tensor index) {
        Tensor out = self.indexSelect(dim, index);
        int d = dim < 0 ? dim + self.dim() : dim;
        long[] idx = index.toLongArray();
        int[] expectedShape = self.shape();
        expectedShape[d] = idx.length;
        assertArrayEquals(expectedShape, out.shape());
        assertEquals(self.dtype(), out.dtype());
        assertTrue(out.isContiguous());
        for (int[] p : positions(expectedShape)) {
            int[] src = p.clone();
            src[d] = (int) idx[p[d]];
            assertEquals(self.get(src), out.get(p), () -> "at " + java.util.Arrays.toString(p));
        }
    }

    @Test
    void indexSelectPicksSlicesAlongAnyDimensionForEveryDtype() {
        for (DType dt : DType.values()) {
            Tensor x = iota(dt, 3, 4, 5);
            assertIndexSelect(x, 0, Tensor.ofLongs(2, 0, 2, 1));
            assertIndexSelect(x, 1, Tensor.of(new int[] {3, 3, 0}, 3));
            assertIndexSelect(x, -1, Tensor.ofLongs(4, 1));
        }
    }

    @Test
    void indexSelectReadsNonContiguousInputsAndIndices() {
        Tensor x = iota(DType.FLOAT64, 4, 6).t();                       // [6, 4], strides (1, 6)
        assertIndexSelect(x, 0, Tensor.ofLongs(5, 0, 3));
        assertIndexSelect(x, 1, Tensor.ofLongs(3, 3, 1, 0, 2));
        Tensor stridedIndex = Tensor.ofLongs(1, 9, 0, 9, 3, 9).slice(0, 0, 6, 2);   // [1, 0, 3]
        assertIndexSelect(x, 1, stridedIndex);
        assertIndexSelect(iota(DType.INT64, 3, 1, 2).expand(3, 4, 2), 1, Tensor.ofLongs(3, 0));
    }

    @Test
    void indexSelectHandlesScalarsAndEmptyIndices() {
        Tensor x = iota(DType.FLOAT32, 3, 2);
        assertIndexSelect(x, 0, Tensor.scalar(2L));                      // 0-d index counts as one index
        Tensor empty = x.indexSelect(1, Tensor.zeros(DType.INT64, 0));
        assertArrayEquals(new int[] {3, 0}, empty.shape());
        Tensor scalar = Tensor.scalar(4.5);
        Tensor picked = scalar.indexSelect(0, Tensor.ofLongs(0));
        assertEquals(0, picked.dim());
        assertEquals(4.5, picked.item());
    }

    @Test
    void gatherReadsAlongDimAtIndexPositions() {
        for (DType dt : DType.values()) {
            Tensor x = iota(dt, 3, 4, 5);
            Tensor index = Tensor.randint(0, 4, 2, 6, 3);                // smaller than x except along dim 1
            assertGather(x, 1, index);
            assertGather(x, -1, Tensor.randint(0, 5, 3, 4, 7));
        }
        Tensor t = iota(DType.FLOAT64, 5, 4).t();                        // non-contiguous self
        assertGather(t, 0, Tensor.randint(0, 4, 5, 5).slice(1, 0, 5, 2)); // and a strided index
    }

    private static void assertGather(Tensor self, int dim, Tensor index) {
        Tensor out = self.gather(dim, index);
        int d = dim < 0 ? dim + self.dim() : dim;
        assertArrayEquals(index.shape(), out.shape());
        assertEquals(self.dtype(), out.dtype());
        for (int[] p : positions(index.shape())) {
            int[] src = p.clone();
            src[d] = (int) index.get(p);
            assertEquals(self.get(src), out.get(p), () -> "at " + java.util.Arrays.toString(p));
        }
    }

    @Test
    void gatherOnScalarsAndEmptyIndex() {
        Tensor s = Tensor.scalar(3.0);
        assertEquals(3.0, s.gather(0, Tensor.scalar(0L)).item());
        assertArrayEquals(new int[] {2, 0}, iota(DType.FLOAT32, 2, 3).gather(1, Tensor.zeros(DType.INT64, 2, 0)).shape());
    }

    @Test
    void embeddingLooksUpRows() {
        Tensor weight = iota(DType.FLOAT32, 10, 3);
        Tensor indices = Tensor.tensor(new int[][] {{1, 9, 1}, {0, 4, 2}});
        Tensor out = OpRegistry.get("aten.embedding.default").callTensor(weight, indices);
        assertArrayEquals(new int[] {2, 3, 3}, out.shape());
        for (int[] p : positions(out.shape())) {
            assertEquals(weight.get((int) indices.get(p[0], p[1]), p[2]), out.get(p));
        }
        Tensor viaDecomposition = (Tensor) IndexingOps.EMBEDDING.decompose(weight, indices);
        assertTrue(viaDecomposition.sameData(out));
    }

    @Test
    void outOfRangeIndicesFailNamingIndexAndSize() {
        Tensor x = iota(DType.FLOAT32, 3, 4);
        var e = assertThrows(IndexOutOfBoundsException.class, () -> x.indexSelect(1, Tensor.ofLongs(0, 4)));
        assertTrue(e.getMessage().contains("index out of range in self") && e.getMessage().contains("index 4")
                && e.getMessage().contains("size 4"), e.getMessage());
        e = assertThrows(IndexOutOfBoundsException.class, () -> x.indexSelect(0, Tensor.ofLongs(-1)));
        assertTrue(e.getMessage().contains("index -1"), e.getMessage());
        e = assertThrows(IndexOutOfBoundsException.class, () -> x.gather(0, Tensor.tensor(new long[][] {{0, 3}})));
        assertTrue(e.getMessage().startsWith("gather(): index out of range in self") && e.getMessage().contains("index 3")
                && e.getMessage().contains("dimension 0 with size 3"), e.getMessage());
        e = assertThrows(IndexOutOfBoundsException.class,
                () -> OpRegistry.get("aten.embedding.default").callTensor(x, Tensor.ofLongs(1, 7)));
        assertTrue(e.getMessage().startsWith("embedding(): index out of range in self") && e.getMessage().contains("index 7"), e.getMessage());
    }

    @Test
    void badArgumentsFailBeforeAnyWork() {
        Tensor x = iota(DType.FLOAT32, 3, 4);
        var e = assertThrows(IllegalArgumentException.class, () -> x.indexSelect(0, Tensor.of(0f, 1f)));
        assertTrue(e.getMessage().contains("Expected dtype int32 or int64 for index"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> x.indexSelect(0, Tensor.zeros(DType.INT64, 2, 2)));
        assertTrue(e.getMessage().contains("Index is supposed to be a vector"), e.getMessage());
        var dimError = assertThrows(IndexOutOfBoundsException.class, () -> x.indexSelect(2, Tensor.ofLongs(0)));
        assertTrue(dimError.getMessage().contains("Dimension out of range"), dimError.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Tensor.scalar(1.0).indexSelect(0, Tensor.ofLongs(0, 0)));
        assertTrue(e.getMessage().contains("Index to scalar can have only 1 value, got 2"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> x.gather(0, Tensor.ofLongs(0, 1)));
        assertTrue(e.getMessage().contains("Index tensor must have the same number of dimensions"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> x.gather(0, Tensor.zeros(DType.INT64, 2, 5)));
        assertTrue(e.getMessage().contains("Size does not match at dimension 1"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> x.gather(0, Tensor.zeros(DType.INT32, 2, 2)));
        assertTrue(e.getMessage().contains("gather(): Expected dtype int64 for index"), e.getMessage());
        OpOverload embedding = OpRegistry.get("aten.embedding.default");
        e = assertThrows(IllegalArgumentException.class, () -> embedding.callTensor(Tensor.zeros(5), Tensor.ofLongs(0)));
        assertTrue(e.getMessage().contains("'weight' must be 2-D"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> embedding.callTensor(x, Tensor.of(0.0)));
        assertTrue(e.getMessage().contains("'indices' to have one of the following scalar types: Long, Int"), e.getMessage());
    }

    @Test
    void fakeInputsGiveOutputMetadataOnly() {
        Tensor x = new FakeTensor(TensorMeta.contiguous(DType.FLOAT32, 7, 5));
        Tensor idx = new FakeTensor(TensorMeta.contiguous(DType.INT64, 2, 3));
        Tensor emb = OpRegistry.get("aten.embedding.default").callTensor(x, idx);
        assertTrue(emb.isFake());
        assertArrayEquals(new int[] {2, 3, 5}, emb.shape());
        assertArrayEquals(new int[] {7, 3}, x.indexSelect(1, new FakeTensor(TensorMeta.contiguous(DType.INT32, 3))).shape());
        assertArrayEquals(new int[] {2, 3}, x.gather(0, idx).shape());
    }
}
