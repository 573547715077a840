package dev.ember.debug.bytecode;

import dev.ember.jvm.JvmArithmetic;

import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.reflect.Array;
import java.util.function.Supplier;

/** The JVM's operator instructions on concrete values: arithmetic, shifts, bitwise logic, comparisons, negation, {@code arraylength}. */
final class Arithmetic {
    private Arithmetic() {}

    /** Pops the operands of {@code op} from {@code pop} (the right one first) and returns its result. */
    static Slot apply(Opcode op, Supplier<Slot> pop) {
        if (op == Opcode.ARRAYLENGTH) {
            Object array = pop.get().value();
            if (array == null) throw new NullPointerException("Cannot read the array length because the array is null");
            return Slot.of(TypeKind.INT, Array.getLength(array));
        }
        return switch (op) {
            case INEG, LNEG, FNEG, DNEG -> slot(JvmArithmetic.negate(pop.get().value()));
            default -> {
                Object b = pop.get().value(), a = pop.get().value();
                yield slot(JvmArithmetic.binary(op, a, b));
            }
        };
    }

    /** A result in the slot of its type (comparisons give an int). */
    private static Slot slot(Object value) {
        return switch (value) {
            case Integer i -> Slot.of(TypeKind.INT, i);
            case Long l -> Slot.of(TypeKind.LONG, l);
            case Float f -> Slot.of(TypeKind.FLOAT, f);
            case Double d -> Slot.of(TypeKind.DOUBLE, d);
            default -> throw new IllegalStateException("no JVM operator gives " + value);
        };
    }
}
