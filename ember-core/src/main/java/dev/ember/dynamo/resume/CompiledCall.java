package dev.ember.dynamo.resume;

import dev.ember.dynamo.CompiledFrame;
import dev.ember.dynamo.FrameRegistry;
import dev.ember.dynamo.FunctionTarget;
import dev.ember.dynamo.variables.MethodTarget;

import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.CallSite;
import java.lang.invoke.ConstantCallSite;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;

/**
 * The call of a helper whose code broke the graph, made from generated break code through the
 * helper's own compiled frame, as Dynamo compiles the frame of a function that broke when inlined:
 * the ops before and after the helper's break are in graphs of their own, not run eagerly with the
 * whole helper. The generated code calls it through {@code invokedynamic} (linked by
 * {@link #bootstrap}), passing the call's arguments and the break's {@link ResumeTarget}, whose
 * frame's options the helper's frame takes. Without a resume target, or for a null receiver, the
 * helper runs as the plain call it was.
 */
public final class CompiledCall {
    private final MethodTarget method;
    private final FunctionTarget function;
    private final MethodHandle direct;
    private final boolean isStatic;

    private CompiledCall(MethodTarget method, MethodHandle direct) {
        this.method = method;
        this.isStatic = method.isStatic();
        this.function = new FunctionTarget(method, "apply", new Object[0], isStatic ? "invokeStatic" : "invokeVirtual");
        this.direct = direct.asSpreader(Object[].class, direct.type().parameterCount()).asType(MethodType.methodType(Object.class, Object[].class));
    }

    private static final MethodHandle CALL;

    static {
        try {
            CALL = MethodHandles.lookup().findVirtual(CompiledCall.class, "call", MethodType.methodType(Object.class, Object[].class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Links a call site typed {@code (arguments…, ResumeTarget) → result}, for {@code owner.name}
     * with {@code descriptor} (static when {@code isStatic} is 1, else the receiver is the first argument).
     */
    public static CallSite bootstrap(MethodHandles.Lookup lookup, String name, MethodType type, Class<?> owner, String descriptor, int isStatic)
            throws ReflectiveOperationException {
        MethodType declared = MethodType.fromMethodDescriptorString(descriptor, owner.getClassLoader());
        MethodHandle direct = isStatic == 1 ? lookup.findStatic(owner, name, declared) : lookup.findVirtual(owner, name, declared);
        CompiledCall site = new CompiledCall(new MethodTarget(owner, name, MethodTypeDesc.ofDescriptor(descriptor), isStatic == 1), direct);
        MethodHandle h = CALL.bindTo(site).asCollector(Object[].class, type.parameterCount()).asType(type);
        return new ConstantCallSite(h);
    }

    private Object call(Object[] all) {
        ResumeTarget resume = (ResumeTarget) all[all.length - 1];
        Object[] args = Arrays.copyOf(all, all.length - 1);
        if (resume == null || !isStatic && args[0] == null) return invokeDirect(args);
        if (!isStatic) {
            // a call through a lambda's interface: the user's lambda gets its frame (captured values, then the arguments)
            FunctionTarget lambda = FunctionTarget.ofUserLambda(args[0]);
            if (lambda != null) {
                Object[] frame = new Object[lambda.captured().length + args.length - 1];
                System.arraycopy(lambda.captured(), 0, frame, 0, lambda.captured().length);
                System.arraycopy(args, 1, frame, lambda.captured().length, args.length - 1);
                return FrameRegistry.frameFor(lambda.method(), resume.frame().options()).call(lambda, frame, () -> invokeDirect(args));
            }
            // any other receiver of a JDK or Ember interface (Function.identity(), a module's own): the plain call
            if (!FunctionTarget.isUserCode(method.owner())) return invokeDirect(args);
        }
        CompiledFrame frame = FrameRegistry.frameFor(method, resume.frame().options());
        return frame.call(function, args, () -> invokeDirect(args));
    }

    private Object invokeDirect(Object[] args) {
        try {
            return direct.invokeExact(args);
        } catch (Throwable t) {
            throw Sneaky.<RuntimeException>rethrow(t);
        }
    }
}
