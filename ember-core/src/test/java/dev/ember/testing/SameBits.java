package dev.ember.testing;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Compiled must equal eager, bit for bit: the count of float32 or float64 elements whose bits
 * differ (so a sign of zero or a NaN payload counts, unlike {@link TorchAssert}'s exact tolerance).
 */
public final class SameBits {
    private SameBits() {}

    public static void assertSameBits(Tensor want, Tensor got, String what) {
        assertArrayEquals(want.shape(), got.shape(), what + ": shape " + Arrays.toString(got.shape()));
        assertEquals(want.dtype(), got.dtype(), what + ": dtype");
        int differ = 0, n;
        if (want.dtype() == DType.FLOAT64) {
            double[] a = want.toDoubleArray(), b = got.toDoubleArray();
            n = a.length;
            for (int i = 0; i < n; i++) if (Double.doubleToLongBits(a[i]) != Double.doubleToLongBits(b[i])) differ++;
        } else {
            float[] a = want.toFloatArray(), b = got.toFloatArray();
            n = a.length;
            for (int i = 0; i < n; i++) if (Float.floatToIntBits(a[i]) != Float.floatToIntBits(b[i])) differ++;
        }
        assertEquals(0, differ, what + ": elements whose bits differ from eager's, of " + n);
    }
}
