package dev.ember.debug.minifier;

import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ValueFileTest {
    @TempDir
    Path tmp;

    @Test
    void keepsLayoutsAndBitsExactly() throws Exception {
        Tensor base = Tensor.randn(new Generator(1), 4, 6);
        base.storage().floats()[5] = -0.0f;
        base.storage().floats()[6] = Float.NaN;
        Tensor view = base.t().narrow(0, 1, 3);            // strides [1, 6], offset 1
        Tensor ints = Tensor.of(new long[] {1, -2, Long.MAX_VALUE}, 3);
        Tensor bools = Tensor.of(new boolean[] {true, false}, 2);
        Path file = tmp.resolve("inputs.bin");
        ValueFile.write(file, Arrays.asList(view, ints, bools, 3L, 0.25, true, null, 7, List.of(2L, 3L)));

        List<Object> back = ValueFile.read(file);
        Tensor v = (Tensor) back.get(0);
        assertArrayEquals(view.shape(), v.shape());
        assertArrayEquals(view.strides(), v.strides());
        assertEquals(view.storageOffset(), v.storageOffset());
        float[] want = view.storage().floats(), got = v.storage().floats();
        for (int i = 0; i < want.length; i++) assertEquals(Float.floatToRawIntBits(want[i]), Float.floatToRawIntBits(got[i]), "element " + i);
        assertArrayEquals(ints.toDoubleArray(), ((Tensor) back.get(1)).toDoubleArray());
        assertEquals(DType.BOOL, ((Tensor) back.get(2)).dtype());
        assertEquals(List.of(3L, 0.25, true), back.subList(3, 6));
        assertNull(back.get(6));
        assertEquals(7, back.get(7));
        assertEquals(List.of(2L, 3L), back.get(8));
    }

    @Test
    void aBadFileIsNamedWithWhatIsWrong() throws Exception {
        Path file = tmp.resolve("inputs.bin");
        var e = assertThrows(IllegalArgumentException.class, () -> ValueFile.read(file));
        assertTrue(e.getMessage().endsWith("inputs.bin is missing: a launcher keeps its values there"), e.getMessage());

        Files.writeString(file, "hello, world");
        e = assertThrows(IllegalArgumentException.class, () -> ValueFile.read(file));
        assertTrue(e.getMessage().endsWith("inputs.bin is not an Ember value file (it does not start with EMBERVAL)"), e.getMessage());

        ValueFile.write(file, List.of(Tensor.ones(2, 2)));
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length - 1));
        e = assertThrows(IllegalArgumentException.class, () -> ValueFile.read(file));
        assertTrue(e.getMessage().endsWith("inputs.bin is truncated: it ends in the middle of a value"), e.getMessage());

        // shape [2, 2] with the storage length (4) overwritten by 3: the view no longer fits
        bytes[bytes.length - 4 * 4 - 4 + 3] = 3;
        Files.write(file, bytes);
        e = assertThrows(IllegalArgumentException.class, () -> ValueFile.read(file));
        assertTrue(e.getMessage().contains("is corrupt: shape [2, 2], strides [2, 1] and offset 0 do not fit a storage of 3 elements"), e.getMessage());

        // a storage length of 2^30 in a file of a few bytes: refused before allocating
        bytes[bytes.length - 4 * 4 - 4] = 0x40;
        bytes[bytes.length - 4 * 4 - 4 + 3] = 0;
        Files.write(file, bytes);
        e = assertThrows(IllegalArgumentException.class, () -> ValueFile.read(file));
        assertTrue(e.getMessage().contains("is corrupt: a storage of 1073741824 elements is larger than the file"), e.getMessage());
    }
}
