package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;

/**
 * An int or long a trace computed from int inputs that are not specialized (automatic dynamic
 * ints: {@code L['n'] % 2}), kept as the expression Java evaluated, so that a guard can evaluate it
 * again on a later call's inputs with Java's own semantics: int arithmetic wraps at 32 bits, long
 * at 64, division truncates, and a division by zero throws (the guard then fails). Each input
 * carries its value in the trace that built the expression (the hint).
 */
public sealed interface IntExpr {

    /** The value in the trace that built the expression. */
    long hint();

    /** The value on a call whose frame is {@code frame}; throws ArithmeticException where Java would. */
    long eval(Object[] frame);

    /** As Java source, the inputs named as the user wrote them ({@code n % 2}). */
    String render();

    /** Whether the expression computes in int (else long). */
    boolean isInt();

    /** An int or long input read from {@code source}. */
    record Input(Source source, long hint, boolean isInt) implements IntExpr {
        @Override
        public long eval(Object[] frame) {
            if (!(source.read(frame) instanceof Number n) || n instanceof Double || n instanceof Float) {
                throw new ArithmeticException(source.shortName() + " is no int");
            }
            return n.longValue();
        }

        @Override
        public String render() { return source.name(); }
    }

    /**
     * {@code dcmpl} / {@code dcmpg} of two double expressions of the inputs (or one and a constant),
     * in bytecode order: -1, 0 or 1, and for a NaN operand -1 ({@code dcmpl}) or 1 ({@code dcmpg}),
     * as the JVM computes it ({@link dev.ember.jvm.JvmArithmetic}). Only a branch reads it, so a
     * branch on a double is guarded by the comparison it made ({@code L['y'] > 0.0},
     * {@code L['s'] * 2.0 > 1.0}), as Dynamo guards a SymFloat's comparison.
     */
    record DoubleCompare(DoubleExpr left, DoubleExpr right, boolean nanIsOne, long hint) implements IntExpr {
        public static DoubleCompare of(DoubleExpr left, DoubleExpr right, boolean nanIsOne) {
            return new DoubleCompare(left, right, nanIsOne, compare(left.hint(), right.hint(), nanIsOne));
        }

        static long compare(double left, double right, boolean nanIsOne) {
            return (Integer) dev.ember.jvm.JvmArithmetic.binary(nanIsOne ? java.lang.classfile.Opcode.DCMPG : java.lang.classfile.Opcode.DCMPL, left, right);
        }

        @Override
        public long eval(Object[] frame) { return compare(left.eval(frame), right.eval(frame), nanIsOne); }

        @Override
        public String render() { return (nanIsOne ? "dcmpg(" : "dcmpl(") + left.render() + ", " + right.render() + ")"; }

        /** The branch's condition in the user's terms: {@code L['y'] > 0.0} for {@code dcmp(y, 0.0) > 0}, with what a NaN does. */
        public String condition(IntRelation.Relation relation, long against) {
            if (against != 0) return render() + " " + relation + " " + against;
            boolean nanPasses = relation.test(nanIsOne ? 1 : -1, 0);
            return left.render() + " " + relation + " " + right.render() + (nanPasses ? " or a NaN" : "");
        }

        /** The inputs the comparison reads with their values in {@code frame}, for a failure message: {@code L['s'] is 0.25}. */
        public String inputsIn(Object[] frame) {
            java.util.List<String> out = new java.util.ArrayList<>();
            for (Source s : left.inputs()) out.add(s.name() + " is " + s.read(frame));
            for (Source s : right.inputs()) if (!left.inputs().contains(s)) out.add(s.name() + " is " + s.read(frame));
            return String.join(", ", out);
        }

        @Override
        public boolean isInt() { return true; }
    }

    /** A constant. */
    record Constant(long value, boolean isInt) implements IntExpr {
        @Override
        public long hint() { return value; }

        @Override
        public long eval(Object[] frame) { return value; }

