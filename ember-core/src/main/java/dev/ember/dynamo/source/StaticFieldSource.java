package dev.ember.dynamo.source;

import java.lang.reflect.Field;

/** A static field: {@code G['Config.SCALE']}. */
public record StaticFieldSource(Field field) implements Source {
    public StaticFieldSource {
        field.setAccessible(true);
    }

    @Override
    public String name() { return "G['" + field.getDeclaringClass().getSimpleName() + "." + field.getName() + "']"; }

    @Override
    public Object read(Object[] frame) {
        try {
            return field.get(null);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read " + name(), e);
        }
    }
}
