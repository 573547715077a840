package dev.ember.dynamo;

import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The methods a hidden class's code refers to, read from its constant pool. A plain lambda's class
 * is hidden and has no class file, but the JVM keeps its constant pool, and the lambda's method
 * calls its implementation by a method reference there ({@code Outer.lambda$run$0}, {@code
 * Tensor.relu}): which lambda it is, known by identity rather than by its shape. The pool is the
 * JDK's {@code jdk.internal.reflect.ConstantPool}, reached through {@code jdk.internal.access}; the
 * JVM must export both to Ember ({@link #FLAGS}, which {@code ./ember}, the tests and the benchmarks
 * pass). Without them nothing is read, and a lambda that only its pool could tell apart is a graph
 * break that says so.
 */
final class HiddenClassPool {
    private HiddenClassPool() {}

    /** The JVM flags that let Ember read a hidden class's constant pool. */
    static final String FLAGS = "--add-exports java.base/jdk.internal.access=ALL-UNNAMED --add-exports java.base/jdk.internal.reflect=ALL-UNNAMED";

    private record Access(Object javaLangAccess, Method getConstantPool, Method size, Method tag, Method memberRef) {}

    /** How to read a pool, or null when the JDK's internals are not exported to Ember. */
    private static final Access ACCESS = access();

    private static Access access() {
        try {
            Object jla = Class.forName("jdk.internal.access.SharedSecrets").getMethod("getJavaLangAccess").invoke(null);
            Method getPool = Class.forName("jdk.internal.access.JavaLangAccess").getMethod("getConstantPool", Class.class);
            Class<?> pool = Class.forName("jdk.internal.reflect.ConstantPool");
            Access a = new Access(jla, getPool, pool.getMethod("getSize"), pool.getMethod("getTagAt", int.class), pool.getMethod("getMemberRefInfoAt", int.class));
            a.size().invoke(getPool.invoke(jla, HiddenClassPool.class));   // fails here, once, when either package is not exported
            return a;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** Whether the constant pools can be read (the JVM was started with {@link #FLAGS}). */
    static boolean readable() { return ACCESS != null; }

    /**
     * The methods and constructors {@code c}'s constant pool refers to, each as {@code
     * owner/InternalName.name(descriptor)}; null when the pool cannot be read.
     */
    static Set<String> methodRefs(Class<?> c) {
        if (ACCESS == null) return null;
        try {
            Object pool = ACCESS.getConstantPool().invoke(ACCESS.javaLangAccess(), c);
            int size = (int) ACCESS.size().invoke(pool);
            Set<String> refs = new LinkedHashSet<>();
            for (int i = 1; i < size; i++) {
                String tag;
                try {
                    tag = ACCESS.tag().invoke(pool, i).toString();
                } catch (java.lang.reflect.InvocationTargetException unknownTag) {
                    continue;   // a kind of entry ConstantPool.Tag does not name (a dynamic constant): no method reference
                }
                if (!tag.equals("METHODREF") && !tag.equals("INTERFACEMETHODREF")) continue;
                String[] ref = (String[]) ACCESS.memberRef().invoke(pool, i);
                refs.add(ref[0] + "." + ref[1] + ref[2]);
            }
            return refs;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** How {@link #methodRefs} names a method {@code name+descriptor} declared in (or inherited by) {@code owner}. */
    static String ref(Class<?> owner, String name, String descriptor) {
        return owner.getName().replace('.', '/') + "." + name + descriptor;
    }
}
