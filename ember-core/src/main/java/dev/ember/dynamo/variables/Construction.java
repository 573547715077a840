package dev.ember.dynamo.variables;

import java.util.List;

/**
 * How a map or set made during the trace was constructed: {@code new HashMap<>()}, with an initial
 * capacity, or as a copy of another container's keys (in that container's order). A HashMap's
 * iteration order depends on its table size, which these set, so rebuilding it calls the same constructor.
 */
public record Construction(int capacity, List<Object> copiedKeys) {
    public static final Construction DEFAULT = new Construction(-1, null);

    public static Construction withCapacity(int capacity) { return new Construction(capacity, null); }

    public static Construction copyOf(List<Object> keys) { return new Construction(-1, List.copyOf(keys)); }
}
