package dev.ember.dynamo.source;

import java.lang.reflect.Field;

/** An instance field of the object at {@code base}: {@code L['self'].conv1}. */
public record FieldSource(Source base, Field field) implements Source {
    public FieldSource {
        field.setAccessible(true);
    }

    @Override
    public String name() { return base.name() + "." + field.getName(); }

    @Override
    public Object read(Object[] frame) {
        Object owner = base.read(frame);
        try {
            return field.get(owner);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read " + name(), e);
        }
    }
}
