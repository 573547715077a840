package dev.ember.dynamo;

import dev.ember.dynamo.variables.LambdaSite;
import dev.ember.dynamo.variables.MethodTarget;

import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.constant.ConstantDesc;
import java.lang.constant.DirectMethodHandleDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.CallSite;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a lambda's code is. A serializable lambda says so itself ({@link FunctionTarget}); a plain
 * one is a hidden class without a class file, whose implementation method is found in the class
 * that made it, told apart from others of its shape by the hidden class's constant pool ({@link #ofHidden}). Lambdas made during a trace are made again after the graph: the invokedynamic that made one is
 * linked once more (its bootstrap called with a lookup in the class that holds it), and the call
 * site's target makes a lambda from captured values. The classes of the lambdas so made are
 * remembered with their implementation, so code after a graph break can trace a call of one even
 * when it is not serializable.
 */
final class Lambdas {
    private Lambdas() {}

    /** What a remade lambda's class implements. */
    record Made(MethodTarget target, String interfaceMethod) {}

    private static final Map<LambdaSite, MethodHandle> FACTORIES = new ConcurrentHashMap<>();
    private static final Map<Class<?>, Made> MADE = Collections.synchronizedMap(new WeakHashMap<>());

    /** The factory of the lambdas {@code site} makes: captured values in, lambda out. */
    static MethodHandle factory(LambdaSite site) {
        return FACTORIES.computeIfAbsent(site, s -> {
            var indy = s.indy();
            try {
                MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(s.caller(), MethodHandles.lookup());
                List<Object> bootstrapArgs = new ArrayList<>(List.of(lookup, indy.name().stringValue(), indy.typeSymbol().resolveConstantDesc(lookup)));
                for (ConstantDesc arg : indy.bootstrapArgs()) bootstrapArgs.add(arg.resolveConstantDesc(lookup));
                MethodHandle bootstrap = indy.bootstrapMethod().resolveConstantDesc(lookup);
                return ((CallSite) bootstrap.invokeWithArguments(bootstrapArgs)).getTarget();
            } catch (Throwable e) {
                throw new IllegalStateException("linking the lambda made in " + s.caller().getName() + " again failed: " + e, e);
            }
        });
    }

    static void remember(Class<?> lambdaClass, Made made) { MADE.putIfAbsent(lambdaClass, made); }

    /** What the remade lambda class {@code c} implements, or null for any other class. */
    static Made made(Class<?> c) { return MADE.get(c); }

    private static final Map<Class<?>, Optional<Made>> HIDDEN = Collections.synchronizedMap(new WeakHashMap<>());

    /**
     * What the plain (not serializable) lambda or method reference class {@code c} implements, or
     * null when that cannot be known. Such a class is hidden, has no class file, and its fields are
     * its captured values; it is a nestmate of the class whose code made it. Every
     * LambdaMetafactory invokedynamic there that makes {@code c}'s interface from captured values of
     * {@code c}'s field types is a candidate: one implementation among them is the answer (a hook list
     * of {@code t -> t.relu()} and {@code t -> { seen.add(t); return t; }} is told apart by the
     * captured list), and so are several with one code ({@link #sameCode}). Two lambdas of one shape
     * and different code in one class are told apart by identity: the one whose implementation the
     * hidden class's own constant pool calls ({@link HiddenClassPool}). When that pool cannot be read,
     * or still names more than one of them: null, and the break says how to make the lambda known.
     */
    static Made ofHidden(Class<?> c) {
        return HIDDEN.computeIfAbsent(c, k -> Optional.ofNullable(resolveHidden(k))).orElse(null);
    }

    /** The distinct implementations a hidden lambda class {@code c} could have (empty when {@code c} is not one). */
    static Set<MethodTarget> candidates(Class<?> c) {
        Set<MethodTarget> out = new LinkedHashSet<>();
        Class<?> host = c.isHidden() ? definingClass(c) : c;
        if (host == c || c.getInterfaces().length == 0) return out;
        ClassModel model;
        try {
            model = ClassFiles.model(host);
        } catch (RuntimeException e) {
            return out;   // the host's class file cannot be read: nothing to match
        }
        String iface = c.getInterfaces()[0].descriptorString();
        List<String> captured = Arrays.stream(c.getDeclaredFields()).filter(f -> !java.lang.reflect.Modifier.isStatic(f.getModifiers()))
                .map(f -> f.getType().descriptorString()).toList();
        for (MethodModel m : model.methods()) {
            Optional<CodeModel> code = m.code();
            if (code.isEmpty()) continue;
            for (var element : code.get()) {
                if (!(element instanceof InvokeDynamicInstruction indy) || !indy.bootstrapMethod().owner().displayName().equals("LambdaMetafactory")) continue;
                MethodTypeDesc type = indy.typeSymbol();
                if (!type.returnType().descriptorString().equals(iface)) continue;
                if (!type.parameterList().stream().map(java.lang.constant.ClassDesc::descriptorString).toList().equals(captured)) continue;
                MethodTarget target = targetOf(indy, host);
                if (target != null) out.add(target);
            }
        }
        return out;
    }

