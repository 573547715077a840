package dev.ember.inductor.ir;

import dev.ember.fx.Node;
import dev.ember.ops.OpOverload;
import dev.ember.tensor.SymInt;

import java.util.List;

/**
 * One unit of work the lowering produced, before fusion: a loop nest writing a buffer, a GEMM, or
 * an op run by its eager kernel. {@link #node()} is the graph node it came from (for logs).
 */
public sealed interface Stage {
    Node node();

    /**
     * {@code out[contiguous(x)] = body(x)} over {@code shape}; the body's vars are the dims
     * {@code 0..rank-1}.
     */
    record Pointwise(Node node, Buffer out, SymInt[] shape, Expr body) implements Stage {}

    /**
     * {@code out[contiguous(o)] = op over r of body(o, r)}; vars {@code 0..outer-1} are the kept
     * dims (in order), {@code outer..outer+reduce-1} the reduced ones.
     */
    record Reduction(Node node, Buffer out, SymInt[] outer, SymInt[] reduce, ReduceOp op, Expr body) implements Stage {}

    /**
     * {@code out = a @ b} (batched when {@code batch} is not 1) through BLAS, operands read in place
     * (a transposed operand is a BLAS flag, not a copy).
     */
    record Gemm(Node node, Buffer out, Operand a, Operand b, SymInt batch, SymInt m, SymInt n, SymInt k) implements Stage {}

    /**
     * An op without a lowering, run by its eager kernel; tensor arguments are {@link Operand}s.
     * {@code outs} receive its tensor result(s) (one per list element for list-returning ops).
     */
    record Extern(Node node, OpOverload op, List<Object> args, List<Buffer> outs, String reason) implements Stage {}

    /** A matrix (or batch of matrices) in a buffer: element (b, i, j) at {@code offset + b*bs + i*rs + j*cs}. */
    record Operand(Buffer buffer, SymInt[] shape, SymInt[] strides, SymInt offset) {}

    /** {@link #PROD} multiplies its terms one by one in their logical order, as eager's prod does: it has no SIMD form. */
    enum ReduceOp { SUM, MAX, MIN, PROD }
}
