package dev.ember.dynamo;

import dev.ember.dynamo.guards.IntRelation;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.UserObjectVariable;
import dev.ember.dynamo.variables.VariableTracker;

import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.DirectMethodHandleDesc;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * A record's equals, hashCode and toString, which javac compiles to one invokedynamic whose
 * bootstrap is {@code java.lang.runtime.ObjectMethods.bootstrap}: computed over the traced
 * components as the JDK's method handles compute them, so records compare, hash and print inside a
 * graph as a Python dataclass's generated {@code __eq__}/{@code __hash__}/{@code __repr__} trace in
 * Dynamo. The bootstrap's arguments are the record class, the component names joined by ';' and
 * one getter per component.
 *
 * <ul>
 *   <li>equals: the other is a non-null instance of the record class and every component is equal:
 *       primitives by value ({@code Float.compare}/{@code Double.compare == 0} for floats, as the
 *       JDK's), references by {@code Objects.equals} (a nested record's equals traced the same way).
 *   <li>hashCode: {@code h = 31 * h + hash(component)}, from 0, each primitive hashed by its box's
 *       {@code hashCode}, each reference by {@code Objects.hashCode}.
 *   <li>toString: {@code Name[a=…, b=…]}, each component as {@code String.valueOf} prints it.
 * </ul>
 * A component whose equality or hash the trace does not know (a tensor's identity hash, a tensor's
 * values in toString) breaks the graph naming it.
 */
final class RecordMethods {
    private RecordMethods() {}

    private static final java.util.Map<Class<?>, Boolean> GENERATED = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /** Whether the record class's equals and hashCode are javac's (an ObjectMethods invokedynamic each), not the user's own. */
    static boolean generatesEquality(Class<?> recordClass) {
        return GENERATED.computeIfAbsent(recordClass, c -> {
            try {
                var model = ClassFiles.model(c);
                int generated = 0;
                for (var m : model.methods()) {
                    String name = m.methodName().stringValue();
                    if (!(name.equals("equals") && m.methodType().equalsString("(Ljava/lang/Object;)Z") || name.equals("hashCode") && m.methodType().equalsString("()I"))) continue;
                    var code = m.code();
                    if (code.isEmpty()) return false;
                    boolean indy = false;
                    for (var e : code.get()) {
                        if (e instanceof InvokeDynamicInstruction i && i.bootstrapMethod().owner().displayName().equals("ObjectMethods")) indy = true;
                    }
                    if (!indy) return false;
                    generated++;
                }
                return generated == 2;
            } catch (RuntimeException e) {
                return false;
            }
        });
    }