    /**
     * The class whose code made the hidden lambda class {@code c}: the JDK names a lambda class after
     * it ({@code Outer$Inner$$Lambda/0x…}), and it may be a nested class (an enum, a record, a static
     * helper) of {@code c}'s nest host, which holds none of its invokedynamics. The nest host when
     * the name says nothing else.
     */
    static Class<?> definingClass(Class<?> c) {
        String name = c.getName();
        int cut = name.indexOf("$$Lambda");
        if (cut > 0) {
            try {
                Class<?> maker = Class.forName(name.substring(0, cut), false, c.getClassLoader());
                if (maker.getNestHost() == c.getNestHost()) return maker;
            } catch (ClassNotFoundException | LinkageError e) {
                // fall back to the nest host
            }
        }
        return c.getNestHost();
    }

    private static Made resolveHidden(Class<?> c) {
        Set<MethodTarget> found = candidates(c);
        if (found.size() > 1 && sameCode(found)) found = Set.of(found.iterator().next());
        if (found.size() > 1) found = calledBy(c, found);
        if (found.size() != 1) return null;
        String sam = samName(c);
        return sam == null ? null : new Made(found.iterator().next(), sam);
    }

    /**
     * The candidates that the hidden class {@code c}'s constant pool refers to: the lambda's method
     * calls its implementation by name (a method reference to an inherited method names the class
     * that declares it, a supertype of the one the invokedynamic names). All of them when the pool
     * cannot be read. More than one remain only when the lambda's pool also names another candidate
     * for its own reasons (boxing with {@code Integer.valueOf} beside a method reference to it): the
     * caller then knows nothing, as it must not guess.
     */
    private static Set<MethodTarget> calledBy(Class<?> c, Set<MethodTarget> candidates) {
        Set<String> refs = HiddenClassPool.methodRefs(c);
        if (refs == null) return candidates;
        Set<MethodTarget> called = new LinkedHashSet<>();
        for (MethodTarget t : candidates) {
            String descriptor = t.type().descriptorString();
            if (supertypes(t.owner()).stream().anyMatch(s -> refs.contains(HiddenClassPool.ref(s, t.name(), descriptor)))) called.add(t);
        }
        return called;
    }

    /** {@code c}, its superclasses and every interface they implement. */
    private static Set<Class<?>> supertypes(Class<?> c) {
        Set<Class<?>> out = new LinkedHashSet<>();
        java.util.ArrayDeque<Class<?>> todo = new java.util.ArrayDeque<>(List.of(c));
        while (!todo.isEmpty()) {
            Class<?> k = todo.poll();
            if (!out.add(k)) continue;
            if (k.getSuperclass() != null) todo.add(k.getSuperclass());
            todo.addAll(List.of(k.getInterfaces()));
        }
        return out;
    }

    /**
     * Whether the candidate implementations are one code under several names: methods of one class
     * (one constant pool) with the same bytecode and handlers, as javac makes for lambdas written
     * alike ({@code t -> m.forward(t, y0)} and {@code t -> m.forward(t, y1)}, told apart only by what
     * they capture). Then any of them is the lambda's code, and the hidden class needs no telling apart.
     */
    private static boolean sameCode(Set<MethodTarget> targets) {
        byte[] first = null;
        List<String> firstHandlers = null;
        for (MethodTarget t : targets) {
            if (t.owner() != targets.iterator().next().owner()) return false;
            java.lang.classfile.attribute.CodeAttribute code;
            try {
                code = ClassFiles.model(t.owner()).methods().stream()
                        .filter(m -> m.methodName().equalsString(t.name()) && m.methodTypeSymbol().equals(t.type()))
                        .findFirst().flatMap(m -> m.findAttribute(java.lang.classfile.Attributes.code())).orElse(null);
            } catch (RuntimeException e) {
                return false;
            }
            if (code == null) return false;
            java.lang.classfile.attribute.CodeAttribute c = code;
            List<String> handlers = c.exceptionHandlers().stream().map(h -> c.labelToBci(h.tryStart()) + ":" + c.labelToBci(h.tryEnd()) + ":"
                    + c.labelToBci(h.handler()) + ":" + h.catchType().map(x -> x.asInternalName()).orElse("")).toList();
            if (first == null) {
                first = c.codeArray();
                firstHandlers = handlers;
            } else if (!Arrays.equals(first, c.codeArray()) || !firstHandlers.equals(handlers)) {
                return false;
            }
        }
        return true;
    }

