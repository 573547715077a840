package dev.ember.inductor.codegen;

import java.lang.constant.MethodTypeDesc;
import java.util.List;

/**
 * An expression of generated code. It is typed the way bytecode is: every conversion is a node
 * ({@link Convert}, {@link Box}), even those Java source leaves implicit, so the bytecode writer
 * never infers a type and the source printer only has to decide what to leave out.
 */
sealed interface JExpr {
    JType type();

    /** The expressions {@code e} evaluates directly, in evaluation order (for walks over the code). */
    static List<JExpr> children(JExpr e) {
        return switch (e) {
            case Local l -> List.of();
            case Lit l -> List.of();
            case GetStatic g -> List.of();
            case ArrayLoad a -> List.of(a.array(), a.index());
            case Arith a -> List.of(a.a(), a.b());
            case Compare c -> List.of(c.a(), c.b());
            case Neg n -> List.of(n.x());
            case Not n -> List.of(n.x());
            case Cond c -> List.of(c.cond(), c.a(), c.b());
            case Convert c -> List.of(c.x());
            case Box b -> List.of(b.x());
            case Invoke i -> {
                List<JExpr> all = new java.util.ArrayList<>();
                if (i.receiver() != null) all.add(i.receiver());
                all.addAll(i.args());
                yield all;
            }
            case New n -> n.args();
            case NewArray n -> List.of(n.size());
            case ArrayOf a -> a.elements();
        };
    }

    /** A local variable or parameter, by name (names are unique where they are visible). */
    record Local(String name, JType type) implements JExpr {}

    /** A constant: Integer, Long, Float, Double, Boolean, String, or null (of a reference type). */
    record Lit(Object value, JType type) implements JExpr {}

    record ArrayLoad(JExpr array, JExpr index) implements JExpr {
        public JType type() { return array.type().component(); }
    }

    enum ArithOp {
        ADD("+"), SUB("-"), MUL("*"), DIV("/"), REM("%"), AND("&"), OR("|"), XOR("^");

        final String symbol;

        ArithOp(String symbol) { this.symbol = symbol; }
    }

    /** Arithmetic on two operands of the same primitive type. */
    record Arith(ArithOp op, JExpr a, JExpr b) implements JExpr {
        public JType type() { return a.type().desc().equals(JType.BYTE.desc()) ? JType.INT : a.type(); }
    }

    enum CmpOp {
        EQ("=="), NE("!="), LT("<"), LE("<="), GT(">"), GE(">=");

        final String symbol;

        CmpOp(String symbol) { this.symbol = symbol; }
    }

    /** A comparison of two operands of the same primitive type (IEEE: false when either is NaN, except NE). */
    record Compare(CmpOp op, JExpr a, JExpr b) implements JExpr {
        public JType type() { return JType.BOOLEAN; }
    }

    record Neg(JExpr x) implements JExpr {
        public JType type() { return x.type(); }
    }

    record Not(JExpr x) implements JExpr {
        public JType type() { return JType.BOOLEAN; }
    }

    /** {@code cond ? a : b}. */
    record Cond(JExpr cond, JExpr a, JExpr b) implements JExpr {
        public JType type() { return a.type(); }
    }

    /**
     * A primitive conversion or a reference cast to {@code type}. {@code implicit}: Java source
     * does not spell it (a widening the language applies by itself).
     */
    record Convert(JExpr x, JType type, boolean implicit) implements JExpr {}

    /** A primitive boxed to its wrapper ({@code Long.valueOf}); implicit in Java source. */
    record Box(JExpr x, JType type) implements JExpr {}

    enum CallKind { STATIC, VIRTUAL, INTERFACE }

    /**
     * A method call. {@code receiver} is null for static calls. {@code varargs}: the last argument
     * is an {@link ArrayOf} that Java source writes as separate arguments.
     */
    record Invoke(CallKind kind, JType owner, String name, MethodTypeDesc descriptor, JExpr receiver, List<JExpr> args,
                  boolean varargs) implements JExpr {
        public JType type() { return JType.of(descriptor.returnType()); }
    }

    /** A static field; {@code owner} null means the generated class itself. */
    record GetStatic(JType owner, String name, JType type) implements JExpr {}

    /** {@code new T(args)}. */
    record New(JType type, MethodTypeDesc constructor, List<JExpr> args) implements JExpr {}

    /** {@code new T[size]}. */
    record NewArray(JType type, JExpr size) implements JExpr {}

    /** {@code new T[] {elements}}. */
    record ArrayOf(JType type, List<JExpr> elements) implements JExpr {}
}
