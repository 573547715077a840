package dev.ember.dynamo;

/** {@code Cond.cond} on a tensor predicate whose branches return tensors of different dtype or shape: an error in user code, never a graph break. */
public final class CondBranchMismatch extends IllegalArgumentException {
    CondBranchMismatch(String message) { super(message); }
}
