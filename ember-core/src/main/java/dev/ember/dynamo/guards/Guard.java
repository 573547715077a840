package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;

/**
 * A condition a later call must meet to reuse a compiled graph. Each guard checks one value
 * (read from its {@link Source}, or global state) without allocating, and can explain a failure in words.
 */
public sealed interface Guard permits TensorMatch, TypeMatch, IdMatch, EqualsMatch, IntRange, LengthCheck, KeysMatch, GlobalStateMatch, SameObject, NoTensorAliasing, FrameGuard {

    /** PyTorch's guard kind name: {@code TENSOR_MATCH}, {@code EQUALS_MATCH}, … */
    String kind();

    /** The guarded value's source; {@code null} for global state. */
    Source source();

    /** True when {@code value} (already read from the source) passes. */
    boolean test(Object value);

    /** Why {@code value} fails, e.g. {@code tensor 'x' size mismatch at index 0. expected 10, actual 20}. */
    String explainFailure(Object value);

    /** A one-line description for guard listings. */
    String describe();

    /** Reads this guard's value from the frame (global state ignores it). */
    default Object read(Object[] frame) { return source().read(frame); }

    /** The hot-path check for one call: reads and tests without allocating. */
    default boolean check(Object[] frame) { return test(read(frame)); }
}
