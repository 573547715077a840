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
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Everything needed to run a compiled graph without compiling it again: the generated class (and
 * its source, for {@code output_code}: printed on first request for a class just generated), the
 * arena slots and the attribute paths it reads. This is what the on-disk cache stores.
 *
 * <p>The source is stored deflated and inflated on first request: it was three quarters of an
 * entry (the encoder layer's two graphs: 90 and 104 KB of source beside 31 and 38 KB of class), and
 * every byte of an entry is hashed and MACed on each write and each cache hit, in code a fresh JVM
 * runs interpreted; a hit that is never asked for its source never inflates it.
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
            writeBytes(out, deflated(source().getBytes(StandardCharsets.UTF_8)));
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
        Supplier<String> sourceText = inflatedOnDemand(name, readBytes(in));
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

    /** {@code raw} deflated at zlib's fastest level (Java source shrinks about fivefold). */
    private static byte[] deflated(byte[] raw) {
        Deflater deflater = new Deflater(Deflater.BEST_SPEED);
        try {
            deflater.setInput(raw);
            deflater.finish();
            ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length / 4 + 64);
            byte[] buffer = new byte[16384];
            while (!deflater.finished()) out.write(buffer, 0, deflater.deflate(buffer));
            return out.toByteArray();
        } finally {
            deflater.end();
        }
    }

    /** The source {@code packed} holds, inflated once, on first request, from any thread. */
    private static Supplier<String> inflatedOnDemand(String className, byte[] packed) {
        return new Supplier<>() {
            private byte[] input = packed;
            private String text;

            @Override
            public synchronized String get() {
                if (text == null) {
                    text = inflated(className, input);
                    input = null;
                }
                return text;
            }
        };
    }

    private static String inflated(String className, byte[] packed) {
        Inflater inflater = new Inflater();
        try {
            inflater.setInput(packed);
            ByteArrayOutputStream out = new ByteArrayOutputStream(packed.length * 5);
            byte[] buffer = new byte[16384];
            while (!inflater.finished()) {
                int n = inflater.inflate(buffer);
                if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    throw new DataFormatException("the deflated source ends early");
                }
                out.write(buffer, 0, n);
            }
            return out.toString(StandardCharsets.UTF_8);
        } catch (DataFormatException e) {
            throw new UncheckedIOException(new IOException("the cached source of " + className + " cannot be inflated: " + e.getMessage(), e));
        } finally {
            inflater.end();
        }
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
