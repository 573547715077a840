package dev.ember.dynamo.source;

import java.util.Map;

/** The value under {@code key} in the map at {@code base}: {@code L['m']['scale']}. */
public record KeySource(Source base, Object key) implements Source {
    @Override
    public String name() { return base.name() + "[" + literal(key) + "]"; }

    @Override
    public Object read(Object[] frame) { return ((Map<?, ?>) base.read(frame)).get(key); }

    /** A key as the program would spell it: {@code 'a'} for a string, {@code Mode.FAST} for an enum, the number otherwise. */
    public static String literal(Object key) {
        if (key instanceof String s) return "'" + s + "'";
        if (key instanceof Enum<?> e) return e.getDeclaringClass().getSimpleName() + "." + e.name();
        if (key instanceof dev.ember.tensor.Tensor t) return "<Tensor " + t.describe() + " @" + Integer.toHexString(System.identityHashCode(t)) + ">";
        return String.valueOf(key);
    }
}
