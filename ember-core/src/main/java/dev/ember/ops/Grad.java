package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;

/**
 * What a {@link Derivative} reads and writes with: the op's arguments and results as saved by the
 * forward call, the gradients of its outputs, which inputs want a gradient, and ops to call (through
 * an {@link OpEmitter}, so a formula serves eager backward and traced backward graphs alike).
 *
 * <p>Reading a saved tensor ({@link #arg}, {@link #result}) is what checks it: eager autograd
 * refuses, with ATen's message, a saved tensor that was modified in place since it was saved or
 * freed by an earlier backward. Metadata ({@link #argMeta}, {@link #resultMeta}) is always there.
 */
public final class Grad {
    /** Where the saved values come from: checked on read. */
    public interface Saved {
        /** Argument {@code i} as passed (tensors as the emitter's values, lists of them as lists). */
        Object arg(int i);

        /** Result {@code i} (0 for a single-output op). */
        Object result(int i);
    }

    private final OpOverload op;
    private final OpEmitter e;
    private final Saved saved;
    private final Object[] argShapes;     // per position: TensorMeta, List<TensorMeta>, or the raw non-tensor value
    private final TensorMeta[] resultMetas;
    private final Object[] gradOutputs;
    private final IntFunction<Boolean> needs;

    public Grad(OpOverload op, OpEmitter e, Saved saved, Object[] argShapes, TensorMeta[] resultMetas, Object[] gradOutputs, IntFunction<Boolean> needs) {
        this.op = op;
        this.e = e;
        this.saved = saved;
        this.argShapes = argShapes;
        this.resultMetas = resultMetas;
        this.gradOutputs = gradOutputs;
        this.needs = needs;
    }

    public OpOverload op() { return op; }

    public OpEmitter emitter() { return e; }

    // ------------------------------------------------------------------ what the forward call saw

    public int argCount() { return argShapes.length; }

    /** True when argument {@code i} is a tensor (or a tensor list). */
    public boolean isTensorArg(int i) {
        return argShapes[i] instanceof TensorMeta || argShapes[i] instanceof List<?> l && !l.isEmpty() && l.getFirst() instanceof TensorMeta;
    }

    /** Whether input {@code i}'s gradient is wanted: a formula may skip the work for the others. */
    public boolean needs(int i) { return needs.apply(i); }

    /** A saved tensor argument (checked), or a non-tensor argument's value. */
    public Object arg(int i) { return isTensorArg(i) ? saved.arg(i) : argShapes[i]; }

    /** A non-tensor argument's value (a scalar, int list, flag), without touching saved tensors. */
    public Object value(int i) {
        if (isTensorArg(i)) throw new IllegalStateException(op + ": argument " + i + " is a tensor; read it with arg(" + i + ")");
        return argShapes[i];
    }

    public int intValue(int i) { return ((Number) value(i)).intValue(); }

    /**
     * A non-tensor int-list argument as the op's kernel read it ({@link Args#ints}): a single
     * integer stands for itself repeated as the schema's {@code int[N]} says, so that a formula
     * sees {@code adaptive_avg_pool2d(x, 1)}'s size as {@code [1, 1]}, as the forward did.
     */
    public int[] ints(int i) {
        value(i);   // refuses a tensor argument
        return new Args(op, argShapes).ints(i);
    }

    public double doubleValue(int i) { return ((Number) value(i)).doubleValue(); }

    public TensorMeta argMeta(int i) { return (TensorMeta) argShapes[i]; }

    @SuppressWarnings("unchecked")
    public List<TensorMeta> argMetas(int i) { return (List<TensorMeta>) argShapes[i]; }

    public Object result() { return saved.result(0); }

    public Object result(int i) { return saved.result(i); }

    public TensorMeta resultMeta() { return resultMetas[0]; }

    public TensorMeta resultMeta(int i) { return resultMetas[i]; }

    /** The gradient of output 0. */
    public Object grad() { return grad(0); }

    /** The gradient of output {@code i}; zeros where nothing used that output. */
    public Object grad(int i) {
        Object g = gradOutputs[i];
        return g != null ? g : zeros(resultMetas[i]);
    }

    /** True when output {@code i} got a gradient (multi-output ops may skip the work for the others). */
    public boolean hasGrad(int i) { return gradOutputs[i] != null; }

    // ------------------------------------------------------------------ ops to write formulas with

    public Object call(OpOverload o, Object... args) { return e.call(o, args); }

    public TensorMeta meta(Object tensor) { return e.meta(tensor); }

    public Object add(Object a, Object b) { return b instanceof Number ? e.call(PointwiseOps.ADD_SCALAR, a, b) : e.call(PointwiseOps.ADD_TENSOR, a, b); }

    public Object sub(Object a, Object b) { return b instanceof Number ? e.call(PointwiseOps.SUB_SCALAR, a, b) : e.call(PointwiseOps.SUB_TENSOR, a, b); }

    public Object mul(Object a, Object b) { return b instanceof Number ? e.call(PointwiseOps.MUL_SCALAR, a, b) : e.call(PointwiseOps.MUL_TENSOR, a, b); }

    public Object div(Object a, Object b) { return b instanceof Number ? e.call(PointwiseOps.DIV_SCALAR, a, b) : e.call(PointwiseOps.DIV_TENSOR, a, b); }

    public Object neg(Object a) { return e.call(PointwiseOps.NEG, a); }

    /** {@code a · alpha}, or {@code a} itself when alpha is 1. */
    public Object scaled(Object a, Object alpha) { return Composites.isOne(alpha) ? a : mul(a, alpha); }

