package dev.ember.testing;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The harness itself: conversions, assertClose, input makers, TorchScript calls. */
class TorchHarnessTest {
    static final List<int[]> SHAPES = List.of(new int[] {}, new int[] {0}, new int[] {0, 3}, new int[] {3, 0, 2}, new int[] {1}, new int[] {2, 3}, new int[] {2, 3, 4});

    /** Values of every dtype, exercising the whole range of each. */
    static Tensor sample(DType dtype, int[] shape, Random rng) {
        return switch (dtype) {
            case FLOAT32, FLOAT64 -> Inputs.randn(rng, dtype, shape);
            case INT32 -> Inputs.randint(rng, dtype, Integer.MIN_VALUE, Integer.MAX_VALUE, shape);
            case INT64 -> Inputs.randint(rng, dtype, Long.MIN_VALUE / 2, Long.MAX_VALUE / 2, shape);
            case BOOL -> Inputs.rand(rng, dtype, shape);
        };
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void roundTripKeepsDtypeShapeAndValues(DType dtype) {
        Random rng = new Random(1);
        try (NDManager m = Torch.scope()) {
            for (int[] shape : SHAPES) {
                Tensor t = sample(dtype, shape, rng);
                NDArray nd = Torch.toNd(m, t);
                String ctx = dtype + " " + java.util.Arrays.toString(shape);
                assertEquals(Torch.dataType(dtype), nd.getDataType(), ctx);
                assertArrayEquals(shape, Torch.shape(nd), ctx);
                assertEquals(Inputs.numel(shape), nd.size(), ctx);
                Tensor back = Torch.fromNd(nd);
                assertEquals(dtype, back.dtype(), ctx);
                assertArrayEquals(shape, back.shape(), ctx);
                assertSameValues(t, back, ctx);
                assertClose(t, nd, ctx, Tolerance.EXACT);
                // and from non-contiguous Ember tensors
                for (Inputs.Layout in : Inputs.layouts(t)) {
                    assertClose(in.tensor(), Torch.toNd(m, in.tensor()), ctx + " " + in, Tolerance.EXACT);
                }
            }
        }
    }

    @Test
    void roundTripOfSpecialValues() {
        for (DType dtype : DType.values()) {
            Tensor t = Inputs.specials(dtype);
            NDArray nd = Torch.toNd(t);
            assertSameValues(t, Torch.fromNd(nd), dtype.toString());
            assertClose(t, nd, "specials " + dtype, Tolerance.EXACT);
        }
        // bit patterns survive: -0.0 and NaN
        NDArray nd = Torch.toNd(Tensor.of(new double[] {-0.0, Double.NaN}, 2));
        double[] v = nd.toDoubleArray();
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(v[0]));
        assertTrue(Double.isNaN(v[1]));
    }

    @Test
    void fromNdReadsNonContiguousTorchArraysInLogicalOrder() {
        try (NDManager m = Torch.scope()) {
            NDArray a = m.arange(6f).reshape(2, 3).transpose(); // torch view with strides (1, 3)
            Tensor t = Torch.fromNd(a);
            assertArrayEquals(new int[] {3, 2}, t.shape());
            assertArrayEquals(new float[] {0, 3, 1, 4, 2, 5}, t.toFloatArray());
            NDArray expanded = Torch.call("a.expand(2, 3)", m.create(new long[] {7, 8, 9}, new Shape(3)));
            assertArrayEquals(new long[] {7, 8, 9, 7, 8, 9}, Torch.fromNd(expanded).toLongArray());
        }
    }

    @Test
    void dtypesWithoutEmberCounterpartAreRejected() {
        try (NDManager m = Torch.scope()) {
            NDArray half = m.create(new float[] {1, 2}).toType(DataType.FLOAT16, false);
            assertThrows(IllegalArgumentException.class, () -> Torch.fromNd(half));
        }
    }

    // ------------------------------------------------------------------ assertClose

