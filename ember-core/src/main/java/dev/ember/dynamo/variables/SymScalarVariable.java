package dev.ember.dynamo.variables;

import dev.ember.dynamo.guards.DoubleExpr;
import dev.ember.dynamo.guards.IntExpr;
import dev.ember.dynamo.source.Source;
import dev.ember.tensor.DType;

import java.util.ArrayList;
import java.util.List;

/**
 * A Java number the graph computes instead of the trace knowing it: the 0-d tensor node that ops
 * and arithmetic on the number use in its place, of the dtype whose arithmetic is Java's for its
 * type (float64 for a double, int64 for a long, int32 for an int, so an int wraps as Java's does).
 * It comes from tensor data ({@code Tensor.item()} with capture_scalar_outputs on: {@code dataDependent})
 * or from unspecialized inputs of the frame ({@code roots}: a double argument, a value carried
 * across a break, an int that changed between calls), or from arithmetic on both.
 *
 * <p>An int or long computed from int inputs only also carries {@code expr}, the Java expression
 * that computed it ({@code n % 2}): a branch on it is guarded by that expression's comparison
 * instead of specializing the inputs (null for doubles and data-dependent numbers). Its tensor may
 * be of a narrower integral dtype than {@code javaType} ({@code (long) n} keeps n's int32 tensor):
 * widening is exact, and every use casts where the dtype decides the arithmetic.
 *
 * <p>A double computed from unspecialized inputs only (a double argument, {@code s * 2},
 * {@code a + b}, {@code Math.abs(s)}, {@code n * 0.5} of a dynamic int) carries {@code doubleExpr},
 * the expression with its value in this trace: a comparison of it is then guarded by that comparison
 * ({@code L['s'] * 2.0 > 1.0}) instead of by the inputs' values, as Dynamo guards a branch on a
 * SymFloat (null for ints and data-dependent numbers).
 */
public record SymScalarVariable(TensorVariable tensor, Class<?> javaType, String origin, boolean boxed, List<Source> roots,
                                boolean dataDependent, IntExpr expr, DoubleExpr doubleExpr) implements VariableTracker {

    /** A number read from tensor data. */
    public static SymScalarVariable fromData(TensorVariable tensor, boolean isLong, String origin) {
        return new SymScalarVariable(tensor, isLong ? long.class : double.class, origin, false, List.of(), true, null, null);
    }

    /** A frame input of Java type {@code javaType} (int, long or double) not specialized to its value, read from {@code source}. */
    public static SymScalarVariable input(TensorVariable tensor, Class<?> javaType, Source source, boolean boxed, Object hint) {
        IntExpr expr = javaType == double.class ? null : new IntExpr.Input(source, ((Number) hint).longValue(), javaType == int.class);
        DoubleExpr value = javaType == double.class ? new DoubleExpr.Input(source, ((Number) hint).doubleValue()) : null;
        return new SymScalarVariable(tensor, javaType, "the input " + source.shortName(), boxed, List.of(source), false, expr, value);
    }

    /** The dtype that computes as Java computes on {@code javaType}. */
    public static DType dtypeOf(Class<?> javaType) {
        return javaType == double.class ? DType.FLOAT64 : javaType == long.class ? DType.INT64 : DType.INT32;
    }

    /** The same number as a boxed reference (one stack slot), or back as the primitive. */
    public SymScalarVariable boxed(boolean on) { return new SymScalarVariable(tensor, javaType, origin, on, roots, dataDependent, expr, doubleExpr); }

    /** A number of type {@code resultType} computed from this one (and {@code other}, when it is symbolic too) by the node of {@code result}. */
    public SymScalarVariable derived(TensorVariable result, Class<?> resultType, SymScalarVariable other) { return derived(result, resultType, other, null); }

    /** As {@link #derived(TensorVariable, Class, SymScalarVariable)}, with the Java expression that computed it (null when none). */
    public SymScalarVariable derived(TensorVariable result, Class<?> resultType, SymScalarVariable other, IntExpr resultExpr) {
        return derived(result, resultType, other, resultExpr, null);
    }

    /** As {@link #derived(TensorVariable, Class, SymScalarVariable, IntExpr)}, for a double with the expression that computed it (null when none). */
    public SymScalarVariable derived(TensorVariable result, Class<?> resultType, SymScalarVariable other, IntExpr resultExpr, DoubleExpr resultDouble) {
        if (other == null || other == this) return new SymScalarVariable(result, resultType, origin, false, roots, dataDependent, resultExpr, resultDouble);
        List<Source> all = new ArrayList<>(roots);
        for (Source s : other.roots) if (!all.contains(s)) all.add(s);
        String from = origin.equals(other.origin) ? origin : origin + " and " + other.origin;
        return new SymScalarVariable(result, resultType, from, false, List.copyOf(all), dataDependent || other.dataDependent, resultExpr, resultDouble);
    }

    /** An integral number (int or long), as opposed to a double. */
    public boolean isIntegral() { return javaType != double.class; }

    /** {@code Integer}, {@code Long} or {@code Double}. */
    public Class<?> boxedType() { return boxedTypeOf(javaType); }

    public static Class<?> boxedTypeOf(Class<?> javaType) { return javaType == int.class ? Integer.class : javaType == long.class ? Long.class : Double.class; }

    /** The unboxing method of {@link #boxedType()}: {@code intValue}, {@code longValue}, {@code doubleValue}. */
    public String unboxMethod() { return javaType.getName() + "Value"; }

    @Override
    public Source source() { return null; }

    @Override
    public boolean isWide() { return !boxed && javaType != int.class; }

    @Override
    public String describe() {
        return (dataDependent ? "data-dependent " : "symbolic ") + javaType.getSimpleName() + " (from " + origin + ")";
    }
}
