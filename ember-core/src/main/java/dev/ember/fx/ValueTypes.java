package dev.ember.fx;

import dev.ember.tensor.Tensor;

import java.util.List;
import java.util.stream.Collectors;

/** How printed graphs name the type of a node's value ({@code meta("val")}). */
final class ValueTypes {
    private ValueTypes() {}

    /** {@code f32[3, 4]} for a tensor, {@code [f32[2], f32[2]]} for a list, the Java type for a scalar; null when unknown. */
    static String describe(Object val) {
        return switch (val) {
            case null -> null;
            case Tensor t -> t.meta().describe();
            case List<?> l -> l.stream().map(x -> x == null ? "null" : describe(x)).collect(Collectors.joining(", ", "[", "]"));
            default -> javaType(val);
        };
    }

    /** The Java type of a value: {@code Tensor}, {@code List<Tensor>}, {@code long}, …; {@code Object} when unknown. */
    static String javaType(Object val) {
        return switch (val) {
            case null -> "Object";
            case Tensor t -> "Tensor";
            case List<?> l -> l.stream().allMatch(x -> x instanceof Tensor) ? "List<Tensor>" : "List<Object>";
            case Long x -> "long";
            case Integer x -> "int";
            case Double x -> "double";
            case Float x -> "float";
            case Boolean x -> "boolean";
            default -> val.getClass().getSimpleName();
        };
    }
}
