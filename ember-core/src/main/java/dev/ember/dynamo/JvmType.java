package dev.ember.dynamo;

import java.lang.classfile.TypeKind;
import java.lang.classfile.attribute.StackMapFrameInfo;
import java.lang.classfile.attribute.StackMapFrameInfo.ObjectVerificationTypeInfo;
import java.lang.classfile.attribute.StackMapFrameInfo.SimpleVerificationTypeInfo;
import java.lang.classfile.attribute.StackMapFrameInfo.VerificationTypeInfo;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;

/**
 * The verifier's type of a live local or stack value at one instruction: int (also boolean, byte,
 * char, short), long, float, double, the null type, a reference of a known class, or an object
 * whose constructor has not run yet ({@code newSite} >= 0: the {@code new} instruction that made it,
 * by its position in the code it was read from).
 */
record JvmType(TypeKind kind, ClassDesc desc, int newSite) {
    static final JvmType NULL = new JvmType(TypeKind.REFERENCE, null);

    JvmType(TypeKind kind, ClassDesc desc) { this(kind, desc, -1); }

    /** An object of {@code type} made by the {@code new} at {@code site}, its constructor not run yet. */
    static JvmType pending(ClassDesc type, int site) { return new JvmType(TypeKind.REFERENCE, type, site); }

    /** The type of a stack-map entry; null for TOP (nothing live); throws for uninitialized objects ({@link #pending} reads those). */
    static JvmType of(VerificationTypeInfo v) {
        return switch (v) {
            case ObjectVerificationTypeInfo o -> new JvmType(TypeKind.REFERENCE, o.classSymbol());
            case SimpleVerificationTypeInfo s -> switch (s) {
                case TOP -> null;
                case INTEGER -> new JvmType(TypeKind.INT, ConstantDescs.CD_int);
                case LONG -> new JvmType(TypeKind.LONG, ConstantDescs.CD_long);
                case FLOAT -> new JvmType(TypeKind.FLOAT, ConstantDescs.CD_float);
                case DOUBLE -> new JvmType(TypeKind.DOUBLE, ConstantDescs.CD_double);
                case NULL -> NULL;
                case UNINITIALIZED_THIS -> throw new CannotResume("the object under construction (this) is live");
            };
            case StackMapFrameInfo.UninitializedVerificationTypeInfo u ->
                    throw new CannotResume("an object whose constructor has not run yet is on the operand stack");
        };
    }

    boolean isNull() { return desc == null; }

    /**
     * An object under construction ({@code new} ran, its constructor not yet): the JVM lets no method
     * take it as an argument, so it is never carried across a break; the code on the other side runs
     * its {@code new} again, and the constructor call that follows initializes that one.
     */
    boolean isPending() { return newSite >= 0; }

    boolean isWide() { return kind.slotSize() == 2; }

    /** The parameter type a resume method takes this value as (the null type travels as Object). */
    ClassDesc paramType() { return isNull() ? ConstantDescs.CD_Object : desc; }

    /** The box class for primitives, the class itself for references. */
    ClassDesc boxed() {
        return switch (kind) {
            case INT -> ConstantDescs.CD_Integer;
            case LONG -> ConstantDescs.CD_Long;
            case FLOAT -> ConstantDescs.CD_Float;
            case DOUBLE -> ConstantDescs.CD_Double;
            default -> paramType();
        };
    }

    @Override
    public String toString() { return isNull() ? "null" : isPending() ? "new " + desc.displayName() + "@" + newSite : desc.displayName(); }
}
