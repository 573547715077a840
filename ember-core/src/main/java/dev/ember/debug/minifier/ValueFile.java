package dev.ember.debug.minifier;

import dev.ember.tensor.DType;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A list of values (a graph's inputs or a module's attributes) in a small binary file, exact to the
 * bit: each tensor with its dtype, shape, strides, storage offset and its whole storage, so a
 * non-contiguous view comes back the same view of the same elements (a layout bug that only a
 * transposed input shows stays reproducible). Numbers, booleans, null and lists of these are kept
 * too. Big-endian, through {@link DataOutputStream}:
 * <pre>
 * "EMBERVAL" u8 version(1) i32 count, then per value a tag byte and its data:
 *   0 null | 1 tensor: utf dtype, i32 rank, i32[rank] shape, i32[rank] strides, i32 offset,
 *              i32 storage length, the storage elements | 2 i64 | 3 f64 | 4 bool | 5 i32 |
 *   6 list: i32 n, n values
 * </pre>
 * A bad file is an {@link IllegalArgumentException} naming the file and what is wrong with it.
 */
final class ValueFile {
    private static final byte[] MAGIC = "EMBERVAL".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final int VERSION = 1;

    private ValueFile() {}

    static void write(Path file, List<?> values) throws IOException {
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file)))) {
            out.write(MAGIC);
            out.writeByte(VERSION);
            out.writeInt(values.size());
            for (Object v : values) writeValue(out, v);
        }
    }

    private static void writeValue(DataOutputStream out, Object v) throws IOException {
        switch (v) {
            case null -> out.writeByte(0);
            case Tensor t -> { out.writeByte(1); writeTensor(out, t); }
            case Long l -> { out.writeByte(2); out.writeLong(l); }
            case Double d -> { out.writeByte(3); out.writeDouble(d); }
            case Boolean b -> { out.writeByte(4); out.writeBoolean(b); }
            case Integer i -> { out.writeByte(5); out.writeInt(i); }
            case List<?> l -> {
                out.writeByte(6);
                out.writeInt(l.size());
                for (Object x : l) writeValue(out, x);
            }
            default -> throw new IllegalArgumentException("cannot save a " + v.getClass().getName() + " as a graph input; saved are tensors, numbers, booleans, null and lists");
        }
    }

    private static void writeTensor(DataOutputStream out, Tensor t) throws IOException {
        if (t.storage() == null) throw new IllegalArgumentException("cannot save a tensor without data (" + t.meta().describe() + ")");
        out.writeUTF(t.dtype().name());
        int[] shape = t.shape(), strides = t.strides();
        out.writeInt(shape.length);
        for (int s : shape) out.writeInt(s);
        for (int s : strides) out.writeInt(s);
        out.writeInt(t.storageOffset());
        Storage st = t.storage();
        int n = st.length();
        out.writeInt(n);
        switch (t.dtype()) {
            case FLOAT32 -> { for (float x : st.floats()) out.writeFloat(x); }
            case FLOAT64 -> { for (double x : st.doubles()) out.writeDouble(x); }
            case INT32 -> { for (int x : st.ints()) out.writeInt(x); }
            case INT64 -> { for (long x : st.longs()) out.writeLong(x); }
            case BOOL -> out.write(st.bools());
        }
    }

    static List<Object> read(Path file) {
        if (!Files.isRegularFile(file)) throw new IllegalArgumentException(file + " is missing: a launcher keeps its values there");
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            byte[] magic = in.readNBytes(MAGIC.length);
            if (!Arrays.equals(magic, MAGIC)) throw new IllegalArgumentException(file + " is not an Ember value file (it does not start with EMBERVAL)");
            int version = in.readUnsignedByte();
            if (version != VERSION) throw new IllegalArgumentException(file + " is value file version " + version + "; this Ember reads version " + VERSION);
            int count = in.readInt();
            List<Object> out = new ArrayList<>();
            long size = Files.size(file);
            for (int i = 0; i < count; i++) out.add(readValue(in, file, size));
            if (in.read() != -1) throw new IllegalArgumentException(file + " has data after its " + count + " value(s): it is corrupt");
            return out;
        } catch (EOFException e) {
            throw new IllegalArgumentException(file + " is truncated: it ends in the middle of a value");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
        }
    }

    private static Object readValue(DataInputStream in, Path file, long size) throws IOException {
        int tag = in.readUnsignedByte();
        return switch (tag) {
            case 0 -> null;
            case 1 -> readTensor(in, file, size);
            case 2 -> in.readLong();
            case 3 -> in.readDouble();
            case 4 -> in.readBoolean();
            case 5 -> in.readInt();
            case 6 -> {
                int n = in.readInt();
                List<Object> l = new ArrayList<>();
                if (n < 0 || n > size) throw new IllegalArgumentException(file + " is corrupt: a list of " + n + " values");
                for (int i = 0; i < n; i++) l.add(readValue(in, file, size));
                yield l;
            }
            default -> throw new IllegalArgumentException(file + " is corrupt: unknown value tag " + tag);
        };
    }

    private static Tensor readTensor(DataInputStream in, Path file, long size) throws IOException {
        String name = in.readUTF();
        DType dtype;
        try {
            dtype = DType.valueOf(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + " is corrupt: unknown dtype '" + name + "'");
        }
        int rank = in.readInt();
        if (rank < 0 || rank > 64) throw new IllegalArgumentException(file + " is corrupt: a tensor of rank " + rank);
        int[] shape = new int[rank], strides = new int[rank];
        for (int i = 0; i < rank; i++) shape[i] = in.readInt();
        for (int i = 0; i < rank; i++) strides[i] = in.readInt();
        int offset = in.readInt();
        int n = in.readInt();
        if (n < 0 || offset < 0 || !fits(shape, strides, offset, n)) {
            throw new IllegalArgumentException(file + " is corrupt: shape " + Arrays.toString(shape) + ", strides " + Arrays.toString(strides)
                    + " and offset " + offset + " do not fit a storage of " + n + " elements");
        }
        // A corrupt length must not become a huge allocation: the elements have to be in the file.
        if ((long) n * dtype.itemSize() > size) throw new IllegalArgumentException(file + " is corrupt: a storage of " + n + " elements is larger than the file");
        Storage st = new Storage(dtype, n);
        switch (dtype) {
            case FLOAT32 -> { float[] a = st.floats(); for (int i = 0; i < n; i++) a[i] = in.readFloat(); }
            case FLOAT64 -> { double[] a = st.doubles(); for (int i = 0; i < n; i++) a[i] = in.readDouble(); }
            case INT32 -> { int[] a = st.ints(); for (int i = 0; i < n; i++) a[i] = in.readInt(); }
            case INT64 -> { long[] a = st.longs(); for (int i = 0; i < n; i++) a[i] = in.readLong(); }
            case BOOL -> in.readFully(st.bools());
        }
        return Tensor.wrap(st, shape, strides, offset);
    }

    /** Whether every element the view can address lies inside the storage. */
    private static boolean fits(int[] shape, int[] strides, int offset, int length) {
        long lo = offset, hi = offset;
        for (int d = 0; d < shape.length; d++) {
            if (shape[d] < 0) return false;
            if (shape[d] == 0) return true;
            long span = (long) (shape[d] - 1) * strides[d];
            if (span < 0) lo += span; else hi += span;
        }
        return lo >= 0 && hi < length;
    }
}