        @Override
        public String render() { return String.valueOf(value); }
    }

    /** The JVM's binary operators on ints or longs. */
    enum Op {
        ADD("+"), SUB("-"), MUL("*"), DIV("/"), REM("%"),
        /** {@code lcmp}: -1, 0 or 1 as {@code Long.compare}; only a branch reads it. */
        CMP("cmp"),
        /** {@code Math.max} and {@code Math.min}. */
        MAX("max"), MIN("min");

        final String text;

        Op(String text) { this.text = text; }

        long apply(long a, long b, boolean isInt) {
            if (this == CMP) return Long.compare(a, b);
            if (this == MAX) return Math.max(a, b);
            if (this == MIN) return Math.min(a, b);
            if (isInt) {
                int x = (int) a, y = (int) b;
                return switch (this) {
                    case ADD -> x + y;
                    case SUB -> x - y;
                    case MUL -> x * y;
                    case DIV -> x / y;
                    case REM -> x % y;
                    case CMP -> Integer.compare(x, y);
                    case MAX -> Math.max(x, y);
                    case MIN -> Math.min(x, y);
                };
            }
            return switch (this) {
                case ADD -> a + b;
                case SUB -> a - b;
                case MUL -> a * b;
                case DIV -> a / b;
                case REM -> a % b;
                case CMP -> Long.compare(a, b);
                case MAX -> Math.max(a, b);
                case MIN -> Math.min(a, b);
            };
        }
    }

    /** {@code left op right}, computed in int or long as the instruction was. */
    record Binary(Op op, IntExpr left, IntExpr right, boolean isInt, long hint) implements IntExpr {
        public static Binary of(Op op, IntExpr left, IntExpr right, boolean isInt) {
            return new Binary(op, left, right, isInt, op.apply(left.hint(), right.hint(), isInt));
        }

        @Override
        public long eval(Object[] frame) { return op.apply(left.eval(frame), right.eval(frame), isInt); }

        @Override
        public String render() {
            return switch (op) {
                case CMP -> "Long.compare(" + left.render() + ", " + right.render() + ")";
                case MAX, MIN -> "Math." + op.text + "(" + left.render() + ", " + right.render() + ")";
                default -> operand(left) + " " + op.text + " " + operand(right);
            };
        }

        private static String operand(IntExpr e) { return e instanceof Binary ? "(" + e.render() + ")" : e.render(); }
    }

    /** {@code -e}. */
    record Negate(IntExpr e, boolean isInt) implements IntExpr {
        @Override
        public long hint() { return isInt ? -(int) e.hint() : -e.hint(); }

        @Override
        public long eval(Object[] frame) { return isInt ? -(int) e.eval(frame) : -e.eval(frame); }

        @Override
        public String render() { return "-" + (e instanceof Binary ? "(" + e.render() + ")" : e.render()); }
    }

    /** {@code Math.abs(e)}: Java's, so the least int is its own absolute value. */
    record Abs(IntExpr e, boolean isInt) implements IntExpr {
        @Override
        public long hint() { return isInt ? Math.abs((int) e.hint()) : Math.abs(e.hint()); }

        @Override
        public long eval(Object[] frame) { return isInt ? Math.abs((int) e.eval(frame)) : Math.abs(e.eval(frame)); }

        @Override
        public String render() { return "Math.abs(" + e.render() + ")"; }
    }

    /** {@code (int) e} of a long, or {@code (long) e} of an int: Java's l2i keeps the low 32 bits. */
    record Convert(IntExpr e, boolean isInt) implements IntExpr {
        @Override
        public long hint() { return isInt ? (int) e.hint() : e.hint(); }

        @Override
        public long eval(Object[] frame) { return isInt ? (int) e.eval(frame) : e.eval(frame); }

        @Override
        public String render() { return isInt ? "(int) " + paren(e) : e.render(); }

        private static String paren(IntExpr e) { return e instanceof Binary ? "(" + e.render() + ")" : e.render(); }
    }
}
