package dev.ember.tensor;

import dev.ember.logging.JsonReader;
import dev.ember.logging.JsonWriter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Tensors to and from a file in the <a href="https://github.com/huggingface/safetensors">safetensors</a>
 * format, the one Hugging Face checkpoints use: an 8-byte little-endian header length, a JSON
 * header giving each tensor's {@code dtype}, {@code shape} and {@code data_offsets} (plus an
 * optional {@code "__metadata__"} object of strings), then the raw little-endian data. Ember's
 * dtypes are spelled {@code F32}, {@code F64}, {@code I32}, {@code I64} and {@code BOOL}.
 *
 * <pre>{@code
 * SafeTensors.save(Map.of("w", w, "b", b), Path.of("weights.safetensors"));
 * Map<String, Tensor> loaded = SafeTensors.load(Path.of("weights.safetensors"));
 * }</pre>
 *
 * <p>{@link #save} writes a temporary file next to the target and moves it into place, so an
 * existing file is never left half-written. {@link #read} checks the whole header (lengths,
 * dtypes, shapes, offsets that tile the data exactly) before it reads any data, and fails with a
 * {@link FormatException} naming the file and what is wrong; it returns everything or nothing.
 */
public final class SafeTensors {
    private SafeTensors() {}

    /** The largest header accepted, as the reference implementation's {@code MAX_HEADER_SIZE}. */
    static final long MAX_HEADER_BYTES = 100_000_000L;

    private static final String METADATA = "__metadata__";

    /** A file that is not valid safetensors (truncated, bad JSON, inconsistent offsets, …): the message names the file and the problem. */
    public static final class FormatException extends IOException {
        public FormatException(Path file, String problem) { super(file + ": not a valid safetensors file: " + problem); }
    }

    /** What a file holds: its tensors in header order, and its {@code "__metadata__"} (empty when absent). */
    public record Contents(Map<String, Tensor> tensors, Map<String, String> metadata) {}

    // ------------------------------------------------------------------ names of dtypes

    /** The safetensors spelling of {@code dtype}: {@code F32}, {@code F64}, {@code I32}, {@code I64}, {@code BOOL}. */
    public static String dtypeName(DType dtype) {
        return switch (dtype) {
            case FLOAT32 -> "F32";
            case FLOAT64 -> "F64";
            case INT32 -> "I32";
            case INT64 -> "I64";
            case BOOL -> "BOOL";
        };
    }

    private static DType dtypeOf(String name) {
        return switch (name) {
            case "F32" -> DType.FLOAT32;
            case "F64" -> DType.FLOAT64;
            case "I32" -> DType.INT32;
            case "I64" -> DType.INT64;
            case "BOOL" -> DType.BOOL;
            default -> null;
        };
    }

    // ------------------------------------------------------------------ save

    /** Writes {@code tensors} (in the map's order) to {@code file}, replacing it. */
    public static void save(Map<String, ? extends Tensor> tensors, Path file) throws IOException {
        save(tensors, Map.of(), file);
    }

    /**
     * Writes {@code tensors} (in the map's order) and {@code metadata} to {@code file}, replacing
     * it. Each tensor is written as its elements in row-major order, whatever its strides.
     */
    public static void save(Map<String, ? extends Tensor> tensors, Map<String, String> metadata, Path file) throws IOException {
        Map<String, Object> header = new LinkedHashMap<>();
        if (!metadata.isEmpty()) {
            metadata.forEach((k, v) -> {
                if (k == null || v == null) throw new IllegalArgumentException("safetensors metadata can't hold null keys or values: " + metadata);
            });
            header.put(METADATA, new LinkedHashMap<>(metadata));
        }
        long offset = 0;
        for (Map.Entry<String, ? extends Tensor> e : tensors.entrySet()) {
            String name = e.getKey();
            Tensor t = e.getValue();
            if (name == null || name.equals(METADATA)) throw new IllegalArgumentException("a tensor can't be named " + name + " in a safetensors file");
            if (t == null) throw new IllegalArgumentException("tensor '" + name + "' is null");
            if (t.isFake()) throw new IllegalArgumentException("tensor '" + name + "' is a fake tensor and has no data to save");
            long bytes = (long) t.numel() * t.dtype().itemSize();
            Map<String, Object> info = new LinkedHashMap<>();
            info.put("dtype", dtypeName(t.dtype()));
            List<Long> shape = new ArrayList<>();
            for (int s : t.shape()) shape.add((long) s);
            info.put("shape", shape);
            info.put("data_offsets", List.of(offset, offset + bytes));
            header.put(name, info);
            offset += bytes;
        }
        byte[] json = JsonWriter.write(header).getBytes(StandardCharsets.UTF_8);
        int padded = (json.length + 7) / 8 * 8;   // as the reference writer: data starts 8-byte aligned, the header padded with spaces
        ByteBuffer head = ByteBuffer.allocate(8 + padded).order(ByteOrder.LITTLE_ENDIAN);
        head.putLong(padded).put(json);
        while (head.hasRemaining()) head.put((byte) ' ');
        head.flip();

        Path abs = file.toAbsolutePath();
        Path tmp = Files.createTempFile(abs.getParent(), "." + abs.getFileName(), ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                writeFully(ch, head);
                for (Tensor t : tensors.values()) writeData(ch, t);
                ch.force(false);
            }
            AtomicFiles.moveIntoPlace(tmp, abs);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static void writeData(FileChannel ch, Tensor t) throws IOException {
        int n = t.numel();
        if (n == 0) return;
        int chunk = Math.max(1, (1 << 20) / t.dtype().itemSize());
        ByteBuffer buf = ByteBuffer.allocate(Math.min(n, chunk) * t.dtype().itemSize()).order(ByteOrder.LITTLE_ENDIAN);
        Object data = switch (t.dtype()) {
            case FLOAT32 -> t.toFloatArray();
            case FLOAT64 -> t.toDoubleArray();
            case INT32 -> t.toIntArray();
            case INT64 -> t.toLongArray();
            case BOOL -> t.toBooleanArray();
        };
        for (int start = 0; start < n; start += chunk) {
            int len = Math.min(chunk, n - start);
            buf.clear();
            switch (data) {
                case float[] a -> buf.asFloatBuffer().put(a, start, len);
                case double[] a -> buf.asDoubleBuffer().put(a, start, len);
                case int[] a -> buf.asIntBuffer().put(a, start, len);
                case long[] a -> buf.asLongBuffer().put(a, start, len);
                case boolean[] a -> { for (int i = 0; i < len; i++) buf.put(i, (byte) (a[start + i] ? 1 : 0)); }
                default -> throw new AssertionError(data);
            }
            buf.limit(len * t.dtype().itemSize());
            writeFully(ch, buf);
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) ch.write(buf);
    }

    // ------------------------------------------------------------------ load

    /** The tensors of {@code file}, in header order. @throws FormatException when the file is not valid safetensors */
    public static Map<String, Tensor> load(Path file) throws IOException { return read(file).tensors(); }

    private record Entry(String name, DType dtype, int[] shape, long begin, long end) {}

    /** The tensors and metadata of {@code file}. @throws FormatException when the file is not valid safetensors */
    public static Contents read(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < 8) throw new FormatException(file, "truncated: the file has " + size + " bytes, fewer than the 8-byte header length");
            ByteBuffer lenBuf = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            readFully(ch, lenBuf, 0, file);
            long headerLen = lenBuf.getLong(0);
            if (headerLen < 0 || headerLen > MAX_HEADER_BYTES) {
                throw new FormatException(file, "the header length " + Long.toUnsignedString(headerLen) + " is over the limit of " + MAX_HEADER_BYTES + " bytes");
            }
            if (headerLen > size - 8) {
                throw new FormatException(file, "truncated: the header length says " + headerLen + " bytes but only " + (size - 8) + " bytes follow it");
            }
            ByteBuffer headBuf = ByteBuffer.allocate((int) headerLen);
            readFully(ch, headBuf, 8, file);
            headBuf.flip();
            String json;
            try {
                CharBuffer chars = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(headBuf);
                json = chars.toString();
            } catch (CharacterCodingException e) {
                throw new FormatException(file, "the header is not valid UTF-8");
            }
            Map<String, Object> header;
            try {
                header = JsonReader.parseObject(json);
            } catch (IllegalArgumentException e) {
                throw new FormatException(file, "the header is not valid JSON: " + e.getMessage());
            }
            Map<String, String> metadata = new LinkedHashMap<>();
            List<Entry> entries = new ArrayList<>();
            for (Map.Entry<String, Object> e : header.entrySet()) {
                if (e.getKey().equals(METADATA)) metadata.putAll(metadata(file, e.getValue()));
                else entries.add(entry(file, e.getKey(), e.getValue()));
            }
            long dataLen = size - 8 - headerLen;
            checkOffsets(file, entries, dataLen);

            Map<String, Tensor> tensors = new LinkedHashMap<>();
            long dataStart = 8 + headerLen;
            for (Entry e : entries) tensors.put(e.name, readTensor(ch, file, e, dataStart));
            return new Contents(Collections.unmodifiableMap(tensors), Collections.unmodifiableMap(metadata));
        }
    }

    private static Map<String, String> metadata(Path file, Object value) throws FormatException {
        if (!(value instanceof Map<?, ?> m)) throw new FormatException(file, "\"__metadata__\" must be an object of strings, got " + JsonWriter.write(value));
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
            if (!(e.getValue() instanceof String s)) {
                throw new FormatException(file, "\"__metadata__\" must be an object of strings, but \"" + e.getKey() + "\" is " + JsonWriter.write(e.getValue()));
            }
            out.put((String) e.getKey(), s);
        }
        return out;
    }

    private static Entry entry(Path file, String name, Object value) throws FormatException {
        String where = "tensor '" + name + "'";
        if (!(value instanceof Map<?, ?> info)) throw new FormatException(file, where + " must be an object with dtype, shape and data_offsets");
        if (!(info.get("dtype") instanceof String dtypeName)) throw new FormatException(file, where + " has no string \"dtype\"");
        DType dtype = dtypeOf(dtypeName);
        if (dtype == null) {
            throw new FormatException(file, where + " has dtype " + dtypeName + ", which Ember does not have (it reads F32, F64, I32, I64 and BOOL)");
        }
        if (!(info.get("shape") instanceof List<?> dims)) throw new FormatException(file, where + " has no \"shape\" array");
        int[] shape = new int[dims.size()];
        long numel = 1;
        for (int i = 0; i < shape.length; i++) {
            if (!(dims.get(i) instanceof Long d) || d < 0 || d > Integer.MAX_VALUE) {
                throw new FormatException(file, where + " has a bad shape " + JsonWriter.write(dims) + ": dimensions must be integers from 0 to " + Integer.MAX_VALUE);
            }
            shape[i] = d.intValue();
            numel = Math.min(numel * d, (long) Integer.MAX_VALUE + 1);   // both factors below 2^31: no overflow
        }
        if (numel > Integer.MAX_VALUE) throw new FormatException(file, where + " has shape " + Shapes.format(shape) + ", more elements than an Ember tensor can hold");
        if (!(info.get("data_offsets") instanceof List<?> offs) || offs.size() != 2 || !(offs.get(0) instanceof Long begin) || !(offs.get(1) instanceof Long end)
                || begin < 0 || end < begin) {
            throw new FormatException(file, where + " has bad data_offsets " + JsonWriter.write(info.get("data_offsets")) + ": expected [begin, end] with 0 <= begin <= end");
        }
        long bytes = numel * dtype.itemSize();
        if (end - begin != bytes) {
            throw new FormatException(file, where + " of shape " + Shapes.format(shape) + " and dtype " + dtypeName + " needs " + bytes + " bytes, but its data_offsets ["
                    + begin + ", " + end + "] span " + (end - begin));
        }
        return new Entry(name, dtype, shape, begin, end);
    }

    /** The tensors' byte ranges must tile the data exactly: no gap, no overlap, nothing missing, nothing left over. */
    private static void checkOffsets(Path file, List<Entry> entries, long dataLen) throws FormatException {
        List<Entry> sorted = new ArrayList<>(entries);
        sorted.sort(Comparator.comparingLong(Entry::begin).thenComparingLong(Entry::end));
        long at = 0;
        for (Entry e : sorted) {
            if (e.begin != at) {
                throw new FormatException(file, "tensor '" + e.name + "' has data_offsets [" + e.begin + ", " + e.end + "], but the previous tensor's data ends at byte " + at
                        + (e.begin < at ? " (they overlap)" : " (a gap)"));
            }
            at = e.end;
        }
        if (at > dataLen) {
            throw new FormatException(file, "truncated: the header describes " + at + " bytes of tensor data but only " + dataLen + " bytes follow the header");
        }
        if (at < dataLen) {
            throw new FormatException(file, (dataLen - at) + " bytes after the last tensor's data: the header describes " + at + " bytes of tensor data but " + dataLen
                    + " bytes follow it");
        }
    }

    private static Tensor readTensor(FileChannel ch, Path file, Entry e, long dataStart) throws IOException {
        int n = Shapes.numel(e.shape);
        long bytes = e.end - e.begin;
        Object data = e.dtype.allocate(n);
        int item = e.dtype.itemSize();
        int chunk = Math.max(1, (1 << 20) / item);
        ByteBuffer buf = ByteBuffer.allocate((int) Math.min(bytes, (long) chunk * item)).order(ByteOrder.LITTLE_ENDIAN);
        for (int start = 0; start < n; start += chunk) {
            int len = Math.min(chunk, n - start);
            buf.clear().limit(len * item);
            readFully(ch, buf, dataStart + e.begin + (long) start * item, file);
            buf.flip();
            switch (data) {
                case float[] a -> buf.asFloatBuffer().get(a, start, len);
                case double[] a -> buf.asDoubleBuffer().get(a, start, len);
                case int[] a -> buf.asIntBuffer().get(a, start, len);
                case long[] a -> buf.asLongBuffer().get(a, start, len);
                case byte[] a -> {
                    for (int i = 0; i < len; i++) {
                        byte b = buf.get(i);
                        if (b != 0 && b != 1) {
                            throw new FormatException(file, "tensor '" + e.name + "' (BOOL) holds the byte " + (b & 0xff) + " at element " + (start + i) + "; booleans are 0 or 1");
                        }
                        a[start + i] = b;
                    }
                }
                default -> throw new AssertionError(data);
            }
        }
        return Tensor.wrap(new Storage(e.dtype, data), e.shape, Shapes.contiguousStrides(e.shape), 0);
    }

    private static void readFully(FileChannel ch, ByteBuffer buf, long position, Path file) throws IOException {
        long at = position;
        while (buf.hasRemaining()) {
            int r = ch.read(buf, at);
            if (r < 0) throw new FormatException(file, "truncated: the file ended at byte " + at + " while reading");
            at += r;
        }
    }
}
