package dev.ember.dynamo;

import dev.ember.dynamo.guards.EqualsMatch;
import dev.ember.dynamo.source.TextSource;
import dev.ember.dynamo.variables.StringBuilderVariable;
import dev.ember.dynamo.variables.VariableTracker;

import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;

/**
 * StringBuilder methods on a builder made in the trace or passed in ({@link StringBuilderVariable}). An
 * argument that is an object ({@code append(Object)}, {@code insert(int, CharSequence)}, …) is
 * turned into its text as string concatenation turns it ({@link Indy#text}: constants, sizes,
 * strings, lists of them, a user object's own toString; a tensor's values are a graph break); then
 * the method runs on the builder's real text, so results and exceptions are Java's. A builder that
 * escapes the graph is made again with its text, so building a message while computing tensors
 * stays one graph.
 */
final class StringBuilders {
    private StringBuilders() {}

    /** The methods traced; the rest (chars(), getChars, equals, …) break the graph with their name. */
    private static final Set<String> TRACED = Set.of("append", "insert", "toString", "length", "isEmpty", "charAt", "indexOf", "lastIndexOf",
            "substring", "subSequence", "reverse", "setLength", "setCharAt", "deleteCharAt", "delete", "replace", "repeat", "capacity",
            "ensureCapacity", "trimToSize", "compareTo", "codePointAt");

    /** {@code new StringBuilder()}, {@code (int capacity)}, {@code (String)} or {@code (CharSequence)}. */
    static VariableTracker construct(TraceContext ctx, StringBuilderVariable sb, MethodTypeDesc type, List<VariableTracker> args) {
        if (args.isEmpty()) return null;
        if (type.parameterType(0).isPrimitive()) {
            // the capacity: only its check matters (a negative one throws as Java's constructor does)
            Object capacity = JdkCalls.concrete(ctx, args.getFirst(), int.class, StringBuilder.class, "<init>");
            if ((Integer) capacity < 0) throw raise(ctx, new NegativeArraySizeException(capacity.toString()), "new StringBuilder(" + capacity + ")");
            return null;
        }
        if (args.getFirst() instanceof dev.ember.dynamo.variables.ConstantVariable c && c.value() == null) {
            throw raise(ctx, new NullPointerException(), "new StringBuilder(null)");
        }
        sb.text().append(Indy.text(ctx, args.getFirst(), ConstantDescs.CD_Object, "new StringBuilder() of"));
        return null;
    }

    /**
     * The builder's text, read by the trace: of the caller's builder it is guarded from now on (a
     * call whose builder holds another text recompiles), and the caller's builder gets its final text.
     */
    static String read(TraceContext ctx, StringBuilderVariable sb) {
        if (sb.source() != null && !sb.isRead()) {
            ctx.graph.addGuard(new EqualsMatch(new TextSource(sb.source()), sb.initial()));
            sb.markRead();
        }
        return sb.text().toString();
    }

    static VariableTracker method(TraceContext ctx, StringBuilderVariable sb, String name, MethodTypeDesc type, List<VariableTracker> args) {
        if (!TRACED.contains(name)) throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, sb.type().getSimpleName() + "." + name + "() on " + sb.describe());
        if (!name.equals("append")) read(ctx, sb);       // appending is the one method whose effect does not depend on the text
        String before = sb.source() == null ? null : sb.text().toString();
        Class<?>[] ptypes = new Class<?>[type.parameterCount()];
        Object[] jargs = new Object[ptypes.length];
        for (int i = 0; i < ptypes.length; i++) {
            ClassDesc p = type.parameterType(i);
            ptypes[i] = Values.resolve(p, StringBuilder.class);
            if (ptypes[i] == StringBuffer.class) ptypes[i] = StringBuilder.class;    // compareTo(StringBuffer): the text runs as a StringBuilder
            VariableTracker a = args.get(i);
            boolean object = !p.isPrimitive() && !p.isArray();
            if (object && a instanceof StringBuilderVariable other) {
                read(ctx, other);
                jargs[i] = other.text();                // append(CharSequence) of a builder copies its characters, itself included
            } else if (object && !(a instanceof dev.ember.dynamo.variables.ConstantVariable c && c.value() == null)) {
                // Object, CharSequence or String: its text, which the String-typed overload appends as the object's own would
                jargs[i] = Indy.text(ctx, a, ConstantDescs.CD_Object, "StringBuilder." + name + "() of");
            } else {
                jargs[i] = JdkCalls.concrete(ctx, a, ptypes[i], StringBuilder.class, name);
            }
        }
        Object result;
        Method m;
        try {
            m = StringBuilder.class.getMethod(name, ptypes);
            result = m.invoke(sb.text(), jargs);
        } catch (InvocationTargetException e) {
            throw Exceptions.raise(ctx, e.getCause(), GraphBreakType.EXCEPTION_THROWN, "the traced path throws " + e.getCause() + " from " + sb.type().getSimpleName() + "." + name);
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_CALL, "cannot evaluate " + sb.type().getSimpleName() + "." + name + type.descriptorString() + ": " + e, e);
        }
        if (before != null && !before.contentEquals(sb.text())) ctx.sideEffects.mutated(sb);
        if (result == sb.text()) return sb;             // append, insert, reverse, …: the builder itself, for chaining
        return m.getReturnType() == void.class ? null : Fields.constantOf(result instanceof CharSequence cs ? cs.toString() : result, m.getReturnType());
    }

    private static Raised raise(TraceContext ctx, RuntimeException e, String where) {
        return Exceptions.raise(ctx, e, GraphBreakType.EXCEPTION_THROWN, "the traced path throws " + e + " from " + where);
    }
}
