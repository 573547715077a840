package dev.ember.fx;

import dev.ember.tensor.Tensor;

import java.util.List;
import java.util.stream.Collectors;

/** How printed graphs name the type of a node's value ({@code meta("val")}). */
final class ValueTypes {
    private ValueTypes() {}

    /** {@code f32[3, 4]} for a tensor, {@code [f32[2], f32[2]]} for a list, the Java type for a scalar; null when unknown. */
    /** A node's value as {@link #describe(Object)} gives it, with symbolic sizes where the graph has them: {@code f32[s0, 512]}. */
    static String describe(Node n) { return describe(n.val(), n.symVal()); }

    private static String describe(Object val, Object sym) {
        if (sym instanceof dev.ember.tensor.SymShape s && val instanceof Tensor t) return s.describe(t.dtype());
        if (sym instanceof List<?> syms && val instanceof List<?> vals && syms.size() == vals.size()) {
            StringBuilder sb = new StringBuilder("[");
            for (int i = 0; i < vals.size(); i++) sb.append(i == 0 ? "" : ", ").append(vals.get(i) == null ? "null" : describe(vals.get(i), syms.get(i)));
            return sb.append("]").toString();
        }
        return describe(val);
    }

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
