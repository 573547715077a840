package dev.ember.dynamo;

import dev.ember.dynamo.source.Source;
import dev.ember.tensor.Tensor;

import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * How a compiled frame makes a Java value that leaves the trace (the return value, a value live at
 * a graph break, a value a replayed side effect stores) from the graph's outputs and the call's
 * inputs. Each kind of value knows how to make itself again; {@link Rebuilders} picks the kind.
 */
sealed interface OutputRebuilder {

    /** The value for this call; parts are rebuilt through {@link Rebuild#value}, never directly, so shared objects stay shared. */
    Object rebuild(Rebuild r);

    /** Whether the value is an object with identity (a container, a record, an object, a lambda), made once per call however often it is reached. */
    default boolean hasIdentity() { return false; }

    /** Output {@code index} of the graph. */
    record GraphOutput(int index) implements OutputRebuilder {
        public Object rebuild(Rebuild r) { return r.outs[index]; }
    }

    /** A symbolic scalar output: the graph's 0-d tensor read back as the Java number of {@code javaType} (boxed, as on a state array). */
    record ScalarItem(int index, Class<?> javaType) implements OutputRebuilder {
        public Object rebuild(Rebuild r) {
            Tensor t = (Tensor) r.outs[index];
            if (javaType == double.class) return t.item();
            long v = t.longItem();
            return javaType == int.class ? (Object) (int) v : (Object) v;
        }
    }

    /** A value known at trace time. */
    record Constant(Object value) implements OutputRebuilder {
        public Object rebuild(Rebuild r) { return value; }
    }

    /** An object from the inputs returned as is (re-read from its source on every call). */
    record FromSource(Source source) implements OutputRebuilder {
        public Object rebuild(Rebuild r) { return source.read(r.frame); }
    }

    /** {@code System.out} or {@code System.err}, read when the value is rebuilt (so System.setOut is seen). */
    record Stream(String name) implements OutputRebuilder {
        public Object rebuild(Rebuild r) { return name.equals("System.err") ? System.err : System.out; }
    }

    /** A new list; {@code mutable} gives an ArrayList, otherwise an unmodifiable list. */
    record ListOf(List<OutputRebuilder> items, boolean mutable) implements OutputRebuilder {
        public Object rebuild(Rebuild r) {
            List<Object> out = new ArrayList<>(items.size());
            for (OutputRebuilder item : items) out.add(r.value(item));
            return mutable ? out : Collections.unmodifiableList(out);
        }

        @Override
        public boolean hasIdentity() { return true; }
    }

    /** A new map of the traced map's class (an unmodifiable copy for Map.of), keys in the traced order. */
    record MapOf(Class<?> type, boolean mutable, List<Object> keys, List<OutputRebuilder> values) implements OutputRebuilder {
        public Object rebuild(Rebuild r) {
            java.util.Map<Object, Object> m;
            try {
                @SuppressWarnings("unchecked")
                java.util.Map<Object, Object> made = mutable ? (java.util.Map<Object, Object>) type.getConstructor().newInstance() : new java.util.LinkedHashMap<>();
                m = made;
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            for (int i = 0; i < keys.size(); i++) m.put(keys.get(i), r.value(values.get(i)));
            return mutable ? m : java.util.Collections.unmodifiableMap(m);
        }

        @Override
        public boolean hasIdentity() { return true; }
    }

    /** A new array of {@code component}. */
    record ArrayOf(Class<?> component, List<OutputRebuilder> items) implements OutputRebuilder {
        public Object rebuild(Rebuild r) {
            Object arr = Array.newInstance(component, items.size());
            for (int i = 0; i < items.size(); i++) Array.set(arr, i, Values.fromStack(r.value(items.get(i)), component));
            return arr;
        }

        @Override
        public boolean hasIdentity() { return true; }
    }

    /** A record built through its canonical constructor. */
    record RecordOf(Constructor<?> constructor, List<OutputRebuilder> components) implements OutputRebuilder {
        static RecordOf of(Class<?> type, List<OutputRebuilder> components) {
            RecordComponent[] rc = type.getRecordComponents();
            Class<?>[] types = new Class<?>[rc.length];
            for (int i = 0; i < rc.length; i++) types[i] = rc[i].getType();
            try {
                Constructor<?> c = type.getDeclaredConstructor(types);
                c.setAccessible(true);
                return new RecordOf(c, components);
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException("record " + type.getName() + " has no canonical constructor", e);
            }
        }

        public Object rebuild(Rebuild r) {
            Class<?>[] types = constructor.getParameterTypes();
            Object[] values = new Object[components.size()];
            for (int i = 0; i < values.length; i++) values[i] = Values.fromStack(r.value(components.get(i)), types[i]);
            try {
                return constructor.newInstance(values);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("rebuilding " + constructor.getDeclaringClass().getName() + " failed", e);
            }
        }

        @Override
        public boolean hasIdentity() { return true; }
    }
}