    @Test
    void assertCloseAcceptsValuesWithinTolerance() {
        Tensor a = Tensor.of(new float[] {1f, 100f, 0f, Float.NaN, Float.POSITIVE_INFINITY, -0f}, 2, 3);
        NDArray e = Torch.toNd(Tensor.of(new float[] {1f + 1e-6f, 100.0001f, 9e-6f, Float.NaN, Float.POSITIVE_INFINITY, 0f}, 2, 3));
        assertClose(a, e, "close");
        assertClose(Tensor.of(new double[] {1.0}, new int[0]), Torch.toNd(Tensor.of(new double[] {1.0 + 1e-7}, new int[0])), "0-d f64");
        assertClose(Tensor.of(new float[0], 0, 3), Torch.toNd(Tensor.of(new float[0], 0, 3)), "zero-size");
        assertClose(Tensor.of(new float[] {1.5f}, 1), Torch.toNd(Tensor.of(new float[] {1f}, 1)), "explicit", Tolerance.of(0, 0.5));
    }

    @Test
    void assertCloseFailsOnValueMismatchWithAUsefulMessage() {
        Tensor a = Tensor.of(new float[] {1f, 2f, 3f, 4f, 5f, 6f}, 2, 3);
        NDArray e = Torch.toNd(Tensor.of(new float[] {1f, 2f, 3.5f, 4f, 5f, 4f}, 2, 3));
        AssertionError err = assertThrows(AssertionError.class, () -> assertClose(a, e, "relu(x) vs torch"));
        String msg = err.getMessage();
        assertTrue(msg.startsWith("relu(x) vs torch: "), msg);
        assertTrue(msg.contains("[2, 3]") && msg.contains("torch.float32"), msg);
        assertTrue(msg.contains("mismatched elements: 2 / 6"), msg);
        assertTrue(msg.contains("[0, 2]: actual 3.0, expected 3.5"), msg);
        assertTrue(msg.contains("[1, 2]: actual 6.0, expected 4.0"), msg);
        assertTrue(msg.contains("greatest absolute difference: 2 at index [1, 2]"), msg);
        assertTrue(msg.contains("greatest relative difference: 0.5 at index [1, 2]"), msg);
    }

    @Test
    void assertCloseFailsJustOutsideTheFloat32Tolerance() {
        // |diff| = 1e-4 > 1e-5 + 1.3e-6 * 1
        assertThrows(AssertionError.class, () -> assertClose(Tensor.of(new float[] {1.0001f}, 1), Torch.toNd(Tensor.of(new float[] {1f}, 1)), "f32"));
        assertThrows(AssertionError.class, () -> assertClose(Tensor.of(new double[] {1.000001}, 1), Torch.toNd(Tensor.of(new double[] {1.0}, 1)), "f64"));
    }

