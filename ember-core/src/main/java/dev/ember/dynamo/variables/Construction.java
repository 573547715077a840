package dev.ember.dynamo.variables;

import java.util.List;

/**
 * How a map or set made during the trace was constructed: {@code new HashMap<>()}, with an initial
 * capacity, for an enum's keys ({@code new EnumMap<>(Key.class)}), or as a copy of another container's keys (in that container's order). A HashMap's
 * iteration order depends on its table size, which these set, so rebuilding it calls the same constructor.
 */
public record Construction(int capacity, List<Object> copiedKeys, Class<?> keyType) {
    public static final Construction DEFAULT = new Construction(-1, null, null);

    public static Construction withCapacity(int capacity) { return new Construction(capacity, null, null); }

    public static Construction copyOf(List<Object> keys) { return new Construction(-1, List.copyOf(keys), null); }

    /** {@code new EnumMap<>(keyType)}. */
    public static Construction ofKeyType(Class<?> keyType) { return new Construction(-1, null, keyType); }
}
