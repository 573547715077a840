package dev.ember.tensor;

import dev.ember.nn.Linear;
import dev.ember.nn.ReLU;
import dev.ember.nn.Sequential;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The safetensors format, byte for byte as its specification says, round trips, and every kind of bad file refused clearly and wholly. */
class SafeTensorsTest {
    @TempDir
    Path dir;

    /** A file laid out by hand from the specification: header length, JSON header, little-endian data. */
    private Path handMade(String name, String json, byte[] data) throws IOException {
        byte[] header = json.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(8 + header.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(header.length).put(header).put(data);
        Path f = dir.resolve(name);
        Files.write(f, b.array());
        return f;
    }

    private static byte[] le(int... values) {
        ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : values) b.putInt(v);
        return b.array();
    }

    @Test
    void readsAFileWrittenFromTheSpecification() throws IOException {
        Path f = handMade("spec.safetensors", "{\"__metadata__\":{\"format\":\"pt\"},\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]},"
                + "\"a\":{\"dtype\":\"I32\",\"shape\":[2,2],\"data_offsets\":[0,16]}}   ", concat(le(1, -2, 3, 1 << 30), le(Float.floatToIntBits(0.5f), Float.floatToIntBits(-1.5f))));
        SafeTensors.Contents c = SafeTensors.read(f);
        assertEquals(Map.of("format", "pt"), c.metadata());
        assertEquals(List.of("b", "a"), List.copyOf(c.tensors().keySet()), "header order");
        Tensor a = c.tensors().get("a");
        assertEquals(DType.INT32, a.dtype());
        assertArrayEquals(new int[] {2, 2}, a.shape());
        assertArrayEquals(new int[] {1, -2, 3, 1 << 30}, a.toIntArray());
        assertArrayEquals(new float[] {0.5f, -1.5f}, c.tensors().get("b").toFloatArray());
    }

    @Test
    void writesTheSpecificationsLayout() throws IOException {
        Path f = dir.resolve("w.safetensors");
        Tensor t = Tensor.of(new long[] {1, -1}, 2);
        SafeTensors.save(Map.of("x", t), Map.of("k", "v"), f);
        byte[] bytes = Files.readAllBytes(f);
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long n = b.getLong();
        assertEquals(0, n % 8, "header padded to 8 bytes, as the reference writer does");
        String header = new String(bytes, 8, (int) n, StandardCharsets.UTF_8);
        assertEquals("{\"__metadata__\": {\"k\": \"v\"}, \"x\": {\"dtype\": \"I64\", \"shape\": [2], \"data_offsets\": [0, 16]}}", header.strip());
        assertEquals(8 + n + 16, bytes.length);
        assertEquals(1L, b.getLong(8 + (int) n));
        assertEquals(-1L, b.getLong(16 + (int) n));
    }

    @Test
    void everyDtypeAndShapeRoundTrips() throws IOException {
        Map<String, Tensor> in = new LinkedHashMap<>();
        in.put("f32", Tensor.of(new float[] {1.5f, Float.NaN, Float.NEGATIVE_INFINITY, -0f, Float.MIN_VALUE, 3e38f}, 2, 3));
        in.put("f64", Tensor.of(new double[] {Math.PI, -1e-300, Double.MAX_VALUE}, 3));
        in.put("i32", Tensor.of(new int[] {Integer.MIN_VALUE, 0, Integer.MAX_VALUE}, 3, 1));
        in.put("i64", Tensor.of(new long[] {Long.MIN_VALUE, 42, Long.MAX_VALUE}, 1, 3));
        in.put("bool", Tensor.of(new boolean[] {true, false, true, true}, 2, 2));
        in.put("scalar", Tensor.scalar(2.5));
        in.put("empty", Tensor.zeros(0, 4));
        in.put("transposed", Tensor.arange(6).reshape(2, 3).t());
        in.put("big", Tensor.randn(700, 1000));   // several 1 MiB chunks
        Path f = dir.resolve("all.safetensors");
        SafeTensors.save(in, f);
        Map<String, Tensor> out = SafeTensors.load(f);
        assertEquals(List.copyOf(in.keySet()), List.copyOf(out.keySet()));
        in.forEach((k, t) -> {
            Tensor u = out.get(k);
            assertEquals(t.dtype(), u.dtype(), k);
            assertArrayEquals(t.shape(), u.shape(), k);
            assertTrue(u.isContiguous(), k);
            switch (t.dtype()) {
                case FLOAT32 -> assertArrayEquals(bits(t.toFloatArray()), bits(u.toFloatArray()), k);
                case FLOAT64 -> assertArrayEquals(t.toDoubleArray(), u.toDoubleArray(), k);
                case INT32 -> assertArrayEquals(t.toIntArray(), u.toIntArray(), k);
                case INT64 -> assertArrayEquals(t.toLongArray(), u.toLongArray(), k);
                case BOOL -> assertArrayEquals(t.toBooleanArray(), u.toBooleanArray(), k);
            }
        });
        SafeTensors.save(Map.of(), f);
        assertEquals(Map.of(), SafeTensors.load(f), "an empty file has the header {}");
    }

