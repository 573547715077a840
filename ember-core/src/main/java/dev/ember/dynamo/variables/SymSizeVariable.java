package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;
import dev.ember.tensor.SymInt;

/**
 * An int or long that is a size of a dynamic dimension, or arithmetic on such sizes:
 * {@code x.size(0) * 16} is {@code 16*s0}. It is no graph value: ops that take it as an argument
 * get the polynomial ({@code view(x, [16*s0, -1])}), and the trace computes with its value at the
 * hints where a meta function needs a number. Any use that needs the number itself (a branch, an
 * index, a JDK call) specializes its symbols instead.
 */
public record SymSizeVariable(SymInt expr, long hint, Class<?> javaType) implements VariableTracker {

    /** The value at the hints, as the operand stack holds it ({@code Integer} or {@code Long}). */
    public Object hintValue() { return javaType == long.class ? (Object) hint : (Object) (int) hint; }

    public SymSizeVariable as(Class<?> type) { return new SymSizeVariable(expr, type == long.class ? hint : (int) hint, type); }

    @Override
    public Source source() { return null; }

    @Override
    public boolean isWide() { return javaType == long.class; }

    @Override
    public String describe() { return "symbolic size " + javaType.getSimpleName() + " " + expr + " (" + hint + " in this trace)"; }
}
