package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;
import dev.ember.jvm.JvmArithmetic;

import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.util.List;

/**
 * A double a trace computed from double (or automatic dynamic int) inputs that are not specialized
 * ({@code s * 2}, {@code a + b}, {@code Math.abs(s)}), kept as the expression Java evaluated so a
 * guard can evaluate it again on a later call's inputs with the JVM's semantics
 * ({@link JvmArithmetic}: IEEE 754 double arithmetic, a NaN propagating, {@code -0.0} kept), as
 * Dynamo keeps a SymFloat's expression and guards what the trace decided on it. Each input carries
 * its value in the trace that built the expression (the hint).
 */
public sealed interface DoubleExpr {

    /** The value in the trace that built the expression. */
    double hint();

    /** The value on a call whose frame is {@code frame}; throws ArithmeticException when an input is no number. */
    double eval(Object[] frame);

    /** As Java source, the inputs named as the user wrote them ({@code s * 2.0}). */
    String render();

    /** The frame inputs the expression reads, each once, in the order it reads them. */
    default List<Source> inputs() {
        java.util.LinkedHashSet<Source> out = new java.util.LinkedHashSet<>();
        collect(this, out);
        return List.copyOf(out);
    }

    private static void collect(DoubleExpr e, java.util.Set<Source> out) {
        switch (e) {
            case Input in -> out.add(in.source());
            case Constant c -> { }
            case Binary b -> {
                collect(b.left(), out);
                collect(b.right(), out);
            }
            case Unary u -> collect(u.e(), out);
            case FromInt f -> addIntInputs(f.e(), out);
        }
    }

    private static void addIntInputs(IntExpr e, java.util.Set<Source> out) {
        switch (e) {
            case IntExpr.Input in -> out.add(in.source());
            case IntExpr.Binary b -> {
                addIntInputs(b.left(), out);
                addIntInputs(b.right(), out);
            }
            case IntExpr.Negate n -> addIntInputs(n.e(), out);
            case IntExpr.Abs a -> addIntInputs(a.e(), out);
            case IntExpr.Convert c -> addIntInputs(c.e(), out);
            case IntExpr.DoubleCompare d -> {
                out.addAll(d.left().inputs());
                out.addAll(d.right().inputs());
            }
            case IntExpr.Constant c -> { }
        }
    }

    /** A double input read from {@code source}. */
    record Input(Source source, double hint) implements DoubleExpr {
        @Override
        public double eval(Object[] frame) {
            if (!(source.read(frame) instanceof Number n)) throw new ArithmeticException(source.shortName() + " is no number");
            return n.doubleValue();
        }

        @Override
        public String render() { return source.name(); }
    }

    /** A double constant. */
    record Constant(double value) implements DoubleExpr {
        @Override
        public double hint() { return value; }

        @Override
        public double eval(Object[] frame) { return value; }

        @Override
        public String render() { return String.valueOf(value); }
    }

    /** {@code dadd}, {@code dsub}, {@code dmul}, {@code ddiv}, {@code drem} of two expressions. */
    record Binary(Opcode op, DoubleExpr left, DoubleExpr right, double hint) implements DoubleExpr {
        public Binary {
            if (op != Opcode.DADD && op != Opcode.DSUB && op != Opcode.DMUL && op != Opcode.DDIV && op != Opcode.DREM) {
                throw new IllegalArgumentException("not a double arithmetic instruction: " + op);
            }
        }

        public static Binary of(Opcode op, DoubleExpr left, DoubleExpr right) {
            return new Binary(op, left, right, apply(op, left.hint(), right.hint()));
        }

        private static double apply(Opcode op, double a, double b) { return (Double) JvmArithmetic.binary(op, a, b); }

        @Override
        public double eval(Object[] frame) { return apply(op, left.eval(frame), right.eval(frame)); }

        @Override
        public String render() {
            String symbol = switch (op) {
                case DADD -> "+";
                case DSUB -> "-";
                case DMUL -> "*";
                case DDIV -> "/";
                default -> "%";
            };
            return operand(left) + " " + symbol + " " + operand(right);
        }
    }

    /** The one-argument functions a trace keeps as an expression: negation and {@code Math}'s abs, sqrt and exp (Java's, as eager calls them). */
    enum Function {
        NEG, ABS, SQRT, EXP;

        double apply(double x) {
            return switch (this) {
                case NEG -> (Double) JvmArithmetic.negate(x);
                case ABS -> Math.abs(x);
                case SQRT -> Math.sqrt(x);
                case EXP -> Math.exp(x);
            };
        }
    }

    /** {@code f(e)}. */
    record Unary(Function f, DoubleExpr e, double hint) implements DoubleExpr {
        public static Unary of(Function f, DoubleExpr e) { return new Unary(f, e, f.apply(e.hint())); }

        @Override
        public double eval(Object[] frame) { return f.apply(e.eval(frame)); }

        @Override
        public String render() {
            return f == Function.NEG ? "-" + operand(e) : "Math." + f.name().toLowerCase() + "(" + e.render() + ")";
        }
    }

    /** {@code (double) e} of an int or long expression ({@code i2d}, {@code l2d}). */
    record FromInt(IntExpr e, double hint) implements DoubleExpr {
        public static FromInt of(IntExpr e) { return new FromInt(e, convert(e, e.hint())); }

        private static double convert(IntExpr e, long v) {
            return (Double) JvmArithmetic.convert(e.isInt() ? (Object) (int) v : (Object) v, TypeKind.DOUBLE);
        }

        @Override
        public double eval(Object[] frame) { return convert(e, e.eval(frame)); }

        @Override
        public String render() { return "(double) " + (e instanceof IntExpr.Binary ? "(" + e.render() + ")" : e.render()); }
    }

    private static String operand(DoubleExpr e) { return e instanceof Binary ? "(" + e.render() + ")" : e.render(); }
}
