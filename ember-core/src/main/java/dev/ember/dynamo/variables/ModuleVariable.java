package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

/** An nn Module instance from the frame's inputs; {@code path} is its dotted name under the root module ("" for the root). */
public record ModuleVariable(Object module, Source source, String path) implements VariableTracker {
    @Override
    public String describe() { return "Module " + module.getClass().getSimpleName() + (path.isEmpty() ? "" : " '" + path + "'"); }
}