    static VariableTracker invoke(InstructionTranslator f, InvokeDynamicInstruction ins, List<VariableTracker> args) {
        TraceContext ctx = f.ctx;
        List<ConstantDesc> bsmArgs = ins.bootstrapArgs();
        Class<?> recordClass = Values.resolve((ClassDesc) bsmArgs.get(0), f.code.owner);
        String joined = (String) bsmArgs.get(1);
        String[] names = joined.isEmpty() ? new String[0] : joined.split(";");
        List<DirectMethodHandleDesc> getters = new ArrayList<>();
        for (ConstantDesc d : bsmArgs.subList(2, bsmArgs.size())) getters.add((DirectMethodHandleDesc) d);
        String method = ins.name().stringValue();
        VariableTracker self = args.getFirst();
        return switch (method) {
            case "equals" -> ConstantVariable.of(equals(ctx, f, recordClass, getters, self, args.get(1)) ? 1 : 0);
            case "hashCode" -> ConstantVariable.of(hashCode(ctx, f, recordClass, getters, self));
            case "toString" -> ConstantVariable.of(toString(ctx, f, recordClass, names, getters, self));
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_INVOKEDYNAMIC, "ObjectMethods.bootstrap for the method " + method);
        };
    }

    private static Class<?> typeOf(InstructionTranslator f, DirectMethodHandleDesc getter) {
        return Values.resolve(getter.invocationType().returnType(), f.code.owner);
    }

    private static VariableTracker component(TraceContext ctx, InstructionTranslator f, Class<?> recordClass, DirectMethodHandleDesc getter, VariableTracker of) {
        return Fields.read(ctx, of, recordClass, getter.methodName(), typeOf(f, getter));
    }

    private static boolean equals(TraceContext ctx, InstructionTranslator f, Class<?> recordClass, List<DirectMethodHandleDesc> getters,
                                  VariableTracker self, VariableTracker other) {
        Boolean instance = TypeOf.isInstance(other, recordClass);
        if (instance == null) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, recordClass.getSimpleName() + ".equals(" + other.describe() + "): whether it is a "
                    + recordClass.getSimpleName() + " is not known while tracing");
        }
        if (!instance) return false;
        if (self == other) return true;
        for (DirectMethodHandleDesc getter : getters) {
            Class<?> type = typeOf(f, getter);
            VariableTracker a = component(ctx, f, recordClass, getter, self), b = component(ctx, f, recordClass, getter, other);
            if (!componentEquals(ctx, recordClass, getter.methodName(), type, a, b)) return false;
        }
        return true;
    }

    private static boolean componentEquals(TraceContext ctx, Class<?> recordClass, String name, Class<?> type, VariableTracker a, VariableTracker b) {
        if (a == b) return true;
        if (type.isPrimitive()) {
            if (a instanceof ConstantVariable x && b instanceof ConstantVariable y) return java.util.Objects.equals(x.value(), y.value());
            Boolean same = SymScalars.compare(ctx, a, b, IntRelation.Relation.EQ);
            if (same != null) return same;
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, recordClass.getSimpleName() + ".equals comparing the component " + name + ": "
                    + a.describe() + " and " + b.describe() + " are not known while tracing");
        }
        if (a instanceof UserObjectVariable u && !dev.ember.dynamo.variables.IdentityKey.hasIdentityEquals(u)) {
            VariableTracker r = Invoker.invokeVirtual(ctx, Object.class, "equals", MethodTypeDesc.of(ConstantDescs.CD_boolean, ConstantDescs.CD_Object), a, List.of(b));
            if (r instanceof ConstantVariable c && c.value() instanceof Integer i) return i != 0;
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, recordClass.getSimpleName() + ".equals comparing the component " + name + ": "
                    + u.describe() + ".equals gave " + r.describe());
        }
        return Containers.equal(ctx, a, b);
    }

    /**
     * The hash code javac's {@code hashCode} gives a {@code recordClass} whose components are these
     * map keys ({@link KeyedContainers#key}: values, or keys by value of nested records), by the
     * formula above; null when a component's hash is an identity hash the trace does not know (a
     * tensor, an object). Enum constants are the real ones, whose hash codes are this JVM's.
     */
    static Integer hashCodeOf(Class<?> recordClass, List<Object> componentKeys) {
        var rc = recordClass.getRecordComponents();
        int h = 0;
        for (int i = 0; i < rc.length; i++) {
            Object k = componentKeys.get(i);
            int hash;
            if (k instanceof dev.ember.dynamo.variables.IdentityKey ik) {
                if (!ik.hashKnown()) return null;
                hash = ik.hashCode();
            } else {
                Object value = rc[i].getType().isPrimitive() ? Values.fromStack(k, rc[i].getType()) : k;
                hash = java.util.Objects.hashCode(value);
            }
            h = 31 * h + hash;
        }
        return h;
    }

    private static int hashCode(TraceContext ctx, InstructionTranslator f, Class<?> recordClass, List<DirectMethodHandleDesc> getters, VariableTracker self) {
        int h = 0;
        for (DirectMethodHandleDesc getter : getters) {
            VariableTracker v = component(ctx, f, recordClass, getter, self);
            h = 31 * h + hashOf(ctx, recordClass, getter.methodName(), typeOf(f, getter), v);
        }
        return h;
    }

    private static int hashOf(TraceContext ctx, Class<?> recordClass, String name, Class<?> type, VariableTracker v) {
        if (v instanceof ConstantVariable c) {
            Object value = type.isPrimitive() ? Values.fromStack(c.value(), type) : c.value();
            if (value == null) return 0;
            if (type.isPrimitive() || JdkCalls.isJdk(value.getClass()) || value instanceof Enum<?>) return value.hashCode();
        }
        // a nested record or object with its own hashCode, a list, a map or set: their hashCode, traced
        if (v instanceof UserObjectVariable u && !dev.ember.dynamo.variables.IdentityKey.hasIdentityEquals(u)
                || v instanceof dev.ember.dynamo.variables.ListVariable || v instanceof dev.ember.dynamo.variables.KeyedVariable) {
            VariableTracker r = Invoker.invokeVirtual(ctx, Object.class, "hashCode", MethodTypeDesc.of(ConstantDescs.CD_int), v, List.of());
            if (r instanceof ConstantVariable c && c.value() instanceof Integer i) return i;
        }
        throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, recordClass.getSimpleName() + ".hashCode() hashing the component " + name + ", "
                + v.describe() + ", whose hash code the trace does not know");
    }

    private static String toString(TraceContext ctx, InstructionTranslator f, Class<?> recordClass, String[] names, List<DirectMethodHandleDesc> getters,
                                   VariableTracker self) {
        StringJoiner out = new StringJoiner(", ", recordClass.getSimpleName() + "[", "]");
        for (int i = 0; i < getters.size(); i++) {
            DirectMethodHandleDesc getter = getters.get(i);
            VariableTracker v = component(ctx, f, recordClass, getter, self);
            out.add(names[i] + "=" + Indy.text(ctx, v, getter.invocationType().returnType(), recordClass.getSimpleName() + ".toString() printing the component " + names[i] + ","));
        }
        return out.toString();
    }
}