    /** The interface method the lambda class implements: its one public instance method that is not a bridge. */
    private static String samName(Class<?> c) {
        List<String> names = Arrays.stream(c.getDeclaredMethods())
                .filter(m -> !m.isBridge() && !m.isSynthetic() && !java.lang.reflect.Modifier.isStatic(m.getModifiers())
                        && java.lang.reflect.Modifier.isPublic(m.getModifiers()))
                .map(java.lang.reflect.Method::getName).distinct().toList();
        return names.size() == 1 ? names.getFirst() : null;
    }

    /**
     * A lambda a constant holds (an enum constant's final field, {@code SUM(t -> t.sum(-1))}), as a
     * traced lambda: its code from its SerializedLambda when it is serializable, else from its class
     * ({@link #ofHidden}), its captured values constants. Null when it is no lambda, its code cannot
     * be found, or it captures a value that is no immutable constant (a tensor, a list).
     */
    static dev.ember.dynamo.variables.LambdaVariable ofConstant(Object lambda) {
        if (lambda == null || !lambda.getClass().isHidden() || !FunctionTarget.readable(lambda.getClass())) return null;
        MethodTarget target;
        String sam;
        if (lambda instanceof java.io.Serializable) {
            FunctionTarget t = FunctionTarget.ofUserLambda(lambda);
            if (t == null) return null;
            target = t.method();
            sam = t.interfaceMethod();
        } else {
            Made m = ofHidden(lambda.getClass());
            if (m == null) return null;
            target = m.target();
            sam = m.interfaceMethod();
        }
        List<dev.ember.dynamo.variables.VariableTracker> captured = new ArrayList<>();
        for (java.lang.reflect.Field f : lambda.getClass().getDeclaredFields()) {
            if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) continue;
            Object v;
            try {
                f.setAccessible(true);
                v = f.get(lambda);
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
            if (!(v == null || f.getType().isPrimitive() || v instanceof String || v instanceof Number || v instanceof Boolean
                    || v instanceof Character || v instanceof Enum<?>)) {
                return null;
            }
            captured.add(Fields.constantOf(v, f.getType()));
        }
        return new dev.ember.dynamo.variables.LambdaVariable(target, sam, captured, null, null);
    }

    /** The method a LambdaMetafactory site's lambdas run (a constructor reference's: {@code <init>}, static-like), or null for another kind. */
    static MethodTarget targetOf(InvokeDynamicInstruction indy, Class<?> caller) {
        DirectMethodHandleDesc impl = (DirectMethodHandleDesc) indy.bootstrapArgs().get(1);
        if (impl.kind() == DirectMethodHandleDesc.Kind.CONSTRUCTOR) {
            // Box::new: the constructor, its arguments the lambda's (Invoker.callLambda makes the object, then calls it)
            return new MethodTarget(Values.resolve(impl.owner(), caller), "<init>",
                    impl.invocationType().changeReturnType(java.lang.constant.ConstantDescs.CD_void), true);
        }
        Boolean isStatic = switch (impl.kind()) {
            case STATIC, INTERFACE_STATIC -> true;
            case VIRTUAL, INTERFACE_VIRTUAL, SPECIAL, INTERFACE_SPECIAL -> false;
            default -> null;
        };
        if (isStatic == null) return null;
        Class<?> owner = Values.resolve(impl.owner(), caller);
        // the implementation's own type: a virtual one without its receiver (MethodTypeDesc.dropParameterTypes(0, 0) throws
        // for a method without parameters, a static () -> value lambda's)
        MethodTypeDesc type = isStatic ? impl.invocationType() : impl.invocationType().dropParameterTypes(0, 1);
        return new MethodTarget(owner, impl.methodName(), type, isStatic);
    }
}
