package dev.ember.dynamo.guards;

import dev.ember.dynamo.source.Source;

/**
 * A guard on the frame as a whole rather than on one value: on several sources at once (two
 * tensors are distinct, a relation between ints) or on an expression over them. It reads the
 * frame itself; {@link #check} decides.
 */
public sealed interface FrameGuard extends Guard permits DistinctTensors, SymIntGuard, IntRelation, SymbolicShapeGuard {
    @Override
    default Source source() { return null; }

    @Override
    default Object read(Object[] frame) { return frame; }

    @Override
    default boolean test(Object frame) { return check((Object[]) frame); }

    @Override
    boolean check(Object[] frame);
}
