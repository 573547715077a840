package dev.ember.inductor.codegen;

import java.lang.classfile.TypeKind;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;

/**
 * A type in generated code: its descriptor (for bytecode) and how Java source spells it (simple
 * names for imported classes, {@code java.util.List<Tensor>} with its type argument for reading).
 */
record JType(ClassDesc desc, String source) {
    static final JType VOID = new JType(ConstantDescs.CD_void, "void");
    static final JType BOOLEAN = new JType(ConstantDescs.CD_boolean, "boolean");
    static final JType BYTE = new JType(ConstantDescs.CD_byte, "byte");
    static final JType INT = new JType(ConstantDescs.CD_int, "int");
    static final JType LONG = new JType(ConstantDescs.CD_long, "long");
    static final JType FLOAT = new JType(ConstantDescs.CD_float, "float");
    static final JType DOUBLE = new JType(ConstantDescs.CD_double, "double");
    static final JType OBJECT = new JType(ConstantDescs.CD_Object, "Object");
    static final JType STRING = new JType(ConstantDescs.CD_String, "String");

    /** A class spelled by its simple name (the generated file imports it). */
    static JType imported(String qualifiedName) {
        return new JType(ClassDesc.of(qualifiedName), qualifiedName.substring(qualifiedName.lastIndexOf('.') + 1).replace('$', '.'));
    }

    /** The type a descriptor names, spelled by its simple name. */
    static JType of(ClassDesc desc) { return new JType(desc, desc.displayName()); }

    JType array() { return new JType(desc.arrayType(), source + "[]"); }

    JType component() {
        if (!desc.isArray()) throw new IllegalStateException(source + " is not an array");
        return new JType(desc.componentType(), source.substring(0, source.length() - 2));
    }

    boolean isPrimitive() { return desc.isPrimitive(); }

    /** The kind the JVM computes in: booleans and bytes are ints on the operand stack. */
    TypeKind kind() { return TypeKind.from(desc).asLoadable(); }
}
