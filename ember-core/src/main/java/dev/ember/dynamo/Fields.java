package dev.ember.dynamo;

import dev.ember.dynamo.source.FieldSource;
import dev.ember.dynamo.source.StaticFieldSource;
import dev.ember.dynamo.variables.ArrayVariable;
import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.ModuleVariable;
import dev.ember.dynamo.variables.OpOverloadVariable;
import dev.ember.dynamo.variables.StreamVariable;
import dev.ember.dynamo.variables.TensorVariable;
import dev.ember.dynamo.variables.UserObjectVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;

import java.lang.classfile.instruction.FieldInstruction;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/** getfield/putfield/getstatic/putstatic on tracked values. */
final class Fields {
    private Fields() {}

    static void access(InstructionTranslator f, FieldInstruction ins) {
        TraceContext ctx = f.ctx;
        Class<?> owner = Values.resolve(ins.owner().asSymbol(), f.code.owner);
        String name = ins.name().stringValue();
        Class<?> type = Values.resolve(ins.typeSymbol(), f.code.owner);
        switch (ins.opcode()) {
            case GETSTATIC -> f.push(getStatic(ctx, owner, name, type));
            case PUTSTATIC -> {
                Field field = find(owner, name);
                if (Modifier.isFinal(field.getModifiers())) {
                    throw ctx.unsupported(GraphBreakType.SIDE_EFFECT, "assignment to the final static field " + owner.getSimpleName() + "." + name);
                }
                field.setAccessible(true);
                ctx.sideEffects.store(null, field, storable(ctx, f.pop(), name));
            }
            case GETFIELD -> f.push(getField(ctx, f.pop(), owner, name, type));
            case PUTFIELD -> {
                VariableTracker value = storable(ctx, f.pop(), name);
                VariableTracker target = f.pop();
                if (target instanceof UserObjectVariable u && u.isFresh()) {
                    u.fields().put(name, value);
                } else if ((target instanceof UserObjectVariable || target instanceof ModuleVariable) && target.source() != null
                        && replayable(find(owner, name))) {
                    Field field = find(owner, name);
                    field.setAccessible(true);
                    ctx.sideEffects.store(target.source(), field, value);
                } else {
                    throw ctx.unsupported(GraphBreakType.SIDE_EFFECT, "assignment to the field " + name + " of " + target.describe()
                            + (target.source() == null ? "" : " (" + target.source().name() + ")") + ", an object that exists outside the compiled function");
                }
            }
            default -> throw new IllegalStateException(ins.opcode().toString());
        }
    }

    /** Fields the compiled frame can assign after the graph: not final, not in a record or hidden class. */
    private static boolean replayable(Field f) {
        Class<?> c = f.getDeclaringClass();
        return !Modifier.isFinal(f.getModifiers()) && !c.isRecord() && !c.isHidden();
    }

