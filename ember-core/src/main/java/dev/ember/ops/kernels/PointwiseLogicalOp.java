package dev.ember.ops.kernels;

/** Logical ops on truth values (non-zero is true), giving bool; {@link #NOT} takes one operand. */
public enum PointwiseLogicalOp { AND, OR, NOT }
