package dev.ember.debug.bytecode;

import dev.ember.dynamo.GeneratedCode;
import dev.ember.jvm.Access;

import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.CallSite;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Resolves what the interpreted code of one class names: classes, fields, methods, constants and
 * {@code invokedynamic} call sites, through a full-privilege lookup in the user's class the code
 * belongs to (a generated class is its nestmate, so private members resolve as they do for the
 * JVM). Program-run-from-source users grant that lookup once with {@code Ember.grantAccess}, as
 * they must for the generated code itself. Call sites are linked once per instruction.
 */
final class Linker {
    private final Class<?> self;
    private final ClassDesc selfDesc;
    private final MethodHandles.Lookup lookup;
    private final Map<InvokeDynamicInstruction, CallSite> callSites = new IdentityHashMap<>();

    Linker(Class<?> self) {
        this.self = self;
        this.selfDesc = GeneratedCode.model(self).thisClass().asSymbol();
        Class<?> host = GeneratedCode.origin(self);
        try {
            this.lookup = Access.fullPrivilegeIn(host, MethodHandles.lookup());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("the bytecode debugger cannot look up the members of " + host.getName() + " (" + e.getMessage()
                    + "); grant Ember access from your code once, before compiling: Ember.grantAccess(MethodHandles.lookup());", e);
        }
    }

    /** The class {@code desc} names, seen from the code's class ({@code self} for its own, hidden, name). */
    Class<?> classOf(ClassDesc desc) {
        if (desc.equals(selfDesc)) return self;
        if (desc.isArray()) return classOf(desc.componentType()).arrayType();
        try {
            if (desc.isPrimitive()) return (Class<?>) desc.resolveConstantDesc(lookup);
            String name = desc.descriptorString();
            return Class.forName(name.substring(1, name.length() - 1).replace('/', '.'), false, self.getClassLoader());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot load class " + desc.displayName() + " named by " + self.getName() + ": " + e, e);
        }
    }

    MethodType methodType(MethodTypeDesc desc) {
        return MethodType.methodType(classOf(desc.returnType()), desc.parameterList().stream().map(this::classOf).toArray(Class<?>[]::new));
    }

    /** A constant of {@code ldc} or a bootstrap argument as the JVM resolves it. */
    Object constant(ConstantDesc c) {
        if (c instanceof ClassDesc cd) return classOf(cd);
        if (c instanceof MethodTypeDesc mt) return methodType(mt);
        try {
            return c.resolveConstantDesc(lookup);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot resolve the constant " + c + " in " + self.getName() + ": " + e, e);
        }
    }

    MethodHandle findStatic(ClassDesc owner, String name, MethodTypeDesc type) throws ReflectiveOperationException {
        return lookup.findStatic(classOf(owner), name, methodType(type));
    }

    /** A virtual, interface or private instance method: the receiver is the handle's first argument. */
    MethodHandle findVirtual(ClassDesc owner, String name, MethodTypeDesc type) throws ReflectiveOperationException {
        return lookup.findVirtual(classOf(owner), name, methodType(type));
    }

    MethodHandle findConstructor(ClassDesc owner, MethodTypeDesc type) throws ReflectiveOperationException {
        return lookup.findConstructor(classOf(owner), methodType(type));
    }

    MethodHandle getter(ClassDesc owner, String name, ClassDesc type, boolean isStatic) throws ReflectiveOperationException {
        return isStatic ? lookup.findStaticGetter(classOf(owner), name, classOf(type)) : lookup.findGetter(classOf(owner), name, classOf(type));
    }

    MethodHandle setter(ClassDesc owner, String name, ClassDesc type, boolean isStatic) throws ReflectiveOperationException {
        return isStatic ? lookup.findStaticSetter(classOf(owner), name, classOf(type)) : lookup.findSetter(classOf(owner), name, classOf(type));
    }

    /** The call site of {@code indy}, linked by its bootstrap method on first use, as the JVM links it. */
    CallSite callSite(InvokeDynamicInstruction indy) throws Throwable {
        CallSite site = callSites.get(indy);
        if (site != null) return site;
        MethodHandle bootstrap = (MethodHandle) indy.bootstrapMethod().resolveConstantDesc(lookup);
        List<Object> args = new ArrayList<>(List.of(lookup, indy.name().stringValue(), methodType(indy.typeSymbol())));
        for (ConstantDesc c : indy.bootstrapArgs()) args.add(constant(c));
        site = (CallSite) bootstrap.invokeWithArguments(args);
        callSites.put(indy, site);
        return site;
    }
}
