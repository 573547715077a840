package dev.ember.dynamo.source;

import java.lang.reflect.Field;

/**
 * An instance field of the object at {@code base}: {@code L['self'].conv1}. {@code shownAs} is the
 * name printed for it: the field's own, or for a lambda's captured value ({@code arg$1}, the JDK's
 * name) the variable the lambda captured ({@code L['hook'].seen}).
 */
public record FieldSource(Source base, Field field, String shownAs) implements Source {
    public FieldSource {
        field.setAccessible(true);
        if (shownAs == null) shownAs = field.getName();
    }

    public FieldSource(Source base, Field field) { this(base, field, null); }

    @Override
    public String name() { return base.name() + "." + shownAs; }

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
