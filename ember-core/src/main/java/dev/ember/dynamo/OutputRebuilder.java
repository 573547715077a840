package dev.ember.dynamo;

import dev.ember.dynamo.source.Source;
import dev.ember.tensor.Tensor;

import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** How a compiled frame rebuilds the method's return value from the graph's outputs and the call's inputs. */
sealed interface OutputRebuilder {

    Object rebuild(Object[] graphOutputs, Object[] frame);

    /** Output {@code index} of the graph. */
    record GraphOutput(int index) implements OutputRebuilder {
        public Object rebuild(Object[] outs, Object[] frame) { return outs[index]; }
    }

    /** A value known at trace time. */
    /** A symbolic scalar output: the graph's 0-d tensor read back as the Java number of {@code javaType} (boxed, as on a state array). */
    record ScalarItem(int index, Class<?> javaType) implements OutputRebuilder {
        public Object rebuild(Object[] outs, Object[] frame) {
            Tensor t = (Tensor) outs[index];
            if (javaType == double.class) return t.item();
            long v = t.longItem();
            return javaType == int.class ? (Object) (int) v : (Object) v;
        }
    }

    record Constant(Object value) implements OutputRebuilder {
        public Object rebuild(Object[] outs, Object[] frame) { return value; }
    }

    /** An object from the inputs returned as is (re-read from its source on every call). */
    record FromSource(Source source) implements OutputRebuilder {
        public Object rebuild(Object[] outs, Object[] frame) { return source.read(frame); }
    }

    /** A symbolic size ({@code x.size(0) * 16}): its polynomial at the sizes of this call's inputs, read from {@code symbols} (by id). */
    record SymbolicSize(dev.ember.tensor.SymInt expr, List<Source> symbols, Class<?> javaType) implements OutputRebuilder {
        public Object rebuild(Object[] outs, Object[] frame) {
            long[] values = new long[symbols.size()];
            for (int i = 0; i < values.length; i++) values[i] = ((Number) symbols.get(i).read(frame)).longValue();
            long v = expr.eval(values);
            return javaType == long.class ? (Object) v : (Object) (int) v;
        }
    }

    /** {@code System.out} or {@code System.err}, read when the value is rebuilt (so System.setOut is seen). */
    record Stream(String name) implements OutputRebuilder {
        public Object rebuild(Object[] outs, Object[] frame) { return name.equals("System.err") ? System.err : System.out; }
    }

    /** A new list; {@code mutable} gives an ArrayList, otherwise an unmodifiable list. */
    record ListOf(List<OutputRebuilder> items, boolean mutable) implements OutputRebuilder {
        public Object rebuild(Object[] outs, Object[] frame) {
            List<Object> out = new ArrayList<>(items.size());
            for (OutputRebuilder r : items) out.add(r.rebuild(outs, frame));
            return mutable ? out : Collections.unmodifiableList(out);
        }
    }

    /** A new map of the traced map's class (an unmodifiable copy for Map.of), keys in the traced order. */
    record MapOf(Class<?> type, boolean mutable, List<Object> keys, List<OutputRebuilder> values) implements OutputRebuilder {
        public Object rebuild(Object[] outs, Object[] frame) {
            java.util.Map<Object, Object> m;
            try {
                @SuppressWarnings("unchecked")
                java.util.Map<Object, Object> made = mutable ? (java.util.Map<Object, Object>) type.getConstructor().newInstance() : new java.util.LinkedHashMap<>();
                m = made;
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            for (int i = 0; i < keys.size(); i++) m.put(keys.get(i), values.get(i).rebuild(outs, frame));
            return mutable ? m : java.util.Collections.unmodifiableMap(m);
        }
    }

    /** A new array of {@code component}. */
    record ArrayOf(Class<?> component, List<OutputRebuilder> items) implements OutputRebuilder {
        public Object rebuild(Object[] outs, Object[] frame) {
            Object arr = Array.newInstance(component, items.size());
            for (int i = 0; i < items.size(); i++) Array.set(arr, i, Values.fromStack(items.get(i).rebuild(outs, frame), component));
            return arr;
        }
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

        public Object rebuild(Object[] outs, Object[] frame) {
            Class<?>[] types = constructor.getParameterTypes();
            Object[] values = new Object[components.size()];
            for (int i = 0; i < values.length; i++) values[i] = Values.fromStack(components.get(i).rebuild(outs, frame), types[i]);
            try {
                return constructor.newInstance(values);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("rebuilding " + constructor.getDeclaringClass().getName() + " failed", e);
            }
        }
    }
}
