package dev.ember.dynamo;

import java.lang.reflect.Constructor;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Allocates an object of a user class without running its constructors (as deserialization does),
 * for objects made during a trace and made again after the graph: the trace already ran the
 * constructor, and what it did is in the object's traced fields or replayed as side effects.
 */
final class Allocation {
    private Allocation() {}

    private static final Map<Class<?>, Constructor<?>> ALLOCATORS = new ConcurrentHashMap<>();

    static Object allocate(Class<?> type) {
        try {
            return ALLOCATORS.computeIfAbsent(type, Allocation::allocator).newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("allocating a " + type.getName() + " failed", e);
        }
    }

    private static final Map<Class<?>, Map<Class<?>, Constructor<?>>> BASE_CONSTRUCTORS = new ConcurrentHashMap<>();

    /**
     * A new {@code type}, a JDK container class or a user class extending one, made by the JDK
     * class's constructor taking {@code param} ({@code arg}; null for the no-argument one) and none
     * of the user class's constructors: the trace already ran those, and what they did to the
     * container is replayed on it.
     */
    static Object constructAs(Class<?> type, Class<?> param, Object arg) throws ReflectiveOperationException {
        Class<?> jdk = type;
        while (!jdk.getName().startsWith("java.")) jdk = jdk.getSuperclass();
        Constructor<?> base = param == null ? jdk.getConstructor() : jdk.getConstructor(param);
        if (jdk == type) return param == null ? base.newInstance() : base.newInstance(arg);
        Constructor<?> c = BASE_CONSTRUCTORS.computeIfAbsent(type, t -> new ConcurrentHashMap<>()).computeIfAbsent(param == null ? void.class : param,
                p -> serializationConstructor(type, base));
        return param == null ? c.newInstance() : c.newInstance(arg);
    }

    /**
     * A constructor of {@code type} that runs only Object's, from jdk.unsupported's ReflectionFactory
     * (the JDK's home for this, which serialization libraries use), looked up by name so that the
     * build does not warn on every compile about a proprietary API.
     */
    private static Constructor<?> allocator(Class<?> type) {
        try {
            return serializationConstructor(type, Object.class.getDeclaredConstructor());
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A constructor of {@code type} that runs {@code base} (a constructor of a superclass) alone. */
    private static Constructor<?> serializationConstructor(Class<?> type, Constructor<?> base) {
        try {
            Class<?> factoryClass = Class.forName("sun.reflect.ReflectionFactory");
            Object factory = factoryClass.getMethod("getReflectionFactory").invoke(null);
            return (Constructor<?>) factoryClass.getMethod("newConstructorForSerialization", Class.class, Constructor.class)
                    .invoke(factory, type, base);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this JDK cannot allocate a " + type.getName() + " without its constructor", e);
        }
    }
}
