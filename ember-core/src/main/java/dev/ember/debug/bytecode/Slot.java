package dev.ember.debug.bytecode;

import java.lang.classfile.TypeKind;

/**
 * One slot of the interpreter's operand stack or locals: a value and its JVM computational type
 * (int, long, float, double or reference; boolean, byte, char and short travel as int). A long or
 * double takes two slots, the second {@link #TOP}, as in the JVM, so {@code dup2} and {@code pop2}
 * work on slots alone; the type is kept so that values print typed ({@code int 3}, not a bare
 * {@code 3} that could be an {@code Integer}).
 */
record Slot(TypeKind kind, Object value) {
    /** The second slot of a long or double. */
    static final Slot TOP = new Slot(TypeKind.VOID, null);

    static Slot of(TypeKind kind, Object value) { return new Slot(kind.asLoadable(), value); }

    static Slot ref(Object value) { return new Slot(TypeKind.REFERENCE, value); }

    boolean isWide() { return kind.slotSize() == 2; }

    @Override
    public String toString() { return this == TOP ? "(second half)" : ValueText.typed(kind, value); }
}
