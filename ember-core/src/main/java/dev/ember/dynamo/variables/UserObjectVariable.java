package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An instance of a user class or record. Either it comes from the frame's inputs ({@link #value()}
 * is the real object; field reads become {@code FieldSource}s and guards), or it was constructed
 * during the trace ({@link #value()} is null; its fields live in {@link #fields()}).
 */
public final class UserObjectVariable implements VariableTracker {
    private final Class<?> type;
    private final Object value;
    private final Source source;
    private final Map<String, VariableTracker> fields = new LinkedHashMap<>();

    public UserObjectVariable(Class<?> type, Object value, Source source) {
        this.type = type;
        this.value = value;
        this.source = source;
    }

    public static UserObjectVariable fresh(Class<?> type) { return new UserObjectVariable(type, null, null); }

    public Class<?> type() { return type; }

    public Object value() { return value; }

    public boolean isFresh() { return value == null; }

    /** Fields assigned during the trace (constructor and later stores), for fresh objects. */
    public Map<String, VariableTracker> fields() { return fields; }

    @Override
    public Source source() { return source; }

    @Override
    public String describe() { return type.getSimpleName() + (isFresh() ? " (created in trace)" : ""); }
}