    /** −1, 0 or 1 by the sign of {@code a}, in its dtype (0 at 0, as ATen's sgn: |x|'s gradient there is 0). */
    public Object sign(Object a) { return e.call(PointwiseOps.SIGN, a); }

    /** {@code 1 - a}. */
    public Object oneMinus(Object a) { return e.call(PointwiseOps.RSUB_SCALAR, a, 1.0); }

    public Object where(Object cond, Object a, Object b) {
        if (a instanceof Number) return e.call(PointwiseOps.WHERE_SCALAR_SELF, cond, a, b);
        if (b instanceof Number) return e.call(PointwiseOps.WHERE_SCALAR_OTHER, cond, a, b);
        return e.call(PointwiseOps.WHERE_SELF, cond, a, b);
    }

    public Object zeros(TensorMeta like) { return e.call(CreationOps.ZEROS, like.shape(), like.dtype()); }

    /** How many outputs the op returned. */
    public int resultCount() { return resultMetas.length; }

    /**
     * A zero tensor shaped like {@code input} with {@code grad} placed along {@code dim} from
     * {@code start} every {@code step}: the backward of slicing ({@code slice_scatter}), as a
     * concatenation with zeros for step 1 and an index_add otherwise.
     */
    public Object scatterSlice(Object grad, TensorMeta input, int dim, int start, int step) {
        TensorMeta gm = e.meta(grad);
        int n = gm.shape()[dim], size = input.shape()[dim];
        if (n == size) return grad;
        if (step == 1) {
            List<Object> parts = new ArrayList<>();
            if (start > 0) parts.add(zeros(TensorMeta.contiguous(gm.dtype(), withDim(gm.shape(), dim, start))));
            parts.add(grad);
            int after = size - start - n;
            if (after > 0) parts.add(zeros(TensorMeta.contiguous(gm.dtype(), withDim(gm.shape(), dim, after))));
            return e.call(ShapeOps.CAT, parts, dim);
        }
        Object index = e.call(CreationOps.ARANGE, (long) start, (long) start + (long) n * step, (long) step);
        return e.call(ScatterOps.INDEX_ADD, zeros(TensorMeta.contiguous(gm.dtype(), input.shape())), dim, index, grad);
    }

    private static int[] withDim(int[] shape, int dim, int size) {
        int[] out = shape.clone();
        out[dim] = size;
        return out;
    }

    public Object reshape(Object a, int[] shape) { return e.call(ShapeOps.RESHAPE, a, shape); }

    public Object sumDims(Object a, int[] dims, boolean keepdim) { return e.call(ReductionOps.SUM_DIM, a, dims, keepdim); }

    /** {@code a}, reduced to a reduction's input shape: its reduced dims put back (size 1) and expanded. */
    public Object expandReduced(Object a, TensorMeta input, int[] dims, boolean keepdim) {
        Object kept = keepdim ? a : reshape(a, keptShape(input.shape(), dims));
        return e.call(ShapeOps.EXPAND, kept, input.shape());
    }

    /**
     * A gradient brought to its input's shape and dtype (ATen's {@code validate_outputs}): summed over
     * the dims the input was broadcast along, then cast. Null stays null.
     */
    public static Object conform(OpEmitter e, Object grad, TensorMeta input) {
        if (grad == null) return null;
        TensorMeta g = e.meta(grad);
        Object out = grad;
        if (!Arrays.equals(g.shape(), input.shape())) out = sumToShape(e, out, g.shape(), input.shape());
        if (g.dtype() != input.dtype() && input.dtype().isFloatingPoint()) out = e.call(ShapeOps.TO_COPY, out, input.dtype());
        return out;
    }

    /** Sums {@code grad} (of shape {@code from}) down to {@code to}, which broadcasts to {@code from}. */
    static Object sumToShape(OpEmitter e, Object grad, int[] from, int[] to) {
        int lead = from.length - to.length;
        if (lead < 0 || !Arrays.equals(Shapes.broadcast("backward", from, to), from)) {
            throw new IllegalStateException("backward: a gradient of shape " + Shapes.format(from) + " cannot be reduced to its input's shape " + Shapes.format(to));
        }
        List<Integer> dims = new ArrayList<>();
        for (int d = 0; d < from.length; d++) {
            if (d < lead || (to[d - lead] == 1 && from[d] != 1)) dims.add(d);
        }
        Object out = grad;
        if (!dims.isEmpty()) out = e.call(ReductionOps.SUM_DIM, out, dims.stream().mapToInt(Integer::intValue).toArray(), true);
        return e.call(ShapeOps.RESHAPE, out, to);
    }

    /** The shape with each of {@code dims} (wrapped, reduced away) put back as 1. */
    static int[] keptShape(int[] shape, int[] dims) {
        int[] out = shape.clone();
        for (int d : dims) out[d] = 1;
        return out;
    }

    /** The reduced dims of a reduction's {@code dim} argument over {@code input}: wrapped; none means all. */
    public int[] reducedDims(TensorMeta input, Object dimArg) {
        int nd = input.dim();
        int[] given = dimArg == null ? new int[0] : Composites.toInts(dimArg);
        if (given.length == 0) {
            int[] all = new int[nd];
            for (int d = 0; d < nd; d++) all[d] = d;
            return all;
        }
        int[] out = new int[given.length];
        for (int k = 0; k < given.length; k++) out[k] = given[k] < 0 ? given[k] + Math.max(nd, 1) : given[k];
        if (nd == 0) return new int[0];
        return out;
    }

    public static boolean isFloating(TensorMeta m) { return m.dtype().isFloatingPoint(); }

    static DType dtypeOf(TensorMeta m) { return m.dtype(); }
}
