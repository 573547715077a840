package dev.ember.fx;

import dev.ember.tensor.DType;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Constants written as Java source that evaluates to exactly the same value. */
final class JavaLiterals {
    private JavaLiterals() {}

    /**
     * {@code value} as a Java expression; nodes are named by {@code nodeName}, lists become
     * {@code list(...)} calls (a helper of the generated class that allows nulls).
     */
    static String of(Object value, Function<Node, String> nodeName) {
        return switch (value) {
            case null -> "null";
            case Node n -> nodeName.apply(n);
            case List<?> l -> l.stream().map(x -> of(x, nodeName)).collect(Collectors.joining(", ", "list(", ")"));
            case Long v -> v + "L";
            case Integer v -> v.toString();
            case Double v -> doubleLiteral(v);
            case Float v -> floatLiteral(v);
            case Boolean v -> v.toString();
            case String s -> string(s);
            case DType d -> "DType." + d.name();
            case int[] a -> Arrays.stream(a).mapToObj(Integer::toString).collect(Collectors.joining(", ", "new int[] {", "}"));
            case long[] a -> Arrays.stream(a).mapToObj(x -> x + "L").collect(Collectors.joining(", ", "new long[] {", "}"));
            case double[] a -> Arrays.stream(a).mapToObj(JavaLiterals::doubleLiteral).collect(Collectors.joining(", ", "new double[] {", "}"));
            default -> throw new IllegalArgumentException("cannot write a " + value.getClass().getName() + " (" + value
                    + ") as Java source; graphs given to JavaSourceGen may hold only nodes, numbers, booleans, strings, dtypes, int/long/double arrays and lists of these");
        };
    }

    static String doubleLiteral(double v) {
        if (Double.isNaN(v)) return "Double.NaN";
        if (Double.isInfinite(v)) return v > 0 ? "Double.POSITIVE_INFINITY" : "Double.NEGATIVE_INFINITY";
        return Double.toString(v);
    }

    static String floatLiteral(float v) {
        if (Float.isNaN(v)) return "Float.NaN";
        if (Float.isInfinite(v)) return v > 0 ? "Float.POSITIVE_INFINITY" : "Float.NEGATIVE_INFINITY";
        return Float.toString(v) + "f";
    }

    static String string(String s) { return dev.ember.jvm.StringLiterals.quote(s); }
}
