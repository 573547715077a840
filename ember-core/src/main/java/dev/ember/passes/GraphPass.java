package dev.ember.passes;

import dev.ember.fx.GraphModule;

import java.util.function.Predicate;

/**
 * A named rewrite of a graph, run by the {@link PassManager}: {@code rewrite} changes the graph in
 * place and says whether it changed anything. The name is what logs print and what
 * {@link PassManager#DISABLE_ENV} switches off. An {@code inferenceOnly} pass would change what
 * autograd differentiates, so the manager skips it when the graph is compiled for training. An
 * {@code optIn} pass runs only when {@link PassManager#ENABLE_ENV} names it: one measured to be slower
 * here, kept for the machines and models where it is not.
 */
public record GraphPass(String name, String description, boolean inferenceOnly, boolean optIn, Predicate<GraphModule> rewrite) {}
