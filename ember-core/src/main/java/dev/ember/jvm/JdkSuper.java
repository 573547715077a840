package dev.ember.jvm;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Calls the JDK's own implementation of a method on an object whose class may be a user subclass
 * that overrides it ({@code HashMap.put} on a subclass whose {@code put} adds one to the value).
 * Writing a traced container's final contents back into a real one needs this: the trace already
 * ran the override, and running it again would apply it twice.
 */
public final class JdkSuper {
    private JdkSuper() {}

    private static final Module JDK = Object.class.getModule();

    /** Whether {@code c} is the JDK's own (java.base), not a subclass a program wrote. */
    public static boolean isJdkClass(Class<?> c) { return c.getModule() == JDK; }

    /** {@code receiver.name(args)} as the nearest JDK superclass of its class implements it. */
    public static Object invoke(Object receiver, String name, MethodType type, Object... args) {
        Class<?> cls = receiver.getClass();
        try {
            Class<?> declaring = cls.getMethod(name, type.parameterArray()).getDeclaringClass();
            if (declaring.getModule() == JDK) return MethodHandles.publicLookup().findVirtual(declaring, name, type).bindTo(receiver).invokeWithArguments(args);
            Class<?> jdk = cls;
            while (jdk.getModule() != JDK) jdk = jdk.getSuperclass();
            MethodHandle special = Access.fullPrivilegeIn(cls, MethodHandles.lookup()).findSpecial(jdk, name, type, cls);
            return special.bindTo(receiver).invokeWithArguments(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("calling " + name + " of " + cls.getName() + " as the JDK implements it failed", e);
        }
    }
}
