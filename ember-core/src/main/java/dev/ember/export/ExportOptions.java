package dev.ember.export;

import dev.ember.fx.Backends;

/**
 * How {@code Ember.export} captures: strict (the default, torch.export's too) reads the function's
 * bytecode with Dynamo's translator, so Java control flow is seen and any graph break is an error;
 * non-strict runs the Java code on fake tensors and records each op it calls, so any Java runs, but
 * a branch is baked in as taken for the example inputs (see docs/export.md). {@code backend} is
 * what {@link ExportedProgram#run} compiles the graph with ({@code "eager"} interprets it).
 */
public record ExportOptions(boolean strict, String backend, java.util.Map<Integer, java.util.Map<Integer, Dim>> dynamicShapes) {
    private static final ExportOptions DEFAULTS = new ExportOptions(true, "inductor", java.util.Map.of());

    public ExportOptions {
        Backends.get(backend);
        java.util.Map<Integer, java.util.Map<Integer, Dim>> copy = new java.util.TreeMap<>();
        dynamicShapes.forEach((arg, dims) -> copy.put(arg, java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(dims))));
        dynamicShapes = java.util.Collections.unmodifiableMap(copy);
    }

    /** Strict, run by the inductor. */
    public static ExportOptions defaults() { return DEFAULTS; }

    /** Defaults with {@code strict(false)}. */
    public static ExportOptions nonStrict() { return DEFAULTS.strict(false); }

    public ExportOptions strict(boolean on) { return new ExportOptions(on, backend, dynamicShapes); }

    public ExportOptions backend(String name) { return new ExportOptions(strict, name, dynamicShapes); }

    /**
     * These options with dimension {@code dim} of argument {@code arg} (0 is the first tensor the
     * function takes) dynamic over {@code d}'s range: torch.export's {@code dynamic_shapes}.
     */
    public ExportOptions dynamic(int arg, int dim, Dim d) {
        if (arg < 0 || dim < 0) throw new IllegalArgumentException("ExportOptions.dynamic(" + arg + ", " + dim + ", " + d + "): argument and dimension count from 0");
        java.util.Map<Integer, java.util.Map<Integer, Dim>> copy = new java.util.TreeMap<>(dynamicShapes);
        java.util.Map<Integer, Dim> dims = new java.util.TreeMap<>(copy.getOrDefault(arg, java.util.Map.of()));
        dims.put(dim, java.util.Objects.requireNonNull(d, "d"));
        copy.put(arg, dims);
        return new ExportOptions(strict, backend, copy);
    }
}
