package dev.ember.dynamo;

import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.UserObjectVariable;
import dev.ember.dynamo.variables.VariableTracker;

import java.lang.constant.MethodTypeDesc;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Exceptions as the tracer models them: a JDK exception made in the trace is an object of its
 * class whose message is known (its {@code detailMessage}); one the traced code throws, or one a
 * JDK call or an op's meta function throws while tracing, is {@link Raised}, for the handlers of
 * the traced frames to catch.
 */
final class Exceptions {
    private Exceptions() {}

    private static final String MESSAGE = "detailMessage";
    /** The cause an exception was made with ({@code new E(message, cause)}), kept so that one made again after the graph has it too. */
    private static final String CAUSE = "ember$cause";
    private static final Set<String> MESSAGE_CONSTRUCTORS = Set.of("(Ljava/lang/String;)V", "(Ljava/lang/String;Ljava/lang/Throwable;)V");

    /**
     * A JDK exception's constructor on an object made in the trace: {@code ()}, {@code (String)} and
     * {@code (String, Throwable)} set the message (the cause is not read back); any other (a cause
     * alone, whose text becomes the message; suppression flags) the tracer does not model, so
     * tracing stops there.
     */
    static void construct(TraceContext ctx, UserObjectVariable u, Class<?> owner, MethodTypeDesc type, List<VariableTracker> args) {
        u.fields().putIfAbsent(MADE_AT, ConstantVariable.of(madeAt(ctx)));
        if (args.isEmpty()) return;
        if (MESSAGE_CONSTRUCTORS.contains(type.descriptorString()) && args.getFirst() instanceof ConstantVariable m) {
            u.fields().put(MESSAGE, m);
            if (args.size() == 2) u.fields().put(CAUSE, args.get(1));
            return;
        }
        if (owner == AssertionError.class && type.parameterCount() == 1 && args.getFirst() instanceof ConstantVariable m
                && !(m.value() instanceof Throwable)) {
            // assert c : detail; compiles to AssertionError(Object) (or a primitive overload): the message is String.valueOf(detail)
            Class<?> p = Values.resolve(type.parameterType(0), owner);
            u.fields().put(MESSAGE, ConstantVariable.of(String.valueOf(Values.fromStack(m.value(), p))));
            return;
        }
        throw ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "constructing " + u.type().getName() + " through " + owner.getSimpleName()
                + "(" + String.join(", ", args.stream().map(VariableTracker::describe).toList()) + "): only an exception made with no"
                + " argument, or with a message known while tracing (and a cause), is modelled");
    }

    /** Where the program made an exception: the top of the stack trace eager's has (the JVM leaves out the exception's constructors). */
    private static final String MADE_AT = "ember$madeAt";

    private static StackTraceElement madeAt(TraceContext ctx) {
        for (int i = ctx.frames.size() - 1; i >= 0; i--) {
            InstructionTranslator t = ctx.frames.get(i);
            if (i > 0 && t.code.name.equals("<init>") && Throwable.class.isAssignableFrom(t.code.owner)) continue;
            dev.ember.events.UserFrame f = t.location();
            return new StackTraceElement(f.className(), f.methodName(), f.fileName(), f.line());
        }
        return null;
    }

    /** Marks an exception whose message the trace cannot know (the JVM's own helpful NullPointerException text). */
    private static final String MESSAGE_UNKNOWN = "ember$messageUnknown";

    /**
     * An exception the JVM itself throws at an instruction of the traced code (a call on null, the
     * unboxing of a null Integer): raised for the frame's handlers to catch, as in test_exceptions'
     * KeyError caught by its except block. Its message is the JVM's own description of the
     * instruction, which the trace does not reproduce, so reading it stops the trace there.
     */
    static Raised raiseFromJvm(TraceContext ctx, Class<? extends Throwable> type, String reason) {
        UserObjectVariable u = UserObjectVariable.fresh(type);
        u.fields().put(MESSAGE_UNKNOWN, ConstantVariable.of(1));
        return new Raised(u, type, ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, reason));
    }

    /** Whether {@code getMessage()} on this object can be answered from the trace: made in it, and the method is Throwable's own. */
    static boolean answersGetMessage(UserObjectVariable u) {
        if (!u.isFresh() || !Throwable.class.isAssignableFrom(u.type()) || u.fields().containsKey(MESSAGE_UNKNOWN)) return false;
        try {
            return u.type().getMethod("getMessage").getDeclaringClass() == Throwable.class;
        } catch (NoSuchMethodException e) {
            throw new AssertionError("every Throwable has getMessage()", e);
        }
    }

    /**
     * How to make again, after the graph, an exception the trace made (one thrown out of the
     * function, as Dynamo re-raises what the frame raised): its class's nearest JDK constructor
     * taking the message (or none), the cause it was made with, the fields the program's own
     * subclass assigned. Null when the trace does not know what the object holds: its message is
     * the JVM's own text, or its JDK class has no such constructor.
     */
    static Made madeAgain(UserObjectVariable u) {
        if (!u.isFresh() || !Throwable.class.isAssignableFrom(u.type()) || u.fields().containsKey(MESSAGE_UNKNOWN)) return null;
        VariableTracker message = u.fields().get(MESSAGE);
        if (message != null && !(message instanceof ConstantVariable c && (c.value() == null || c.value() instanceof String))) return null;
        Class<?> jdk = u.type();
        while (!jdk.getName().startsWith("java.")) jdk = jdk.getSuperclass();
        try {
            if (message == null) jdk.getConstructor();
            else jdk.getConstructor(String.class);
        } catch (NoSuchMethodException e) {
            return null;
        }
        Map<String, VariableTracker> own = new java.util.LinkedHashMap<>(u.fields());
        own.remove(MESSAGE);
        VariableTracker cause = own.remove(CAUSE);
        StackTraceElement at = own.remove(MADE_AT) instanceof ConstantVariable c && c.value() instanceof StackTraceElement e ? e : null;
        return new Made(message == null ? null : (ConstantVariable) message, cause, own, at);
    }

    /**
     * What {@link #madeAgain} found: the message (null: made with no argument), the cause or null,
     * the subclass's fields by name, and the program's line that made it (or null).
     */
    record Made(ConstantVariable message, VariableTracker cause, Map<String, VariableTracker> fields, StackTraceElement madeAt) {}

    static VariableTracker message(UserObjectVariable u) { return u.fields().getOrDefault(MESSAGE, ConstantVariable.NULL); }

    /** Whether {@code toString()} can be answered from the trace: getMessage can, and toString and getLocalizedMessage are Throwable's own. */
    static boolean answersToString(UserObjectVariable u) {
        if (!answersGetMessage(u) || !(message(u) instanceof ConstantVariable)) return false;
        try {
            return u.type().getMethod("toString").getDeclaringClass() == Throwable.class
                    && u.type().getMethod("getLocalizedMessage").getDeclaringClass() == Throwable.class;
        } catch (NoSuchMethodException e) {
            throw new AssertionError("every Throwable has toString() and getLocalizedMessage()", e);
        }
    }

    /** Throwable's toString: the class's name, then ": " and the message when there is one. */
    static VariableTracker text(UserObjectVariable u) {
        Object m = ((ConstantVariable) message(u)).value();
        return ConstantVariable.of(m != null ? u.type().getName() + ": " + m : u.type().getName());
    }

    /** {@code throw v}: the exception raised, or a graph break when the tracer cannot tell what is thrown. */
    static RuntimeException thrown(TraceContext ctx, VariableTracker v) {
        Class<?> type = TypeOf.runtimeClass(v);
        if (v instanceof UserObjectVariable u && type != null && Throwable.class.isAssignableFrom(type)) {
            return new Raised(u, type, ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "the traced path throws " + describe(u)));
        }
        return ctx.unsupported(GraphBreakType.EXCEPTION_THROWN, "the traced path throws " + v.describe()
                + ", which the tracer cannot model as an exception (it models objects of Throwable classes, made in the trace or passed in)");
    }

    /**
     * A real exception thrown while tracing (by a JDK call on constants, an op's meta function): the
     * same class and message as the program's own run would throw there.
     */
    static Raised raise(TraceContext ctx, Throwable real, GraphBreakType type, String reason) {
        UserObjectVariable u = UserObjectVariable.fresh(real.getClass());
        u.fields().put(MESSAGE, ConstantVariable.of(real.getMessage()));
        u.fields().put(MADE_AT, ConstantVariable.of(madeAt(ctx)));
        return new Raised(u, real.getClass(), ctx.unsupported(type, reason, real));
    }

    /**
     * An op's meta function rejected its arguments while tracing. The errors ops throw for arguments
     * they reject (IllegalArgumentException, IndexOutOfBoundsException) are what eager's call throws
     * there, so a handler may catch them; anything else may be the meta function's own failure, and
     * only eager can tell: a graph break.
     */
    static RuntimeException fromOp(TraceContext ctx, RuntimeException e, String reason) {
        if (e instanceof IllegalArgumentException || e instanceof IndexOutOfBoundsException) return raise(ctx, e, GraphBreakType.OP_FAILED_ON_FAKES, reason);
        return ctx.unsupported(GraphBreakType.OP_FAILED_ON_FAKES, reason, e);
    }

    private static String describe(UserObjectVariable u) {
        return u.type().getName() + (u.fields().get(MESSAGE) instanceof ConstantVariable c && c.value() != null ? ": " + c.value() : "");
    }
}
