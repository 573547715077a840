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

    /**
     * A constructor of {@code type} that runs only Object's, from jdk.unsupported's ReflectionFactory
     * (the JDK's home for this, which serialization libraries use), looked up by name so that the
     * build does not warn on every compile about a proprietary API.
     */
    private static Constructor<?> allocator(Class<?> type) {
        try {
            Class<?> factoryClass = Class.forName("sun.reflect.ReflectionFactory");
            Object factory = factoryClass.getMethod("getReflectionFactory").invoke(null);
            return (Constructor<?>) factoryClass.getMethod("newConstructorForSerialization", Class.class, Constructor.class)
                    .invoke(factory, type, Object.class.getDeclaredConstructor());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this JDK cannot allocate a " + type.getName() + " without its constructor", e);
        }
    }
}
