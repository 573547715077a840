package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;
import dev.ember.ops.OpOverload;

/** An op from the registry; calling it adds a call_function node. */
public record OpOverloadVariable(OpOverload op) implements VariableTracker {
    @Override
    public Source source() { return null; }

    @Override
    public String describe() { return "OpOverload " + op.name(); }
}
