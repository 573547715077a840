package dev.ember.logging;

import java.util.Collection;
import java.util.Map;

/**
 * Writes JSON from plain Java values: {@code Map} (keys as strings, in the map's order), {@code Collection},
 * arrays of objects, {@code String}, {@code Number}, {@code Boolean}, {@code null}. Separators are {@code ", "}
 * and {@code ": "}, as Python's {@code json.dumps} writes them, so Ember's trace lines read like PyTorch's.
 */
public final class JsonWriter {
    private JsonWriter() {}

    /** The JSON text of {@code value}. @throws IllegalArgumentException for a value of another type or a NaN/infinite number */
    public static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value);
        return sb.toString();
    }

    /** Appends the JSON text of {@code value} to {@code sb}. */
    public static void write(StringBuilder sb, Object value) {
        switch (value) {
            case null -> sb.append("null");
            case String s -> string(sb, s);
            case Boolean b -> sb.append(b);
            case Double d -> number(sb, d);
            case Float f -> number(sb, f.doubleValue());
            case Number n -> sb.append(n);
            case Map<?, ?> m -> {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!first) sb.append(", ");
                    first = false;
                    if (!(e.getKey() instanceof String key)) {
                        throw new IllegalArgumentException("JSON object keys must be strings, got " + e.getKey());
                    }
                    string(sb, key);
                    sb.append(": ");
                    write(sb, e.getValue());
                }
                sb.append('}');
            }
            case Collection<?> c -> {
                sb.append('[');
                boolean first = true;
                for (Object o : c) {
                    if (!first) sb.append(", ");
                    first = false;
                    write(sb, o);
                }
                sb.append(']');
            }
            case Object[] a -> write(sb, java.util.Arrays.asList(a));
            default -> throw new IllegalArgumentException("cannot write a " + value.getClass().getName() + " as JSON: " + value);
        }
    }

    /** Shortest round-trip digits, written out plainly in Python's plain range (1e-4 to 1e16), else with an exponent. */
    private static void number(StringBuilder sb, double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) throw new IllegalArgumentException("JSON has no " + d);
        double abs = Math.abs(d);
        if (d == 0 || (abs >= 1e-4 && abs < 1e16)) {
            String plain = new java.math.BigDecimal(Double.toString(d)).toPlainString();
            sb.append(plain.contains(".") ? plain : plain + ".0");
        } else {
            sb.append(d);
        }
    }

    /** Appends {@code s} as a JSON string: quotes, backslashes and control characters escaped. */
    public static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    // U+2028/2029 are legal JSON but break JavaScript and some line readers; escape them too.
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
                }
            }
        }
        sb.append('"');
    }
}
