package dev.ember.debug.bytecode;

import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.reflect.Array;
import java.util.function.Supplier;

/** The JVM's operator instructions on concrete values: arithmetic, shifts, bitwise logic, comparisons, negation, {@code arraylength}. */
final class Arithmetic {
    private Arithmetic() {}

    /** Pops the operands of {@code op} from {@code pop} (the right one first) and returns its result. */
    static Slot apply(Opcode op, Supplier<Slot> pop) {
        return switch (op) {
            case ARRAYLENGTH -> {
                Object array = pop.get().value();
                if (array == null) throw new NullPointerException("Cannot read the array length because the array is null");
                yield Slot.of(TypeKind.INT, Array.getLength(array));
            }
            case INEG -> Slot.of(TypeKind.INT, -(Integer) pop.get().value());
            case LNEG -> Slot.of(TypeKind.LONG, -(Long) pop.get().value());
            case FNEG -> Slot.of(TypeKind.FLOAT, -(Float) pop.get().value());
            case DNEG -> Slot.of(TypeKind.DOUBLE, -(Double) pop.get().value());
            case LSHL, LSHR, LUSHR -> {
                int b = (Integer) pop.get().value();
                long a = (Long) pop.get().value();
                yield Slot.of(TypeKind.LONG, op == Opcode.LSHL ? a << b : op == Opcode.LSHR ? a >> b : a >>> b);
            }
            default -> {
                Object b = pop.get().value(), a = pop.get().value();
                yield switch (a) {
                    case Integer x -> ints(op, x, (Integer) b);
                    case Long x -> longs(op, x, (Long) b);
                    case Float x -> reals(op, x, (Float) b, TypeKind.FLOAT);
                    case Double x -> reals(op, x, (Double) b, TypeKind.DOUBLE);
                    default -> throw new IllegalStateException(op + " on " + a);
                };
            }
        };
    }

    private static Slot ints(Opcode op, int a, int b) {
        return Slot.of(TypeKind.INT, switch (op) {
            case IADD -> a + b;
            case ISUB -> a - b;
            case IMUL -> a * b;
            case IDIV -> a / b;
            case IREM -> a % b;
            case ISHL -> a << b;
            case ISHR -> a >> b;
            case IUSHR -> a >>> b;
            case IAND -> a & b;
            case IOR -> a | b;
            case IXOR -> a ^ b;
            default -> throw new IllegalStateException(op + " on ints");
        });
    }

    private static Slot longs(Opcode op, long a, long b) {
        if (op == Opcode.LCMP) return Slot.of(TypeKind.INT, Long.compare(a, b));
        return Slot.of(TypeKind.LONG, switch (op) {
            case LADD -> a + b;
            case LSUB -> a - b;
            case LMUL -> a * b;
            case LDIV -> a / b;
            case LREM -> a % b;
            case LAND -> a & b;
            case LOR -> a | b;
            case LXOR -> a ^ b;
            default -> throw new IllegalStateException(op + " on longs");
        });
    }

    /**
     * Float and double operators, computed in double: a float's sum, difference, product, quotient and
     * remainder computed in double and rounded to float are exactly the float operation's.
     */
    private static Slot reals(Opcode op, double a, double b, TypeKind kind) {
        double r = switch (op) {
            case FCMPL, FCMPG, DCMPL, DCMPG -> compare(a, b, op == Opcode.FCMPG || op == Opcode.DCMPG);
            case FADD, DADD -> a + b;
            case FSUB, DSUB -> a - b;
            case FMUL, DMUL -> a * b;
            case FDIV, DDIV -> a / b;
            case FREM, DREM -> a % b;
            default -> throw new IllegalStateException(op + " on " + kind.name().toLowerCase() + "s");
        };
        return switch (op) {
            case FCMPL, FCMPG, DCMPL, DCMPG -> Slot.of(TypeKind.INT, (int) r);
            default -> kind == TypeKind.FLOAT ? Slot.of(kind, (float) r) : Slot.of(kind, r);
        };
    }

    /** {@code fcmpl}/{@code fcmpg}: -1, 0 or 1; a NaN gives 1 for the {@code g} form and -1 for the {@code l} form. */
    private static int compare(double a, double b, boolean nanIsGreater) {
        if (Double.isNaN(a) || Double.isNaN(b)) return nanIsGreater ? 1 : -1;
        return a > b ? 1 : a == b ? 0 : -1;
    }
}