    @Test
    void assertCloseFailsOnShapeMismatch() {
        Tensor a = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        NDArray e = Torch.toNd(Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 3, 2));
        AssertionError err = assertThrows(AssertionError.class, () -> assertClose(a, e, "view"));
        assertTrue(err.getMessage().contains("view: shape mismatch: actual [2, 3]"), err.getMessage());
        assertThrows(AssertionError.class, () -> assertClose(Tensor.of(new float[] {1}, new int[0]), Torch.toNd(Tensor.of(new float[] {1}, 1)), "0-d vs 1-d"));
        assertThrows(AssertionError.class, () -> assertClose(Tensor.of(new float[0], 0, 3), Torch.toNd(Tensor.of(new float[0], 3, 0)), "zero-size"));
    }

    @Test
    void assertCloseFailsOnDtypeMismatch() {
        Tensor a = Tensor.of(new float[] {1, 2}, 2);
        NDArray e = Torch.toNd(Tensor.of(new double[] {1, 2}, 2));
        AssertionError err = assertThrows(AssertionError.class, () -> assertClose(a, e, "promotion"));
        assertTrue(err.getMessage().contains("promotion: dtype mismatch: actual torch.float32, expected torch.float64"), err.getMessage());
        assertThrows(AssertionError.class, () -> assertClose(Tensor.of(new int[] {1}, 1), Torch.toNd(Tensor.of(new long[] {1}, 1)), "int"));
        assertThrows(AssertionError.class, () -> assertClose(Tensor.of(new boolean[] {true}, 1), Torch.toNd(Tensor.of(new long[] {1}, 1)), "bool"));
        // ...unless asked to compare values only
        assertClose(a, e, "values only", Tolerance.forDtype(DType.FLOAT32).ignoringDtype());
    }

    @Test
    void assertCloseTreatsNaNAndInfinityStrictly() {
        NDArray nan = Torch.toNd(Tensor.of(new float[] {Float.NaN}, 1));
        NDArray inf = Torch.toNd(Tensor.of(new float[] {Float.POSITIVE_INFINITY}, 1));
        assertClose(Tensor.of(new float[] {Float.NaN}, 1), nan, "nan == nan");
        assertThrows(AssertionError.class, () -> assertClose(Tensor.of(new float[] {0f}, 1), nan, "number vs nan"));
        assertThrows(AssertionError.class, () -> assertClose(Tensor.of(new float[] {Float.NaN}, 1), Torch.toNd(Tensor.of(new float[] {0f}, 1)), "nan vs number"));
        assertThrows(AssertionError.class, () -> assertClose(Tensor.of(new float[] {Float.NEGATIVE_INFINITY}, 1), inf, "-inf vs inf"));
        assertThrows(AssertionError.class, () -> assertClose(Tensor.of(new float[] {Float.MAX_VALUE}, 1), inf, "max vs inf", Tolerance.of(1, 1)));
    }

    @Test
    void assertCloseIsExactForIntegersAndBool() {
        assertThrows(AssertionError.class, () -> assertClose(Tensor.of(new long[] {Long.MAX_VALUE}, 1), Torch.toNd(Tensor.of(new long[] {Long.MAX_VALUE - 1}, 1)), "i64"));
        assertThrows(AssertionError.class, () -> assertClose(Tensor.of(new int[] {3}, new int[0]), Torch.toNd(Tensor.of(new int[] {4}, new int[0])), "i32"));
        AssertionError err = assertThrows(AssertionError.class, () -> assertClose(Tensor.of(new boolean[] {true, false}, 2), Torch.toNd(Tensor.of(new boolean[] {true, true}, 2)), "eq"));
        assertTrue(err.getMessage().contains("[1]: actual false, expected true"), err.getMessage());
        assertClose(Tensor.of(new long[] {Long.MIN_VALUE}, 1), Torch.toNd(Tensor.of(new long[] {Long.MIN_VALUE}, 1)), "i64 equal");
    }

    @Test
    void assertCloseAgainstAJavaReference() {
        assertClose(Tensor.of(new double[] {Math.exp(1)}, 1), Tensor.of(new double[] {2.718281828459045}, 1), "exp(1)");
        assertThrows(AssertionError.class, () -> assertClose(Tensor.of(new double[] {1}, 1), Tensor.of(new double[] {2}, 1), "ref"));
        assertClose(List.of(Tensor.of(new float[] {1}, 1), Tensor.of(new float[] {2}, 1)),
                Torch.callList("torch.split(a, 1)", Tensor.of(new float[] {1, 2}, 2)), "split");
        assertThrows(AssertionError.class, () -> assertClose(List.of(Tensor.of(new float[] {1, 2}, 2)),
                Torch.callList("torch.split(a, 1)", Tensor.of(new float[] {1, 2}, 2)), "split count"));
    }

    // ------------------------------------------------------------------ inputs

    @Test
    void layoutsKeepValuesAndAreNonContiguous() {
        Random rng = new Random(7);
        for (DType dtype : DType.values()) {
            for (int[] shape : Inputs.SHAPES) {
                Tensor t = sample(dtype, shape, rng);
                long[] expected = elementBits(t);
                for (Inputs.Layout in : Inputs.layouts(t)) {
                    String ctx = dtype + " " + in;
                    assertEquals(dtype, in.tensor().dtype(), ctx);
                    assertArrayEquals(shape, in.tensor().shape(), ctx);
                    assertArrayEquals(expected, elementBits(in.tensor()), ctx);
                }
                Tensor nc = Inputs.nonContiguous(t);
                assertArrayEquals(expected, elementBits(nc), "nonContiguous " + dtype);
                boolean trivial = t.numel() <= 1;
                if (!trivial) assertFalse(nc.isContiguous(), "nonContiguous " + dtype + " " + java.util.Arrays.toString(shape));
            }
        }
    }

    @Test
    void randomInputsAreSeededAndInRange() {
        Tensor a = Inputs.randn(new Random(3), DType.FLOAT32, 4, 5);
        Tensor b = Inputs.randn(new Random(3), DType.FLOAT32, 4, 5);
        assertArrayEquals(a.toFloatArray(), b.toFloatArray());
        for (float v : Inputs.rand(new Random(3), DType.FLOAT32, 1000).toFloatArray()) assertTrue(v >= 0 && v < 1);
        for (long v : Inputs.randint(new Random(3), DType.INT64, -3, 4, 1000).toLongArray()) assertTrue(v >= -3 && v < 4);
        for (double v : Inputs.uniform(new Random(3), DType.FLOAT64, 0.5, 2, 1000).toDoubleArray()) assertTrue(v >= 0.5 && v < 2);
        assertEquals(DType.INT32, Inputs.randint(new Random(3), DType.INT32, 0, 10, 3).dtype());
        assertArrayEquals(new int[0], Inputs.randn(new Random(3), DType.FLOAT64).shape());
        assertThrows(IllegalArgumentException.class, () -> Inputs.randn(new Random(3), DType.INT32, 2));
    }

    // ------------------------------------------------------------------ TorchScript calls

    @Test
    void callTakesEmberTensorsScalarsAndLists() {
        Tensor x = Tensor.of(new float[] {1, 2, 3, 4, 5, 7}, 2, 3);
        assertClose(Tensor.of(new float[] {2f / 3, 14f / 9}, 2, 1), Torch.call("torch.var(a, b, correction=c, keepdim=d)", x, new int[] {1}, 0, true), "var");
        assertClose(Tensor.of(new float[] {2.5f, 3.5f, 5f}, 3), Torch.call("torch.mean(a, [0])", x), "mean");
        assertClose(Tensor.of(new float[] {0.5f, 1, 1.5f, 2, 2.5f, 3.5f}, 2, 3), Torch.call("a * b", x, 0.5), "scalar");
        assertClose(Tensor.of(new float[] {1, 2, 3, 4, 5, 7, 1, 2, 3, 4, 5, 7}, 4, 3), Torch.call("torch.cat(a, 0)", List.of(x, x)), "list");
        assertClose(Tensor.of(new long[] {3}, new int[0]), Torch.call("a.size(1)", x), "int result");
        assertEquals(DataType.FLOAT64, Torch.call("a.to(torch.float64)", x).getDataType());
        assertEquals(DataType.INT32, Torch.call("torch.zeros([2], dtype=torch.int32)").getDataType());
        assertEquals(DataType.FLOAT32, Torch.call("torch.zeros([2], dtype=torch.float)").getDataType());
        assertEquals(DataType.BOOLEAN, Torch.call("torch.ones([2], dtype=torch.bool)").getDataType());
                assertThrows(IllegalArgumentException.class, () -> Torch.call("torch.nope(a)", x));
    }

    /**
     * The elements in row-major order as raw bits, read straight from the storage through the
     * strides (not through Ember's copy kernels, which the layouts are meant to test).
     */
    static long[] elementBits(Tensor t) {
        int[] shape = t.shape(), strides = t.strides();
        Object data = t.storage().data();
        long[] out = new long[t.numel()];
        int[] idx = new int[shape.length];
        for (int i = 0; i < out.length; i++) {
            int pos = t.storageOffset();
            for (int d = 0; d < shape.length; d++) pos += idx[d] * strides[d];
            out[i] = switch (data) {
                case float[] f -> Float.floatToRawIntBits(f[pos]);
                case double[] f -> Double.doubleToRawLongBits(f[pos]);
                case int[] v -> v[pos];
                case long[] v -> v[pos];
                case byte[] v -> v[pos];
                default -> throw new IllegalStateException();
            };
            for (int d = shape.length - 1; d >= 0; d--) {
                if (++idx[d] < shape[d]) break;
                idx[d] = 0;
            }
        }
        return out;
    }

    static void assertSameValues(Tensor expected, Tensor actual, String ctx) {
        switch (expected.dtype()) {
            case FLOAT32 -> assertArrayEquals(expected.toFloatArray(), actual.toFloatArray(), ctx); // NaN-aware, bitwise for -0.0
            case FLOAT64 -> assertArrayEquals(expected.toDoubleArray(), actual.toDoubleArray(), ctx);
            case INT32 -> assertArrayEquals(expected.toIntArray(), actual.toIntArray(), ctx);
            case INT64 -> assertArrayEquals(expected.toLongArray(), actual.toLongArray(), ctx);
            case BOOL -> assertArrayEquals(expected.toBooleanArray(), actual.toBooleanArray(), ctx);
        }
    }
}
