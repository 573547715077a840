package dev.ember.ops.kernels;

/** Comparisons of two operands of one dtype, giving bool. */
public enum PointwiseCompareOp { EQ, NE, LT, LE, GT, GE }
