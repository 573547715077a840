package dev.ember.inductor.codegen;

import java.util.List;

/**
 * A generated class: static fields with their initial values, static methods. The source printer
 * and the bytecode writer both take this, so what {@code output_code} shows is what runs.
 */
record JClass(String packageName, String simpleName, String doc, List<Field> fields, List<Method> methods) {

    /** {@code private static final type name = init;}. */
    record Field(String name, JType type, JExpr init) {}

    /** A static method; {@code doc} (may be null) is its javadoc line. */
    record Method(String doc, boolean isPublic, JType returnType, String name, List<JExpr.Local> params, List<JStmt> body) {}

    String qualifiedName() { return packageName + "." + simpleName; }
}
