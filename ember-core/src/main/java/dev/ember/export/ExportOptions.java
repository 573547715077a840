package dev.ember.export;

import dev.ember.fx.Backends;

/**
 * How {@code Ember.export} captures: strict (the default, torch.export's too) reads the function's
 * bytecode with Dynamo's translator, so Java control flow is seen and any graph break is an error;
 * non-strict runs the Java code on fake tensors and records each op it calls, so any Java runs, but
 * a branch is baked in as taken for the example inputs (see docs/export.md). {@code backend} is
 * what {@link ExportedProgram#run} compiles the graph with ({@code "eager"} interprets it).
 */
public record ExportOptions(boolean strict, String backend) {
    private static final ExportOptions DEFAULTS = new ExportOptions(true, "inductor");

    public ExportOptions {
        Backends.get(backend);
    }

    /** Strict, run by the inductor. */
    public static ExportOptions defaults() { return DEFAULTS; }

    /** Defaults with {@code strict(false)}. */
    public static ExportOptions nonStrict() { return DEFAULTS.strict(false); }

    public ExportOptions strict(boolean on) { return new ExportOptions(on, backend); }

    public ExportOptions backend(String name) { return new ExportOptions(strict, name); }
}