    private static VariableTracker getStatic(TraceContext ctx, Class<?> owner, String name, Class<?> type) {
        if (owner == System.class && (name.equals("out") || name.equals("err"))) return new StreamVariable("System." + name);
        Field field = find(owner, name);
        VariableTracker assigned = ctx.sideEffects.pending(null, field);
        if (assigned != null) return assigned;
        Object value;
        try {
            Class.forName(owner.getName(), true, owner.getClassLoader());
            field.setAccessible(true);
            value = field.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "cannot read the static field " + owner.getName() + "." + name + ": " + e, e);
        }
        if (Modifier.isFinal(field.getModifiers()) && isImmutable(value, type)) {
            if (value instanceof OpOverload op) return new OpOverloadVariable(op);
            return ConstantVariable.of(type.isPrimitive() ? Values.toStack(value, type) : value);
        }
        return ctx.builder.wrap(value, new StaticFieldSource(field), type);
    }

    /** The field {@code owner.name} of {@code target}, read as getfield reads it in the trace (a record's component for its generated methods). */
    static VariableTracker read(TraceContext ctx, VariableTracker target, Class<?> owner, String name, Class<?> type) {
        return getField(ctx, target, owner, name, type);
    }

    private static VariableTracker getField(TraceContext ctx, VariableTracker target, Class<?> owner, String name, Class<?> type) {
        return switch (target) {
            case TensorVariable t -> tensorField(ctx, t, name);
            case UserObjectVariable u when u.isFresh() -> {
                VariableTracker v = u.fields().get(name);
                yield v != null ? v : zeroOf(type);
            }
            case UserObjectVariable u -> objectField(ctx, u.value(), u.source(), owner, name, type);
            case ModuleVariable m -> objectField(ctx, m.module(), m.source(), owner, name, type);
            case ConstantVariable c when c.value() != null -> {
                Object v = read(ctx, c.value(), owner, name);
                yield constantOf(v, type);
            }
            case OpOverloadVariable o -> constantOf(read(ctx, o.op(), owner, name), type);
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "reading the field " + name + " of " + target.describe());
        };
    }

    private static VariableTracker storable(TraceContext ctx, VariableTracker value, String field) {
        // a number from inputs is stored after the graph, read back from its output (SideEffect.SetField); one from tensor data is not
        if (value instanceof dev.ember.dynamo.variables.SymScalarVariable s && s.dataDependent()) {
            throw SymScalars.dataDependent(ctx, s, "storing it in the field " + field);
        }
        return value;
    }

    /** A field of an input object: the value assigned earlier in this trace, else the real value, wrapped with its source. */
    private static VariableTracker objectField(TraceContext ctx, Object obj, dev.ember.dynamo.source.Source src, Class<?> owner, String name, Class<?> type) {
        Field field = find(owner, name);
        VariableTracker assigned = ctx.sideEffects.pending(src, field);
        if (assigned != null) return assigned;
        return ctx.builder.wrap(read(ctx, obj, owner, name), new FieldSource(src, field), type);
    }

    /** Tensor's own fields (read by inlined Tensor methods): metadata comes from the fake tensor, which TENSOR_MATCH guards. */
    private static VariableTracker tensorField(TraceContext ctx, TensorVariable t, String name) {
        FakeTensor fake = t.fake();
        if (name.equals("shape") || name.equals("strides") || name.equals("offset")) {
            // the same answers as the methods of those names, symbolic where the sizes are
            return TensorMethods.invoke(ctx, t, name.equals("offset") ? "storageOffset" : name, null, List.of());
        }
        return switch (name) {
            case "dtype" -> ConstantVariable.of(fake.dtype());
            case "requiresGrad" -> ConstantVariable.of(fake.requiresGrad() ? 1 : 0);
            default -> throw ctx.unsupported(GraphBreakType.UNSUPPORTED_TENSOR_METHOD, "reading Tensor." + name + " (tensor storage is not available while tracing)");
        };
    }

    static ArrayVariable intArray(int[] values) {
        List<VariableTracker> items = new ArrayList<>(values.length);
        for (int v : values) items.add(ConstantVariable.of(v));
        return new ArrayVariable(int.class, items, null);
    }

    /** A value read from a constant object: arrays become tracked copies, everything else a constant. */
    static VariableTracker constantOf(Object v, Class<?> type) {
        if (v instanceof OpOverload op) return new OpOverloadVariable(op);
        if (v != null && v.getClass().isArray()) {
            int n = java.lang.reflect.Array.getLength(v);
            Class<?> comp = v.getClass().getComponentType();
            List<VariableTracker> items = new ArrayList<>(n);
            for (int i = 0; i < n; i++) items.add(constantOf(java.lang.reflect.Array.get(v, i), comp));
            return new ArrayVariable(comp, items, null);
        }
        return ConstantVariable.of(type.isPrimitive() ? Values.toStack(v, type) : v);
    }

    private static VariableTracker zeroOf(Class<?> type) {
        Object z = Values.zero(type);
        return z == null ? ConstantVariable.NULL : ConstantVariable.of(z);
    }

    private static boolean isImmutable(Object v, Class<?> type) {
        return type.isPrimitive() || v == null || v instanceof String || v instanceof Number || v instanceof Boolean
                || v instanceof Character || v instanceof Enum<?> || v instanceof DType || v instanceof OpOverload || v instanceof Class<?>;
    }

    private static Object read(TraceContext ctx, Object obj, Class<?> owner, String name) {
        try {
            Field field = find(owner, name);
            field.setAccessible(true);
            return field.get(obj);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw ctx.unsupported(GraphBreakType.UNSUPPORTED_OPERAND, "cannot read the field " + owner.getName() + "." + name + ": " + e, e);
        }
    }

    static Field find(Class<?> owner, String name) {
        for (Class<?> c = owner; c != null; c = c.getSuperclass()) {
            Field fd = DECLARED.get(c).get(name);
            if (fd != null) return fd;
        }
        throw new IllegalStateException("no field " + name + " in " + owner.getName());
    }

    /**
     * Each class's declared fields by name, looked up once: getDeclaredFields() copies every Field
     * on each call, and tracing reads a static field (an op constant) at every tensor method it
     * inlines; the copies were the largest single cost of tracing a 100-op function.
     */
    private static final ClassValue<java.util.Map<String, Field>> DECLARED = new ClassValue<>() {
        @Override
        protected java.util.Map<String, Field> computeValue(Class<?> c) {
            java.util.Map<String, Field> byName = new java.util.HashMap<>();
            for (Field fd : c.getDeclaredFields()) byName.put(fd.getName(), fd);
            return byName;
        }
    };
}
