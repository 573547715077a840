package dev.ember.inductor.codegen;

import dev.ember.tensor.DType;

/** How each dtype appears in generated code: element, array and vector types, and literals. */
final class JavaTypes {
    private JavaTypes() {}

    /** The type of one element in registers. */
    static JType scalar(DType d) {
        return switch (d) {
            case FLOAT32 -> JType.FLOAT;
            case FLOAT64 -> JType.DOUBLE;
            case INT32 -> JType.INT;
            case INT64 -> JType.LONG;
            case BOOL -> JType.BOOLEAN;
        };
    }

    /** The array type of a buffer of this dtype (bools are stored as bytes). */
    static JType array(DType d) { return (d == DType.BOOL ? JType.BYTE : scalar(d)).array(); }

    static JType vector(DType d) { return d == DType.FLOAT32 ? VectorApi.FLOAT_VECTOR : VectorApi.DOUBLE_VECTOR; }

    /** {@code v} as a constant of dtype {@code d}. */
    static JExpr.Lit literal(Object v, DType d) {
        Number n = v instanceof Boolean b ? (b ? 1 : 0) : (Number) v;
        return switch (d) {
            case FLOAT32 -> new JExpr.Lit(n.floatValue(), JType.FLOAT);
            case FLOAT64 -> new JExpr.Lit(n.doubleValue(), JType.DOUBLE);
            case INT32 -> new JExpr.Lit(n.intValue(), JType.INT);
            case INT64 -> new JExpr.Lit(n.longValue(), JType.LONG);
            case BOOL -> new JExpr.Lit(v instanceof Boolean b ? b : n.doubleValue() != 0, JType.BOOLEAN);
        };
    }

    static JExpr.Lit intLit(long v) {
        if (v != (int) v) throw new IllegalStateException("index " + v + " does not fit in an int");
        return new JExpr.Lit((int) v, JType.INT);
    }

    /** {@code x} converted to {@code to}; Java source spells only narrowing conversions. */
    static JExpr convert(JExpr x, JType to) {
        if (x.type().desc().equals(to.desc())) return x;
        if (x instanceof JExpr.Lit l && l.value() instanceof Number n && to.isPrimitive()) {
            Object v = switch (to.desc().descriptorString()) {
                case "I" -> n.intValue();
                case "J" -> n.longValue();
                case "F" -> n.floatValue();
                case "D" -> n.doubleValue();
                default -> null;
            };
            if (v != null) return new JExpr.Lit(v, to);
        }
        return new JExpr.Convert(x, to, widens(x.type(), to));
    }

    private static boolean widens(JType from, JType to) {
        String order = "BIJFD";
        int f = order.indexOf(from.desc().descriptorString()), t = order.indexOf(to.desc().descriptorString());
        return f >= 0 && t >= 0 && f < t;
    }
}
