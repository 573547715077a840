package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class CreationOpsTest {

    @Test
    void fullInfersItsDtypeFromTheValue() {
        assertEquals(DType.FLOAT32, Tensor.full(2.5, 2).dtype());
        assertEquals(DType.INT64, Tensor.scalar(3L).dtype());
        assertEquals(DType.BOOL, Tensor.scalar(true).dtype());
        assertArrayEquals(new double[] {7, 7}, Tensor.full(DType.FLOAT64, 7, 2).toDoubleArray());
    }

    @Test
    void arangeIsInt64ForIntegersAndFloatOtherwise() {
        Tensor a = Tensor.arange(5);
        assertEquals(DType.INT64, a.dtype());
        assertArrayEquals(new long[] {0, 1, 2, 3, 4}, a.toLongArray());
        Tensor f = Tensor.arange(0.0, 1.0, 0.25);
        assertEquals(DType.FLOAT32, f.dtype());
        assertArrayEquals(new float[] {0, 0.25f, 0.5f, 0.75f}, f.toFloatArray());
        assertArrayEquals(new long[] {5, 3, 1}, Tensor.arange(5, 0, -2).toLongArray());
        var e = assertThrows(IllegalArgumentException.class, () -> Tensor.arange(0, 5, -1));
        assertTrue(e.getMessage().contains("inconsistent with step sign"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Tensor.arange(0, 5, 0));
    }

    @Test
    void linspaceHitsBothEndsExactly() {
        float[] v = Tensor.linspace(-1, 1, 5).toFloatArray();
        assertArrayEquals(new float[] {-1, -0.5f, 0, 0.5f, 1}, v);
        assertEquals(0, Tensor.linspace(0, 1, 0).numel());
        assertEquals(0.3, Tensor.linspace(0.1, 0.3, 3).to(DType.FLOAT64).get(2), 1e-7);
    }

    @Test
    void eyeHasOnesOnTheDiagonal() {
        Tensor e = Tensor.eye(3);
        for (int i = 0; i < 3; i++) for (int j = 0; j < 3; j++) assertEquals(i == j ? 1.0 : 0.0, e.get(i, j));
    }

    @Test
    void randomTensorsAreSeededAndInRange() {
        Tensor.manualSeed(42);
        Tensor a = Tensor.rand(1000);
        Tensor.manualSeed(42);
        Tensor b = Tensor.rand(1000);
        assertArrayEquals(a.toFloatArray(), b.toFloatArray());
        for (float v : a.toFloatArray()) assertTrue(v >= 0 && v < 1);
        long[] ints = Tensor.randint(new Generator(1), -3, 4, 500).toLongArray();
        for (long v : ints) assertTrue(v >= -3 && v < 4);
        var e = assertThrows(IllegalArgumentException.class, () -> Tensor.randint(3, 3, 2));
        assertTrue(e.getMessage().contains("low < high"), e.getMessage());
    }

    @Test
    void randnHasUnitVarianceInFloat64() {
        double[] v = Tensor.randn(new Generator(7), 200_000).to(DType.FLOAT64).toDoubleArray();
        double mean = 0, sq = 0;
        for (double x : v) mean += x;
        mean /= v.length;
        for (double x : v) sq += (x - mean) * (x - mean);
        double var = sq / (v.length - 1);
        assertEquals(0, mean, 0.01);
        assertEquals(1, var, 0.02);
    }

    @Test
    void negativeSizesAreRejected() {
        var e = assertThrows(IllegalArgumentException.class, () -> Tensor.zeros(2, -1));
        assertTrue(e.getMessage().contains("negative dimension -1"), e.getMessage());
    }

    @Test
    void opsAreDefinedOnceWithSchemas() {
        OpOverload zeros = OpRegistry.get("aten.zeros.default");
        assertEquals("zeros(int[] size, *, ScalarType? dtype) -> Tensor", zeros.schema().toString());
        assertTrue(zeros.hasTag(Tag.FACTORY));
        var e = assertThrows(IllegalArgumentException.class, () -> OpRegistry.get("aten.zeros.bogus"));
        assertTrue(e.getMessage().contains("aten.zeros.default"), e.getMessage());
        var missing = assertThrows(IllegalArgumentException.class, () -> zeros.call());
        assertTrue(missing.getMessage().contains("missing argument 'size'"), missing.getMessage());
    }
}
