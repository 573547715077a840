package dev.ember.dynamo.variables;

import dev.ember.dynamo.source.Source;

import java.util.List;

/**
 * A lambda or method reference: the method that implements it and its captured values (the
 * receiver of a bound method reference first). Calling its interface method inlines the
 * implementation. One from the inputs has a {@link #source()}; one made during the trace has the
 * {@link #site()} that made it, so it can be made again after the graph.
 */
public record LambdaVariable(MethodTarget target, String interfaceMethod, List<VariableTracker> captured, Source source, LambdaSite site)
        implements VariableTracker {
    @Override
    public String describe() { return "lambda " + target.owner().getSimpleName() + "::" + target.name(); }
}
