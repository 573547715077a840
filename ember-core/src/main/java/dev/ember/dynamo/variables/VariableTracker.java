package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

/**
 * What the translator holds on its operand stack and in its locals instead of real values: a
 * graph node with a fake tensor, a constant, a tracked container or object, an op, a lambda.
 * Each knows the {@link Source} it came from when it came from the frame's inputs.
 */
public sealed interface VariableTracker
        permits TensorVariable, ConstantVariable, ArrayVariable, ListVariable, IteratorVariable,
                UserObjectVariable, ModuleVariable, OpOverloadVariable, LambdaVariable, StreamVariable, KeyedVariable, PipelineVariable,
                MapViewVariable, ReadOnlyVariable, EntryVariable, ImmutableEntryVariable, SymScalarVariable, SymSizeVariable, StringBuilderVariable, CollectorVariable {

    /** Where the value came from, or null for values created during the trace. */
    Source source();

    /** A short description for messages: {@code Tensor f32[3, 4]}, {@code int 3}, {@code ArrayList of 2}. */
    String describe();

    /** JVM category-2 values (long, double) take two stack slots and two local slots. */
    default boolean isWide() { return false; }
}
