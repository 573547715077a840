package dev.ember.inductor.codegen;

import dev.ember.tensor.DType;

/** How each dtype appears in generated Java. */
final class JavaTypes {
    private JavaTypes() {}

    /** The type of one element in registers. */
    static String scalar(DType d) {
        return switch (d) {
            case FLOAT32 -> "float";
            case FLOAT64 -> "double";
            case INT32 -> "int";
            case INT64 -> "long";
            case BOOL -> "boolean";
        };
    }

    /** The array type of a buffer of this dtype (bools are stored as bytes). */
    static String array(DType d) { return (d == DType.BOOL ? "byte" : scalar(d)) + "[]"; }

    static String vector(DType d) { return d == DType.FLOAT32 ? "FloatVector" : "DoubleVector"; }

    static String species(DType d) { return d == DType.FLOAT32 ? "F" : "D"; }

    static String literal(Object v, DType d) {
        return switch (d) {
            case FLOAT32 -> {
                float f = ((Number) v).floatValue();
                yield Float.isNaN(f) ? "Float.NaN" : Float.isInfinite(f) ? (f > 0 ? "Float.POSITIVE_INFINITY" : "Float.NEGATIVE_INFINITY") : f + "f";
            }
            case FLOAT64 -> {
                double x = ((Number) v).doubleValue();
                yield Double.isNaN(x) ? "Double.NaN" : Double.isInfinite(x) ? (x > 0 ? "Double.POSITIVE_INFINITY" : "Double.NEGATIVE_INFINITY") : Double.toString(x);
            }
            case INT32 -> Integer.toString(((Number) v).intValue());
            case INT64 -> ((Number) v).longValue() + "L";
            case BOOL -> v.toString();
        };
    }
}
