package dev.ember.dynamo;

import dev.ember.dynamo.variables.ConstantVariable;
import dev.ember.dynamo.variables.SymSizeVariable;
import dev.ember.dynamo.variables.VariableTracker;
import dev.ember.tensor.SymInt;

import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;

/**
 * Arithmetic on symbolic sizes while tracing: {@code +}, {@code -}, {@code *} and exact divisions
 * keep a size symbolic ({@code x.size(0) * 16 / 4} is {@code 4*s0}); anything else needs the
 * number, so the trace restarts with the sizes it depends on specialized.
 */
final class SymSizes {
    private SymSizes() {}

    static VariableTracker binary(TraceContext ctx, Opcode op, VariableTracker a, VariableTracker b) {
        SymInt x = exprOf(ctx, a, op), y = exprOf(ctx, b, op);
        Class<?> type = switch (op) {
            case IADD, ISUB, IMUL, IDIV, IREM -> int.class;
            case LADD, LSUB, LMUL, LDIV, LREM -> long.class;
            default -> throw specialize(ctx, a, b, "computing " + op.name().toLowerCase() + " with it");
        };
        Object hint = Arithmetic.binary(op, hintOf(a), hintOf(b));
        SymInt result = switch (op) {
            case IADD, LADD -> x.plus(y);
            case ISUB, LSUB -> x.minus(y);
            case IMUL, LMUL -> x.times(y);
            case IDIV, LDIV -> y.isConstant() && y.constant() != 0 ? x.exactDiv(y.constant()) : null;
            case IREM, LREM -> y.isConstant() && y.constant() != 0 && x.exactDiv(y.constant()) != null ? SymInt.of(0) : null;
            default -> null;
        };
        if (result == null) throw specialize(ctx, a, b, "dividing it by " + (y.isConstant() ? y.constant() + ", not exactly" : "a symbolic size"));
        if (result.eval(ctx.shapes.hints()) != ((Number) hint).longValue()) throw specialize(ctx, a, b, "arithmetic on it that overflows");
        return wrap(result, ((Number) hint).longValue(), type);
    }

    static VariableTracker negate(SymSizeVariable s) { return wrap(s.expr().times(-1), -s.hint(), s.javaType()); }

    static VariableTracker convert(TraceContext ctx, SymSizeVariable s, TypeKind to) {
        return switch (to) {
            case INT -> s.as(int.class);
            case LONG -> s.as(long.class);
            default -> throw specialize(ctx, s, null, "converting it to " + to.name().toLowerCase());
        };
    }

    /** The restart that makes the sizes behind {@code a} (and {@code b}) constants, because {@code use} needs their values. */
    static SpecializeAndRestart specialize(TraceContext ctx, VariableTracker a, VariableTracker b, String use) {
        java.util.TreeSet<Integer> ids = new java.util.TreeSet<>();
        for (VariableTracker v : new VariableTracker[] {a, b}) if (v instanceof SymSizeVariable s) for (int id : s.expr().symbols()) ids.add(id);
        String what = a instanceof SymSizeVariable s ? s.expr().render(id -> ctx.shapes.symbols().get(id).source().shortName()) : "a size";
        return new SpecializeAndRestart(ctx.shapes.sourcesOf(ids.stream().mapToInt(Integer::intValue).toArray()), what + ": " + use, ctx.currentLocation());
    }

    private static VariableTracker wrap(SymInt e, long hint, Class<?> type) {
        if (e.isConstant()) return ConstantVariable.of(type == long.class ? (Object) e.constant() : (Object) (int) e.constant());
        return new SymSizeVariable(e, hint, type);
    }

    private static SymInt exprOf(TraceContext ctx, VariableTracker v, Opcode op) {
        if (v instanceof SymSizeVariable s) return s.expr();
        if (v instanceof ConstantVariable c && (c.value() instanceof Integer || c.value() instanceof Long)) return SymInt.of(((Number) c.value()).longValue());
        throw specialize(ctx, v, null, "computing " + op.name().toLowerCase() + " with " + v.describe());
    }

    private static Object hintOf(VariableTracker v) { return v instanceof SymSizeVariable s ? s.hintValue() : ((ConstantVariable) v).value(); }
}
