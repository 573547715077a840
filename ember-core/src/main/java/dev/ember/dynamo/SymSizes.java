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
        Object hint = dev.ember.jvm.JvmArithmetic.binary(op, hintOf(a), hintOf(b));
        SymInt result = switch (op) {
            case IADD, LADD -> x.plus(y);
            case ISUB, LSUB -> x.minus(y);
            case IMUL, LMUL -> x.times(y);
            case IDIV, LDIV -> y.isConstant() && y.constant() != 0 ? x.exactDiv(y.constant()) : null;
            case IREM, LREM -> y.isConstant() && y.constant() != 0 && x.exactDiv(y.constant()) != null ? SymInt.of(0) : null;
            default -> null;
        };
        if (result == null) {
            SpecializeAndRestart multiple = multipleOf(ctx, x, y, a);
            if (multiple != null) throw multiple;
            throw specialize(ctx, a, b, "dividing it by " + (y.isConstant() ? y.constant() + ", not exactly" : "a symbolic size"));
        }
        if (result.eval(ctx.shapes.hints()) != ((Number) hint).longValue()) throw specialize(ctx, a, b, "arithmetic on it that overflows");
        return wrap(result, ((Number) hint).longValue(), type);
    }

    /** A comparison a branch makes: {@code a REL b}. */
    enum Relation {
        EQ("=="), NE("!="), LT("<"), GE(">="), GT(">"), LE("<=");

        final String text;

        Relation(String text) { this.text = text; }

        boolean test(long x, long y) {
            return switch (this) {
                case EQ -> x == y;
                case NE -> x != y;
                case LT -> x < y;
                case GE -> x >= y;
                case GT -> x > y;
                case LE -> x <= y;
            };
        }

        Relation negated() {
            return switch (this) {
                case EQ -> NE;
                case NE -> EQ;
                case LT -> GE;
                case GE -> LT;
                case GT -> LE;
                case LE -> GT;
            };
        }
    }

    /**
     * A branch on a symbolic size: the outcome at this trace's sizes, kept valid by narrowing the
     * symbol's range ({@code x.size(0) > 4} makes {@code s0 >= 5}, which the guards check), as
     * PyTorch's value ranges do. A comparison the range already decides needs no guard. One that no
     * range can express (an equality with a size in range, two symbols, a product) specializes.
     */
    static boolean compare(TraceContext ctx, VariableTracker a, VariableTracker b, Relation rel) {
        SymInt x = exprOf(ctx, a, Opcode.IF_ICMPEQ), y = exprOf(ctx, b, Opcode.IF_ICMPEQ);
        SymInt d = x.minus(y);
        long[] hints = ctx.shapes.hints();
        boolean outcome = rel.test(d.eval(hints), 0);
        if (d.isConstant()) return outcome;
        int[] ids = d.symbols();
        String text = render(ctx, x) + " " + rel.text + " " + render(ctx, y);
        long c = d.constantTerm();
        long coeff = ids.length == 1 ? d.coefficient(ids[0]) : 0;
        if (ids.length != 1 || coeff == 0 || !d.equals(SymInt.symbol(ids[0]).times(coeff).plus(c))) {
            throw specialize(ctx, a, b, "comparing it (" + text + "), which no range of one size expresses");
        }
        ShapeEnv.Symbol sym = ctx.shapes.symbols().get(ids[0]);
        Relation holds = outcome ? rel : rel.negated();
        // coeff*s + c HOLDS 0, as bounds on s
        long lo = sym.min(), hi = sym.max();
        switch (holds) {
            case LT, LE, GT, GE -> {
                // normalized to K*s + C <= 0
                long kk = holds == Relation.LT || holds == Relation.LE ? coeff : -coeff;
                long cc = switch (holds) {
                    case LT -> c + 1;
                    case LE -> c;
                    case GT -> 1 - c;
                    default -> -c;
                };
                if (kk > 0) hi = Math.min(hi, Math.floorDiv(-cc, kk));     // s <= floor(-C / K)
                else lo = Math.max(lo, -Math.floorDiv(-cc, -kk));         // s >= ceil(C / -K)
            }
            case EQ, NE -> {
                boolean inRange = Math.floorMod(-c, coeff) == 0 && -c / coeff >= lo && -c / coeff <= hi;
                if (inRange) throw specialize(ctx, a, b, "comparing it for equality (" + text + ")");
                return outcome;   // the range already decides: no size in it is equal
            }
        }
        // the narrowed range must hold the trace's size and decide the comparison at both ends: else specialize, never guess
        long hint = sym.hint();
        boolean sound = lo <= hint && hint <= hi && holds.test(coeff * lo + c, 0) && (hi == Long.MAX_VALUE || holds.test(coeff * hi + c, 0));
        if (!sound) throw specialize(ctx, a, b, "comparing it (" + text + ")");
        if (lo == sym.min() && hi == sym.max()) return outcome;
        ctx.shapes.narrow(sym.id(), lo, hi, text + " is " + outcome, ctx.currentLocation());
        return outcome;
    }

    private static String render(TraceContext ctx, SymInt e) { return e.render(id -> ctx.shapes.symbols().get(id).source().shortName()); }

    /**
     * {@code k*s / c} where the trace's size divides by c: the trace restarts with the input size
     * behind {@code s} a multiple of what makes the division exact (PyTorch's divisibility guard,
     * {@code Eq(Mod(s0, 2), 0)}): its size becomes {@code m*s'}, the guard checks it divides by m.
     * Null when that is no single symbol's multiple, or the size at hand does not divide.
     */
    private static SpecializeAndRestart multipleOf(TraceContext ctx, SymInt x, SymInt y, VariableTracker a) {
        int[] ids = x.symbols();
        if (!y.isConstant() || y.constant() <= 1 || ids.length != 1) return null;
        long k = x.coefficient(ids[0]);
        if (!x.equals(SymInt.symbol(ids[0]).times(k))) return null;
        long c = y.constant(), need = c / java.math.BigInteger.valueOf(Math.abs(k)).gcd(java.math.BigInteger.valueOf(c)).longValue();
        ShapeEnv.Symbol sym = ctx.shapes.symbols().get(ids[0]);
        if (sym.hint() % need != 0) return null;
        String what = render(ctx, x);
        return new SpecializeAndRestart(ctx.shapes.sourcesOf(ids), what + " / " + c + ": the size is made a multiple of " + need * sym.divisor(),
                ctx.currentLocation(), need * sym.divisor());
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
