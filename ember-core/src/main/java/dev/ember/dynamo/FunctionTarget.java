package dev.ember.dynamo;

import dev.ember.dynamo.variables.MethodTarget;

import java.io.Serializable;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandleInfo;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Method;

/**
 * The method behind a serializable lambda or method reference, found through its
 * {@code writeReplace} → {@link SerializedLambda}: implementation class, name, descriptor and kind,
 * the functional interface's method name, and the captured values (a bound receiver first).
 */
public record FunctionTarget(MethodTarget method, String interfaceMethod, Object[] captured, String implMethodKind) {

    public static FunctionTarget of(Object fn) {
        if (!(fn instanceof Serializable)) {
            throw new IllegalArgumentException("Ember.compile needs a serializable function to find its bytecode, but "
                    + fn.getClass().getName() + " is not Serializable. Pass a lambda or method reference typed as one of "
                    + "dev.ember.Fn0…Fn5 (they extend Serializable), e.g. Fn2<Tensor, Tensor, Tensor> f = MyApp::fn, "
                    + "or cast: (Fn1<Tensor, Tensor> & Serializable) x -> …");
        }
        SerializedLambda sl = serializedLambda(fn);
        ClassLoader loader = fn.getClass().getClassLoader();
        Class<?> impl;
        try {
            impl = Class.forName(sl.getImplClass().replace('/', '.'), false, loader);
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("cannot load the class " + sl.getImplClass() + " that implements " + fn, e);
        }
        int kind = sl.getImplMethodKind();
        if (kind == MethodHandleInfo.REF_newInvokeSpecial) {
            throw new IllegalArgumentException("Ember.compile cannot capture a constructor reference (" + sl.getImplClass() + "::new); "
                    + "wrap the construction in a static method");
        }
        boolean isStatic = kind == MethodHandleInfo.REF_invokeStatic;
        Object[] captured = new Object[sl.getCapturedArgCount()];
        for (int i = 0; i < captured.length; i++) captured[i] = sl.getCapturedArg(i);
        MethodTarget target = new MethodTarget(impl, sl.getImplMethodName(), MethodTypeDesc.ofDescriptor(sl.getImplMethodSignature()), isStatic);
        return new FunctionTarget(target, sl.getFunctionalInterfaceMethodName(), captured, MethodHandleInfo.referenceKindToString(kind));
    }

    /**
     * The user's lambda or method reference behind {@code receiver}, a serializable lambda object,
     * for a call through its interface to run in a compiled frame of the implementation method; null
     * for any other object, and for a method reference to the JDK's or Ember's own code.
     */
    public static FunctionTarget ofUserLambda(Object receiver) {
        if (receiver == null || !receiver.getClass().isHidden() || !(receiver instanceof Serializable)) return null;
        try {
            FunctionTarget t = of(receiver);
            return isUserCode(t.method().owner()) ? t : null;
        } catch (IllegalArgumentException | IllegalStateException e) {
            return null;        // a constructor reference, or no SerializedLambda: called as it is
        }
    }

    /** Code of the user's: not the JDK's, not Ember's own, not a hidden class. */
    public static boolean isUserCode(Class<?> c) { return !JdkCalls.isJdk(c) && !TraceContext.isLibrary(c) && !c.isHidden(); }

    /** An interface with exactly one abstract method: what a lambda implements. */
    static boolean isFunctionalInterface(Class<?> c) {
        if (!c.isInterface()) return false;
        long abstracts = java.util.Arrays.stream(c.getMethods()).filter(m -> java.lang.reflect.Modifier.isAbstract(m.getModifiers()))
                .filter(m -> !isObjectMethod(m)).map(m -> m.getName() + java.util.Arrays.toString(m.getParameterTypes())).distinct().count();
        return abstracts == 1;
    }

    private static boolean isObjectMethod(Method m) {
        try {
            Object.class.getMethod(m.getName(), m.getParameterTypes());
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    /** A module's {@code forward(Tensor)}, with the module as the captured receiver ({@code L['self']}). */
    public static FunctionTarget forModule(Object module) {
        MethodTypeDesc forward = MethodTypeDesc.ofDescriptor("(Ldev/ember/tensor/Tensor;)Ldev/ember/tensor/Tensor;");
        return new FunctionTarget(new MethodTarget(module.getClass(), "forward", forward, false), "apply", new Object[] {module},
                MethodHandleInfo.referenceKindToString(MethodHandleInfo.REF_invokeVirtual));
    }

    /** The instance method {@code owner.name(Tensor) → Tensor} on {@code receiver} ({@code L['self']}): e.g. a module's {@code call}, its hooks around forward. */
    public static FunctionTarget tensorMethod(Object receiver, Class<?> owner, String name) {
        MethodTypeDesc type = MethodTypeDesc.ofDescriptor("(Ldev/ember/tensor/Tensor;)Ldev/ember/tensor/Tensor;");
        return new FunctionTarget(new MethodTarget(owner, name, type, false), "apply", new Object[] {receiver},
                MethodHandleInfo.referenceKindToString(MethodHandleInfo.REF_invokeVirtual));
    }

    private static SerializedLambda serializedLambda(Object fn) {
        try {
            Method m = fn.getClass().getDeclaredMethod("writeReplace");
            m.setAccessible(true);
            Object r = m.invoke(fn);
            if (r instanceof SerializedLambda sl) return sl;
            throw new IllegalArgumentException(fn.getClass().getName() + ".writeReplace() returned " + r + ", not a SerializedLambda");
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException("Ember.compile takes a lambda or method reference (typed as dev.ember.Fn0…Fn5), but "
                    + fn.getClass().getName() + " is an ordinary class; to compile a Module use Ember.compile(module)", e);
        } catch (ReflectiveOperationException | java.lang.reflect.InaccessibleObjectException e) {
            throw new IllegalArgumentException("cannot read the SerializedLambda of " + fn + ": " + e, e);
        }
    }

    /**
     * Whether Ember can read the SerializedLambda of a lambda of class {@code c}: its package is open
     * to Ember. The JDK's own serializable lambdas ({@code Comparator.comparingInt(...)}) are not.
     */
    static boolean readable(Class<?> c) { return c.getModule().isOpen(c.getPackageName(), FunctionTarget.class.getModule()); }
}