    private static int[] bits(float[] a) {
        int[] out = new int[a.length];
        for (int i = 0; i < a.length; i++) out[i] = Float.floatToRawIntBits(a[i]);
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private String formatError(Path f) {
        String msg = assertThrows(SafeTensors.FormatException.class, () -> SafeTensors.load(f)).getMessage();
        assertTrue(msg.startsWith(f + ": not a valid safetensors file: "), msg);
        return msg.substring((f + ": not a valid safetensors file: ").length());
    }

    @Test
    void badFilesAreRefusedNamingTheFileAndTheProblem() throws IOException {
        byte[] data = le(1, 2, 3, 4);
        String ok = "{\"a\":{\"dtype\":\"I32\",\"shape\":[4],\"data_offsets\":[0,16]}}";
        assertEquals("truncated: the file has 3 bytes, fewer than the 8-byte header length", formatError(Files.write(dir.resolve("tiny"), new byte[3])));
        Path good = handMade("good", ok, data);
        byte[] whole = Files.readAllBytes(good);
        assertEquals("truncated: the header describes 16 bytes of tensor data but only 10 bytes follow the header",
                formatError(Files.write(dir.resolve("cut-data"), Arrays.copyOf(whole, whole.length - 6))));
        assertEquals("truncated: the header length says " + ok.length() + " bytes but only 20 bytes follow it",
                formatError(Files.write(dir.resolve("cut-header"), Arrays.copyOf(whole, 28))));
        assertEquals("1 bytes after the last tensor's data: the header describes 16 bytes of tensor data but 17 bytes follow it",
                formatError(handMade("extra", ok, concat(data, new byte[1]))));
        assertTrue(formatError(handMade("json", "{\"a\":{\"dtype\":\"I32\",", data)).startsWith("the header is not valid JSON: bad JSON at column"));
        assertEquals("the header is not valid UTF-8", formatError(writeRaw("utf8", new byte[] {'{', (byte) 0xC3, '}'}, data)));
        assertTrue(formatError(handMade("array", "[1, 2]", data)).startsWith("the header is not valid JSON: expected a JSON object"));
        assertEquals("tensor 'a' has dtype F16, which Ember does not have (it reads F32, F64, I32, I64 and BOOL)",
                formatError(handMade("f16", ok.replace("I32", "F16"), data)));
        assertEquals("tensor 'a' of shape [3] and dtype I32 needs 12 bytes, but its data_offsets [0, 16] span 16",
                formatError(handMade("shape", ok.replace("[4]", "[3]"), data)));
        assertTrue(formatError(handMade("negative", ok.replace("[4]", "[-4]"), data)).startsWith("tensor 'a' has a bad shape [-4]"));
        assertTrue(formatError(handMade("offsets", ok.replace("[0,16]", "[16,0]"), data)).startsWith("tensor 'a' has bad data_offsets [16, 0]"));
        assertEquals("tensor 'b' has data_offsets [12, 16], but the previous tensor's data ends at byte 8 (a gap)", formatError(handMade("gap",
                "{\"a\":{\"dtype\":\"I32\",\"shape\":[2],\"data_offsets\":[0,8]},\"b\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[12,16]}}", data)));
        assertEquals("tensor 'b' has data_offsets [4, 12], but the previous tensor's data ends at byte 8 (they overlap)", formatError(handMade("overlap",
                "{\"a\":{\"dtype\":\"I32\",\"shape\":[2],\"data_offsets\":[0,8]},\"b\":{\"dtype\":\"I32\",\"shape\":[2],\"data_offsets\":[4,12]}}", data)));
        assertTrue(formatError(handMade("meta", "{\"__metadata__\":{\"n\":1}}", new byte[0])).startsWith("\"__metadata__\" must be an object of strings"));
        assertEquals("tensor 'a' (BOOL) holds the byte 2 at element 1; booleans are 0 or 1",
                formatError(handMade("bool", "{\"a\":{\"dtype\":\"BOOL\",\"shape\":[2],\"data_offsets\":[0,2]}}", new byte[] {1, 2})));
        byte[] huge = Arrays.copyOf(whole, whole.length);
        ByteBuffer.wrap(huge).order(ByteOrder.LITTLE_ENDIAN).putLong(0, 1L << 40);
        assertTrue(formatError(Files.write(dir.resolve("huge"), huge)).startsWith("the header length 1099511627776 is over the limit"));
    }

    private Path writeRaw(String name, byte[] header, byte[] data) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8 + header.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(header.length).put(header).put(data);
        return Files.write(dir.resolve(name), b.array());
    }

