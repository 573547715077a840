package dev.ember.dynamo;

import java.lang.constant.ClassDesc;
import java.lang.invoke.MethodHandles;

/** Conversions between Java values and the JVM's operand-stack forms (boolean, byte, char and short travel as int). */
public final class Values {
    private Values() {}

    /** The stack form of a value of static type {@code type}. */
    public static Object toStack(Object value, Class<?> type) {
        if (type == boolean.class) return ((Boolean) value) ? 1 : 0;
        if (type == char.class) return (int) (Character) value;
        if (type == byte.class || type == short.class) return ((Number) value).intValue();
        return value;
    }

    /** A stack value converted for a parameter or field of type {@code type}. */
    public static Object fromStack(Object value, Class<?> type) {
        if (value == null || !type.isPrimitive()) return value;
        Number n = value instanceof Number num ? num : null;
        if (type == boolean.class) return value instanceof Boolean b ? b : n.intValue() != 0;
        if (type == char.class) return value instanceof Character c ? c : (char) n.intValue();
        if (type == byte.class) return n.byteValue();
        if (type == short.class) return n.shortValue();
        if (type == int.class) return n.intValue();
        if (type == long.class) return n.longValue();
        if (type == float.class) return n.floatValue();
        if (type == double.class) return n.doubleValue();
        return value;
    }

    /** The default value of a field or array element of this type, in stack form. */
    static Object zero(Class<?> type) {
        if (!type.isPrimitive()) return null;
        if (type == long.class) return 0L;
        if (type == float.class) return 0f;
        if (type == double.class) return 0d;
        return 0;
    }

    static Class<?> resolve(ClassDesc desc, Class<?> context) {
        try {
            if (desc.isPrimitive()) return (Class<?>) desc.resolveConstantDesc(MethodHandles.lookup());
            if (desc.isArray()) return resolve(desc.componentType(), context).arrayType();
            String name = desc.descriptorString();
            name = name.substring(1, name.length() - 1).replace('/', '.');
            ClassLoader loader = context == null || context.getClassLoader() == null ? Values.class.getClassLoader() : context.getClassLoader();
            return Class.forName(name, false, loader);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot load class " + desc.displayName() + ": " + e, e);
        }
    }
}
