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
 * char, short), long, float, double, the null type, or a reference of a known class.
 */
record JvmType(TypeKind kind, ClassDesc desc) {
    static final JvmType NULL = new JvmType(TypeKind.REFERENCE, null);

    /** The type of a stack-map entry; null for TOP (nothing live); throws for uninitialized objects. */
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
    public String toString() { return isNull() ? "null" : desc.displayName(); }
}
