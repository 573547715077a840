package dev.ember.jvm;

import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;

/**
 * JVM arithmetic, comparison and conversion instructions evaluated on boxed values, with the JVM's
 * exact semantics (int wraps, division truncates, {@code dcmpl}/{@code dcmpg} put a NaN on their own
 * side, {@code -0.0} equals {@code 0.0}): one definition for the tracer's constant folding, the
 * bytecode debugger's interpreter and the guards that re-evaluate a comparison.
 */
public final class JvmArithmetic {
    private JvmArithmetic() {}

    /** {@code a op b} for a binary operator instruction; shifts take an int count. */
    public static Object binary(Opcode op, Object a, Object b) {
        return switch (op) {
            case IADD -> i(a) + i(b);
            case ISUB -> i(a) - i(b);
            case IMUL -> i(a) * i(b);
            case IDIV -> i(a) / i(b);
            case IREM -> i(a) % i(b);
            case ISHL -> i(a) << i(b);
            case ISHR -> i(a) >> i(b);
            case IUSHR -> i(a) >>> i(b);
            case IAND -> i(a) & i(b);
            case IOR -> i(a) | i(b);
            case IXOR -> i(a) ^ i(b);
            case LADD -> l(a) + l(b);
            case LSUB -> l(a) - l(b);
            case LMUL -> l(a) * l(b);
            case LDIV -> l(a) / l(b);
            case LREM -> l(a) % l(b);
            case LSHL -> l(a) << i(b);
            case LSHR -> l(a) >> i(b);
            case LUSHR -> l(a) >>> i(b);
            case LAND -> l(a) & l(b);
            case LOR -> l(a) | l(b);
            case LXOR -> l(a) ^ l(b);
            case FADD -> f(a) + f(b);
            case FSUB -> f(a) - f(b);
            case FMUL -> f(a) * f(b);
            case FDIV -> f(a) / f(b);
            case FREM -> f(a) % f(b);
            case DADD -> d(a) + d(b);
            case DSUB -> d(a) - d(b);
            case DMUL -> d(a) * d(b);
            case DDIV -> d(a) / d(b);
            case DREM -> d(a) % d(b);
            case LCMP -> Long.compare(l(a), l(b));
            case FCMPL, FCMPG -> fcmp(f(a), f(b), op == Opcode.FCMPG);
            case DCMPL, DCMPG -> dcmp(d(a), d(b), op == Opcode.DCMPG);
            default -> throw new IllegalArgumentException("not a binary operator: " + op);
        };
    }

    /** {@code ineg}, {@code lneg}, {@code fneg}, {@code dneg}. */
    public static Object negate(Object a) {
        return switch (a) {
            case Integer x -> -x;
            case Long x -> -x;
            case Float x -> -x;
            case Double x -> -x;
            default -> throw new IllegalArgumentException("cannot negate " + a);
        };
    }

    /** The conversion instructions ({@code i2l} … {@code i2s}) to {@code to}. */
    public static Object convert(Object v, TypeKind to) {
        Number n = (Number) v;
        return switch (to) {
            case INT -> v instanceof Float f ? (int) (float) f : v instanceof Double d ? (int) (double) d : n.intValue();
            case LONG -> v instanceof Float f ? (long) (float) f : v instanceof Double d ? (long) (double) d : n.longValue();
            case FLOAT -> n instanceof Long l ? (float) (long) l : n.floatValue();
            case DOUBLE -> n instanceof Long l ? (double) (long) l : n.doubleValue();
            case BYTE -> (int) (byte) n.intValue();
            case CHAR -> (int) (char) n.intValue();
            case SHORT -> (int) (short) n.intValue();
            default -> throw new IllegalArgumentException("cannot convert to " + to);
        };
    }

    private static int fcmp(float a, float b, boolean nanIsOne) {
        if (Float.isNaN(a) || Float.isNaN(b)) return nanIsOne ? 1 : -1;
        return Float.compare(a, b) == 0 || a == b ? 0 : (a < b ? -1 : 1);
    }

    private static int dcmp(double a, double b, boolean nanIsOne) {
        if (Double.isNaN(a) || Double.isNaN(b)) return nanIsOne ? 1 : -1;
        return a == b ? 0 : (a < b ? -1 : 1);
    }

    private static int i(Object o) { return ((Number) o).intValue(); }

    private static long l(Object o) { return ((Number) o).longValue(); }

    private static float f(Object o) { return ((Number) o).floatValue(); }

    private static double d(Object o) { return ((Number) o).doubleValue(); }
}
