package dev.ember.ops.eager;

import dev.ember.kernels.StridedLoop;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A transposing copy ({@code x.t().contiguous()}) runs in L1-sized tiles; every element must land
 * where the row-at-a-time walk put it, for sizes that are not multiples of the tile, with offsets,
 * and with dimensions before the transposed pair. The expected values are read from the source's
 * storage by index arithmetic, not through another copy.
 */
class TransposingCopyTest {

    /** Element {@code index} (row-major over the view's shape) of the view, read straight from its storage. */
    private static double elementOf(Tensor view, int index) {
        int[] shape = view.shape(), strides = view.strides();
        int at = view.storageOffset();
        for (int d = shape.length - 1; d >= 0; d--) {
            at += index % shape[d] * strides[d];
            index /= shape[d];
        }
        return view.storage().readDouble(at);
    }

    private static void assertCopied(Tensor view) {
        Tensor copy = view.contiguous();
        assertTrue(copy.isContiguous());
        assertArrayEquals(view.shape(), copy.shape());
        double[] got = copy.toDoubleArray();
        for (int i = 0; i < got.length; i++) assertEquals(elementOf(view, i), got[i], 0.0, "element " + i);
    }

    @ParameterizedTest
    @ValueSource(strings = {"FLOAT32", "FLOAT64", "INT64"})
    void aTransposedMatrixOfAnySizeIsCopiedElementForElement(String dtype) {
        Generator g = new Generator(3);
        for (int[] size : new int[][] {{32, 32}, {33, 70}, {100, 31}, {1, 64}, {64, 1}, {257, 129}}) {
            Tensor x = Tensor.randn(g, size[0], size[1]).mul(100.0).to(DType.valueOf(dtype));
            assertCopied(x.t());
        }
    }

    @Test
    void batchesOffsetsAndStepsAroundTheTransposedPair() {
        Generator g = new Generator(4);
        Tensor x = Tensor.randn(g, 3, 50, 45);
        assertCopied(x.transpose(1, 2));                                   // a batch of transposes
        assertCopied(x.narrow(1, 7, 40).narrow(2, 3, 37).transpose(1, 2));  // offset, rows not the storage's
        assertCopied(x.permute(2, 0, 1));                                  // the batch dimension moves too
        assertCopied(Tensor.randn(g, 70, 90).t().narrow(0, 5, 60));        // an offset into the transposed rows
    }

    @Test
    void theWalkIsTiledOnlyWhenItTransposes() {
        Tensor x = Tensor.randn(64, 48);
        Tensor t = x.t(), out = Tensor.allocate(DType.FLOAT32, 48, 64);
        StridedLoop transposing = new StridedLoop(t.shape(), new int[][] {out.strides(), t.strides()}, new int[] {0, 0});
        assertEquals(1, transposing.outerStride(1), "the source is stride 1 along the dimension before the row");
        StridedLoop plain = new StridedLoop(x.shape(), new int[][] {new int[] {48, 1}, x.strides()}, new int[] {0, 0});
        assertEquals(1, plain.dims(), "a contiguous walk is one row");
    }
}
