package dev.ember.inductor;

import dev.ember.tensor.DType;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Everything needed to run a compiled graph without compiling it again: the generated class (and
 * its source, for {@code output_code}: printed on first request for a class just generated), the
 * arena slots and the attribute paths it reads. This is what the on-disk cache stores.
 */
record Artifact(String className, Supplier<String> sourceText, byte[] classBytes, List<MemoryPlan.Slot> slots,
                List<String> attributePaths, List<String> perfHints) {

    /** The generated class's Java source. */
    String source() { return sourceText.get(); }

    byte[] encode() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeUTF(className);
            writeBytes(out, source().getBytes(StandardCharsets.UTF_8));
            writeBytes(out, classBytes);
            out.writeInt(slots.size());
            for (MemoryPlan.Slot s : slots) {
                out.writeUTF(s.dtype().name());
                out.writeInt(s.size());
                out.writeBoolean(s.output());
                out.writeBoolean(s.grows());
            }
            writeStrings(out, attributePaths);
            writeStrings(out, perfHints);
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Artifact decode(byte[] data) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
        String name = in.readUTF();
        String source = new String(readBytes(in), StandardCharsets.UTF_8);
        Supplier<String> sourceText = () -> source;
        byte[] cls = readBytes(in);
        int n = in.readInt();
        List<MemoryPlan.Slot> slots = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            DType dtype = DType.valueOf(in.readUTF());
            int size = in.readInt();
            if (size < 0) throw new IOException("arena slot " + i + " has size " + size);
            slots.add(new MemoryPlan.Slot(dtype, size, in.readBoolean(), in.readBoolean()));
        }
        return new Artifact(name, sourceText, cls, slots, readStrings(in), readStrings(in));
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) throw new IOException("bad length " + n);
        return in.readNBytes(n);
    }

    private static void writeStrings(DataOutputStream out, List<String> list) throws IOException {
        out.writeInt(list.size());
        for (String s : list) writeBytes(out, s.getBytes(StandardCharsets.UTF_8));
    }

    private static List<String> readStrings(DataInputStream in) throws IOException {
        int n = in.readInt();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(new String(readBytes(in), StandardCharsets.UTF_8));
        return out;
    }
}
