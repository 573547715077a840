package dev.ember.dynamo;

import dev.ember.dynamo.source.Source;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.util.List;

/**
 * A mutation the traced code made to an object that outlives the call (a field of an input
 * object, a static field, an input list or array). The graph cannot hold it, so the compiled
 * frame replays it after the graph runs, with values rebuilt from the graph's outputs.
 */
sealed interface SideEffect {

    void apply(Object[] graphOutputs, Object[] frame);

    /** {@code owner.field = value}; {@code owner} null for a static field. */
    record SetField(Source owner, Field field, OutputRebuilder value) implements SideEffect {
        public void apply(Object[] outs, Object[] frame) {
            try {
                field.set(owner == null ? null : owner.read(frame), Values.fromStack(value.rebuild(outs, frame), field.getType()));
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("replaying the assignment to " + field + " failed", e);
            }
        }
    }

    /** The input list's final contents. */
    record ResetList(Source list, OutputRebuilder items) implements SideEffect {
        @SuppressWarnings("unchecked")
        public void apply(Object[] outs, Object[] frame) {
            List<Object> target = (List<Object>) list.read(frame);
            List<?> values = (List<?>) items.rebuild(outs, frame);
            target.clear();
            target.addAll(values);
        }
    }

    /** The input array's final elements. */
    record ResetArray(Source array, OutputRebuilder items) implements SideEffect {
        public void apply(Object[] outs, Object[] frame) {
            Object target = array.read(frame);
            Object values = items.rebuild(outs, frame);
            System.arraycopy(values, 0, target, 0, Array.getLength(values));
        }
    }
}
