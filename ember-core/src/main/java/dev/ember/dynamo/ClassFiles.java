package dev.ember.dynamo;

import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.AccessFlag;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Reads and caches parsed class files, and finds the method a call resolves to. */
final class ClassFiles {
    private static final Map<Class<?>, ClassModel> MODELS = new ConcurrentHashMap<>();
    /** Classes generated at run time (resume code): their parsed bytes and the user class they continue. */
    private static final Map<Class<?>, Generated> GENERATED = new ConcurrentHashMap<>();

    private record Generated(ClassModel model, Class<?> origin) {}

    private ClassFiles() {}

    /** The parsed class file of {@code cls}; throws {@link ClassFileNotFound} when its bytes cannot be found. */
    static ClassModel model(Class<?> cls) {
        ClassModel m = MODELS.get(cls);
        if (m != null) return m;
        Generated g = GENERATED.get(cls);
        if (g != null) return g.model();
        m = ClassFile.of().parse(bytes(cls));
        MODELS.putIfAbsent(cls, m);
        return m;
    }

    static void registerGenerated(Class<?> hidden, byte[] bytes, Class<?> origin) {
        GENERATED.put(hidden, new Generated(ClassFile.of().parse(bytes), origin));
    }

    /** The user class a generated class continues, or {@code cls} itself. */
    static Class<?> origin(Class<?> cls) {
        Generated g = GENERATED.get(cls);
        return g == null ? cls : g.origin();
    }

    static byte[] bytes(Class<?> cls) {
        if (cls.isHidden()) {
            int candidates = Lambdas.candidates(cls).size();
            if (candidates > 1) {
                throw new ClassFileNotFound(cls.getName() + " is a lambda without a class file, and " + candidates + " lambdas in "
                        + Lambdas.definingClass(cls).getName() + " have its shape (" + cls.getInterfaces()[0].getSimpleName() + " capturing "
                        + Arrays.stream(cls.getDeclaredFields()).filter(f -> !java.lang.reflect.Modifier.isStatic(f.getModifiers())).count()
                        + " values), so which one it is cannot be known; "
                        + (HiddenClassPool.readable() ? "" : "start the JVM with " + HiddenClassPool.FLAGS + " (./ember does) so that its constant pool names it, or ")
                        + "make it serializable (type it as dev.ember.Fn0…Fn5, or cast: "
                        + "(Function<Tensor, Tensor> & Serializable) t -> …) and its implementation method is named");
            }
            throw new ClassFileNotFound(cls.getName() + " is a hidden class (a lambda or a generated class) and has no class file;"
                    + " pass a serializable lambda (dev.ember.Fn0…Fn5) so its implementation method can be found");
        }
        if (cls.isArray() || cls.isPrimitive()) throw new ClassFileNotFound(cls.getName() + " has no class file");
        try {
            byte[] bytes = dev.ember.jvm.ClassBytes.read(cls);
            if (bytes == null) {
                throw new ClassFileNotFound("the class file of " + cls.getName() + " (" + dev.ember.jvm.ClassBytes.resource(cls).substring(1)
                        + ") cannot be found through its class loader " + cls.getClassLoader());
            }
            return bytes;
        } catch (IOException e) {
            throw new ClassFileNotFound("reading the class file of " + cls.getName() + " failed: " + e);
        }
    }

    /** A resolved method: the class that declares the code and its model. */
    record Resolved(Class<?> declaringClass, MethodModel method) {
        boolean hasCode() { return method.code().isPresent(); }

        boolean isStatic() { return method.flags().has(AccessFlag.STATIC); }
    }

    /** The method {@code name+type} declared exactly in {@code cls}, or null. */
    static Resolved declared(Class<?> cls, String name, MethodTypeDesc type) {
        String desc = type.descriptorString();
        for (MethodModel mm : model(cls).methods()) {
            if (mm.methodName().equalsString(name) && mm.methodType().equalsString(desc)) return new Resolved(cls, mm);
        }
        return null;
    }

    /** Virtual dispatch: the implementation of {@code name+type} for a receiver of class {@code cls}. */
    static Resolved virtual(Class<?> cls, String name, MethodTypeDesc type) {
        for (Class<?> c = cls; c != null; c = c.getSuperclass()) {
            Resolved r = declared(c, name, type);
            if (r != null && !r.method().flags().has(AccessFlag.ABSTRACT)) return r;
        }
        for (Class<?> c = cls; c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                Resolved r = defaultMethod(i, name, type);
                if (r != null) return r;
            }
        }
        return null;
    }

    private static Resolved defaultMethod(Class<?> iface, String name, MethodTypeDesc type) {
        Resolved r = declared(iface, name, type);
        if (r != null && r.hasCode()) return r;
        for (Class<?> sup : iface.getInterfaces()) {
            Resolved s = defaultMethod(sup, name, type);
            if (s != null) return s;
        }
        return null;
    }

    /** Static or special (private, super, constructor) calls: the method in {@code cls} or, for statics, its supertypes. */
    static Resolved exact(Class<?> cls, String name, MethodTypeDesc type) {
        for (Class<?> c = cls; c != null; c = c.getSuperclass()) {
            Resolved r = declared(c, name, type);
            if (r != null) return r;
        }
        return null;
    }

    /** A class file that could not be read. */
    static final class ClassFileNotFound extends RuntimeException {
        ClassFileNotFound(String message) { super(message); }
    }

    static void clear() {
        MODELS.clear();
        GENERATED.clear();
    }
}
