package dev.ember.fx;

import dev.ember.tensor.DType;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Tensors written as Java expressions for generated source: exact values with exact strides
 * (small ones as array literals people can read, large ones as base64 of their bytes), or random
 * values of a recorded shape and dtype. The expressions call helpers that {@link JavaSourceGen}
 * emits into the generated class ({@code strided}, {@code decode}, {@code random}).
 */
final class TensorSource {
    /** Above this many elements, values are written as base64 rather than one literal each. */
    static final int MAX_LITERAL_ELEMENTS = 64;
    /** Characters per base64 string literal: well under the class file's 65535-byte constant limit. */
    private static final int CHUNK = 60_000;

    private TensorSource() {}

    /** An expression rebuilding {@code t}'s values, shape and strides (relative to its first element). */
    static String exact(Tensor t) {
        if (t.isFake()) throw new IllegalArgumentException("a fake tensor has no values to write; pass real example inputs, or none for random ones");
        int span = span(t.meta());
        boolean plain = t.isContiguous() && span == t.numel();
        if (span <= MAX_LITERAL_ELEMENTS) {
            String flat = "Tensor.of(" + arrayLiteral(t, span) + ", " + ints(plain ? t.shape() : new int[] {span}) + ")";
            return plain ? flat : "strided(" + flat + ", " + ints(t.shape()) + ", " + ints(t.strides()) + ", 0)";
        }
        List<String> chunks = new ArrayList<>();
        String b64 = Base64.getEncoder().encodeToString(bytes(t, span));
        for (int i = 0; i < b64.length(); i += CHUNK) chunks.add("\"" + b64.substring(i, Math.min(b64.length(), i + CHUNK)) + "\"");
        return "decode(DType." + t.dtype().name() + ", " + ints(t.shape()) + ", " + ints(t.strides()) + ",\n                " + String.join(",\n                ", chunks) + ")";
    }

    /** An expression drawing values of this metadata from the generated code's generator {@code gen}. */
    static String random(TensorMeta m) {
        int span = span(m) + m.storageOffset();
        if (m.isContiguous() && m.storageOffset() == 0 && span == m.numel()) return "random(gen, DType." + m.dtype().name() + ", " + ints(m.shape()) + ")";
        return "strided(random(gen, DType." + m.dtype().name() + ", " + ints(new int[] {span}) + "), " + ints(m.shape()) + ", " + ints(m.strides()) + ", " + m.storageOffset() + ")";
    }

    /** {@code new int[] {3, 4}} */
    static String ints(int[] a) {
        return Arrays.stream(a).mapToObj(Integer::toString).collect(Collectors.joining(", ", "new int[] {", "}"));
    }

    /** How many storage elements the tensor reaches from its first one (0 when it has no elements). */
    private static int span(TensorMeta m) {
        if (m.numel() == 0) return 0;
        long reach = 0;
        for (int d = 0; d < m.dim(); d++) reach += (long) (m.shape()[d] - 1) * m.strides()[d];
        return Math.toIntExact(reach + 1);
    }

    private static String arrayLiteral(Tensor t, int span) {
        Storage s = t.storage();
        int off = t.storageOffset();
        List<String> items = new ArrayList<>(span);
        for (int i = off; i < off + span; i++) {
            items.add(switch (t.dtype()) {
                case FLOAT32 -> JavaLiterals.floatLiteral(s.floats()[i]);
                case FLOAT64 -> JavaLiterals.doubleLiteral(s.doubles()[i]);
                case INT32 -> Integer.toString(s.ints()[i]);
                case INT64 -> s.longs()[i] + "L";
                case BOOL -> Boolean.toString(s.bools()[i] != 0);
            });
        }
        return "new " + javaElementType(t.dtype()) + "[] {" + String.join(", ", items) + "}";
    }

    private static byte[] bytes(Tensor t, int span) {
        Storage s = t.storage();
        int off = t.storageOffset();
        ByteBuffer b = ByteBuffer.allocate(span * t.dtype().itemSize()).order(ByteOrder.LITTLE_ENDIAN);
        switch (t.dtype()) {
            case FLOAT32 -> b.asFloatBuffer().put(s.floats(), off, span);
            case FLOAT64 -> b.asDoubleBuffer().put(s.doubles(), off, span);
            case INT32 -> b.asIntBuffer().put(s.ints(), off, span);
            case INT64 -> b.asLongBuffer().put(s.longs(), off, span);
            case BOOL -> b.put(s.bools(), off, span);
        }
        return b.array();
    }

    static String javaElementType(DType d) {
        return switch (d) {
            case FLOAT32 -> "float";
            case FLOAT64 -> "double";
            case INT32 -> "int";
            case INT64 -> "long";
            case BOOL -> "boolean";
        };
    }
}
