package dev.ember.nn;

import dev.ember.tensor.Tensor;

import java.lang.reflect.Field;
import java.lang.reflect.InaccessibleObjectException;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A module class's state-holding fields, found once per class by reflection: {@link Parameter}
 * fields are parameters, other {@link Tensor} fields buffers, {@link Module} fields submodules;
 * superclass fields first, then each class's in declaration order. Names are PyTorch's: the
 * field name in snake_case ({@code runningMean} is {@code running_mean}).
 */
final class ModuleFields {
    private ModuleFields() {}

    enum Kind { PARAMETER, BUFFER, MODULE }

    /** One field: its state-dict name, what it holds, and access to it. */
    record Slot(String name, Kind kind, Field field) {
        Object get(Module owner) {
            try {
                return field.get(owner);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot read " + describe(), e);
            }
        }

        void set(Module owner, Object value) {
            try {
                field.set(owner, value);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot write " + describe(), e);
            }
        }

        private String describe() { return field.getDeclaringClass().getName() + "." + field.getName(); }
    }

    private static final ClassValue<List<Slot>> SLOTS = new ClassValue<>() {
        @Override
        protected List<Slot> computeValue(Class<?> type) { return discover(type); }
    };

    static List<Slot> of(Class<? extends Module> type) { return SLOTS.get(type); }

    private static List<Slot> discover(Class<?> type) {
        List<Class<?>> hierarchy = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Module.class; c = c.getSuperclass()) hierarchy.addFirst(c);
        List<Slot> slots = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (Class<?> c : hierarchy) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || f.isSynthetic()) continue;
                Kind kind = kindOf(f.getType());
                if (kind == null) continue;
                String name = snakeCase(f.getName());
                if (!names.add(name)) {
                    throw new IllegalStateException(type.getName() + ": two fields are both named '" + name + "' in the state dict (field "
                            + c.getName() + "." + f.getName() + " repeats it); rename one");
                }
                if (kind != Kind.MODULE && Modifier.isFinal(f.getModifiers())) {
                    throw new IllegalStateException(c.getName() + "." + f.getName() + ": parameter and buffer fields must not be final "
                            + "(Module.to(dtype) replaces them)");
                }
                try {
                    f.setAccessible(true);
                } catch (InaccessibleObjectException e) {
                    throw new IllegalStateException("cannot access " + c.getName() + "." + f.getName() + "; open its package to dev.ember", e);
                }
                slots.add(new Slot(name, kind, f));
            }
        }
        return List.copyOf(slots);
    }

    private static Kind kindOf(Class<?> type) {
        if (Parameter.class.isAssignableFrom(type)) return Kind.PARAMETER;
        if (Tensor.class.isAssignableFrom(type)) return Kind.BUFFER;
        if (Module.class.isAssignableFrom(type)) return Kind.MODULE;
        return null;
    }

    /** {@code inProjWeight} → {@code in_proj_weight}; names already in snake_case are kept. */
    static String snakeCase(String name) {
        StringBuilder sb = new StringBuilder(name.length() + 4);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isUpperCase(c)) {
                if (i > 0) sb.append('_');
                sb.append(Character.toLowerCase(c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
