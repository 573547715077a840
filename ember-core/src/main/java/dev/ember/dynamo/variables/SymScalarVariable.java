package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

/**
 * A Java double or long whose value is tensor data, read while tracing with capture_scalar_outputs
 * on ({@code Tensor.item()}, {@code longItem()}): the 0-d tensor node (float64 for a double, int64
 * for a long) computing it, which ops and arithmetic on the number use in its place.
 */
public record SymScalarVariable(TensorVariable tensor, boolean isLong, String origin, boolean boxed) implements VariableTracker {
    public SymScalarVariable(TensorVariable tensor, boolean isLong, String origin) { this(tensor, isLong, origin, false); }

    /** The same number as a Double or Long reference (one stack slot), or back as the primitive. */
    public SymScalarVariable boxed(boolean on) { return new SymScalarVariable(tensor, isLong, origin, on); }

    @Override
    public Source source() { return null; }

    @Override
    public boolean isWide() { return !boxed; }

    /** The Java type the number has in user code. */
    public Class<?> javaType() { return isLong ? long.class : double.class; }

    @Override
    public String describe() { return "data-dependent " + javaType().getSimpleName() + " (from " + origin + ")"; }
}
