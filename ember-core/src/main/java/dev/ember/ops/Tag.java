package dev.ember.ops;

/** What an op is, for the passes and the scheduler (ATen's tags, the ones Ember uses). */
public enum Tag {
    /** Elementwise over broadcast inputs: fusable into one loop. */
    POINTWISE,
    /** Folds one or more dimensions. */
    REDUCTION,
    /** Returns a tensor sharing its input's storage. */
    VIEW,
    /** Writes into its first argument and returns it. */
    INPLACE,
    /** Draws from a random generator: results differ call to call. */
    NONDETERMINISTIC,
    /** Creates a tensor from arguments alone (no tensor inputs). */
    FACTORY,
    /**
     * The output's shape depends on the input's values (nonzero, masked_select): a graph traced
     * from fake tensors, which have no values, cannot hold the call, so capture breaks the graph
     * there (ATen's {@code dynamic_output_shape}).
     */
    DYNAMIC_OUTPUT_SHAPE
}
