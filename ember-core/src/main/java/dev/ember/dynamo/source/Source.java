package dev.ember.dynamo.source;

/**
 * Where a value seen while tracing came from, so guards can re-read it on later calls:
 * {@code L['x']}, {@code L['self'].conv1.weight}, {@code L['xs'][0]}, {@code G['Config.SCALE']}.
 */
public sealed interface Source permits LocalSource, FieldSource, IndexSource, KeySource, StaticFieldSource, ScalarTensorSource, SizeSource,
        IteratorPartSource, TextSource, KeyAtSource, ThreadLocalSource, ModuleQuerySource, ReversedViewBaseSource, GradSource {

    /** The name printed in guards and messages. */
    String name();

    /** Reads the value from a call's frame inputs (the compiled method's arguments, captured values first). */
    Object read(Object[] frame);

    /** The name people think of: {@code x} for {@code L['x']}, the full name otherwise. */
    default String shortName() { return this instanceof LocalSource l ? l.localName() : name(); }
}
