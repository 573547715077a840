package dev.ember.inductor;

import dev.ember.tensor.DType;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.UncheckedIOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a cache entry's payload holds ({@link Artifact#encode}): the class as is, the source deflated and inflated on request. */
class ArtifactEncodingTest {
    private static String source() {
        StringBuilder sb = new StringBuilder("final class Graph_0123 {\n");
        for (int i = 0; i < 400; i++) {
            sb.append("    static void kernel").append(i).append("(float[] in0, int in0_off, float[] out, int lo, int hi) {\n")
                    .append("        for (int x0 = lo; x0 < hi; x0++) out[x0] = Math.max(in0[in0_off + x0] * ").append(i).append(".5f, 0f);\n    }\n");
        }
        return sb.append("}\n").toString();
    }

    @Test
    void theSourceTravelsDeflatedAndComesBackWhole() throws Exception {
        String src = source();
        byte[] cls = {(byte) 0xca, (byte) 0xfe, (byte) 0xba, (byte) 0xbe, 1, 2, 3};
        Artifact a = new Artifact("Graph_0123", () -> src, cls, List.of(new MemoryPlan.Slot(DType.FLOAT32, 64, true, false)), List.of("w"), List.of("hint"));
        byte[] payload = a.encode();
        assertTrue(payload.length < src.length() / 4, "payload " + payload.length + " bytes for " + src.length() + " characters of source");
        Artifact back = Artifact.decode(payload);
        assertEquals(src, back.source());
        assertArrayEquals(cls, back.classBytes());
        assertEquals(a.slots(), back.slots());
        assertEquals(List.of("w"), back.attributePaths());
        assertEquals(List.of("hint"), back.perfHints());
    }

    @Test
    void aSourceThatCannotBeInflatedSaysWhichClassAndWhy() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeUTF("Graph_0123");
        out.writeInt(4);
        out.write(new byte[] {1, 2, 3, 4});   // not a deflate stream
        out.writeInt(0);                        // no class bytes
        out.writeInt(0);                        // no slots
        out.writeInt(0);
        out.writeInt(0);
        Artifact a = Artifact.decode(bytes.toByteArray());   // the class is usable without its source
        UncheckedIOException e = assertThrows(UncheckedIOException.class, a::source);
        assertTrue(e.getMessage().contains("the cached source of Graph_0123 cannot be inflated"), e.getMessage());
    }
}