    // ------------------------------------------------------------------ modules

    private static Sequential mlp() { return new Sequential(new Linear(3, 4), new ReLU(), new Linear(4, 2)); }

    @Test
    void moduleSaveAndLoadRoundTrip() throws IOException {
        Sequential a = mlp(), b = mlp();
        Path f = dir.resolve("model.safetensors");
        a.save(f);
        assertEquals(List.of("0.weight", "0.bias", "2.weight", "2.bias"), List.copyOf(SafeTensors.load(f).keySet()));
        var result = b.load(f);
        assertEquals(List.of(), result.missingKeys());
        a.stateDict().forEach((k, t) -> assertArrayEquals(t.toFloatArray(), b.stateDict().get(k).toFloatArray(), 0f, k));
        assertTrue(b.parameters().getFirst().requiresGrad(), "loading keeps parameters as they are");
    }

    @Test
    void aBadFileLeavesTheModuleUnchanged() throws IOException {
        Sequential source = mlp();
        Path f = dir.resolve("model.safetensors");
        source.save(f);
        byte[] whole = Files.readAllBytes(f);

        Sequential target = mlp();
        Map<String, float[]> before = new LinkedHashMap<>();
        target.stateDict().forEach((k, t) -> before.put(k, t.toFloatArray()));
        Runnable unchanged = () -> target.stateDict().forEach((k, t) -> assertArrayEquals(before.get(k), t.toFloatArray(), 0f, k));

        Path cut = Files.write(dir.resolve("cut.safetensors"), Arrays.copyOf(whole, whole.length - 4));
        assertThrows(SafeTensors.FormatException.class, () -> target.load(cut));
        unchanged.run();

        Map<String, Tensor> wrongShape = new LinkedHashMap<>(source.stateDict());
        wrongShape.put("2.bias", Tensor.zeros(3));
        Path shaped = dir.resolve("shape.safetensors");
        SafeTensors.save(wrongShape, shaped);
        String msg = assertThrows(IllegalArgumentException.class, () -> target.load(shaped)).getMessage();
        assertTrue(msg.startsWith(shaped + ": Error(s) in loading state_dict for Sequential:"), msg);
        assertTrue(msg.contains("size mismatch for 2.bias: copying a param with shape torch.Size([3]) from checkpoint, the shape in current model is torch.Size([2])."), msg);
        unchanged.run();

        Map<String, Tensor> missing = new LinkedHashMap<>(source.stateDict());
        missing.remove("0.bias");
        missing.put("extra", Tensor.zeros(1));
        Path partial = dir.resolve("partial.safetensors");
        SafeTensors.save(missing, partial);
        msg = assertThrows(IllegalArgumentException.class, () -> target.load(partial)).getMessage();
        assertTrue(msg.contains("Missing key(s) in state_dict: \"0.bias\"") && msg.contains("Unexpected key(s) in state_dict: \"extra\""), msg);
        unchanged.run();

        Map<String, Tensor> wrongDtype = new LinkedHashMap<>(source.stateDict());
        wrongDtype.put("0.bias", wrongDtype.get("0.bias").to(DType.FLOAT64));
        Path typed = dir.resolve("dtype.safetensors");
        SafeTensors.save(wrongDtype, typed);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> target.load(typed)).getMessage().contains("dtype mismatch for 0.bias"));
        unchanged.run();

        var lenient = target.load(partial, false);
        assertEquals(List.of("0.bias"), lenient.missingKeys());
        assertEquals(List.of("extra"), lenient.unexpectedKeys());
    }

    @Test
    void savingReplacesAFileWholeAndLeavesNoTemporaryFiles() throws IOException {
        Path f = dir.resolve("m.safetensors");
        SafeTensors.save(Map.of("a", Tensor.zeros(1000)), f);
        SafeTensors.save(Map.of("b", Tensor.ones(2)), f);
        assertEquals(List.of("b"), List.copyOf(SafeTensors.load(f).keySet()));
        try (var files = Files.list(dir)) {
            assertEquals(List.of(f), files.toList());
        }
        assertThrows(IllegalArgumentException.class, () -> SafeTensors.save(Map.of("__metadata__", Tensor.zeros(1)), f));
        assertEquals(List.of("b"), List.copyOf(SafeTensors.load(f).keySet()), "a refused save leaves the file");
    }
}
