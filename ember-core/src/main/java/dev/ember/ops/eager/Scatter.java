package dev.ember.ops.eager;

import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;

/**
 * Writes source elements to positions of {@code out} chosen along one dimension by an index:
 * scatter (an index per source element) and index_add (an index per source slice). The positions
 * are all worked out, and every index checked, before anything is written; they are visited in the
 * source's row-major order, which is ATen's CPU order, so duplicate indices end as in ATen (the
 * last write wins, sums accumulate in the same order).
 */
public final class Scatter {
    private Scatter() {}

    /** Where each source element goes ({@code out}'s storage index) and where it is read from. */
    public record Positions(int[] out, int[] source) {}

    /**
     * scatter's positions: element {@code i} of {@code index} (int64, any layout) sends element
     * {@code i} of {@code source} (a 0-d source stands for a value sent everywhere) to {@code out}
     * at {@code i} with coordinate {@code dim} replaced by {@code index[i]}.
     */
    public static Positions scatter(String op, Tensor out, int dim, Tensor index, Tensor source) {
        int n = index.numel();
        if (n == 0) return new Positions(new int[0], new int[0]);   // an empty index may have any dtype, as in ATen
        int[] shape = nonEmpty(index.shape()), is = nonEmptyStrides(index), os = nonEmptyStrides(out);
        int[] ss = source.dim() == 0 ? new int[shape.length] : nonEmptyStrides(source);
        int size = out.dim() == 0 ? 1 : out.size(dim);
        long[] indices = index.storage().longs();
        int[] outPos = new int[n], sourcePos = new int[n], coord = new int[shape.length];
        int ip = index.storageOffset(), sp = source.storageOffset(), ob = out.storageOffset();
        for (int k = 0; k < n; k++) {
            long v = indices[ip];
            if (v < 0 || v >= size) throw new IndexOutOfBoundsException(op + ": index " + v + " is out of bounds for dimension " + dim + " with size " + size);
            outPos[k] = ob + (int) v * os[dim];
            sourcePos[k] = sp;
            for (int d = shape.length - 1; d >= 0; d--) {
                int o = d == dim ? 0 : os[d];
                if (++coord[d] < shape[d]) { ip += is[d]; sp += ss[d]; ob += o; break; }
                coord[d] = 0;
                ip -= (shape[d] - 1) * is[d];
                sp -= (shape[d] - 1) * ss[d];
                ob -= (shape[d] - 1) * o;
            }
        }
        return new Positions(outPos, sourcePos);
    }

    /**
     * index_add's positions: slice {@code i} of {@code source} along {@code dim} goes to slice
     * {@code indices[i]} of {@code out}; the indices are already checked against out's size.
     */
    public static Positions indexed(Tensor out, int dim, long[] indices, Tensor source) {
        int n = source.numel();
        int[] shape = nonEmpty(source.shape()), ss = nonEmptyStrides(source), os = nonEmptyStrides(out);
        int[] outPos = new int[n], sourcePos = new int[n], coord = new int[shape.length];
        int sp = source.storageOffset(), ob = out.storageOffset();
        for (int k = 0; k < n; k++) {
            outPos[k] = ob + (int) indices[coord[dim]] * os[dim];
            sourcePos[k] = sp;
            for (int d = shape.length - 1; d >= 0; d--) {
                int o = d == dim ? 0 : os[d];
                if (++coord[d] < shape[d]) { sp += ss[d]; ob += o; break; }
                coord[d] = 0;
                sp -= (shape[d] - 1) * ss[d];
                ob -= (shape[d] - 1) * o;
            }
        }
        return new Positions(outPos, sourcePos);
    }

    /** {@code out[p.out[k]] = source[p.source[k]]}, in order; out and source have one dtype. */
    public static void assign(Tensor out, Tensor source, Positions p) {
        int[] po = p.out(), ps = p.source();
        Storage so = out.storage(), ss = source.storage();
        switch (out.dtype()) {
            case FLOAT32 -> { float[] o = so.floats(), s = ss.floats(); for (int k = 0; k < po.length; k++) o[po[k]] = s[ps[k]]; }
            case FLOAT64 -> { double[] o = so.doubles(), s = ss.doubles(); for (int k = 0; k < po.length; k++) o[po[k]] = s[ps[k]]; }
            case INT32 -> { int[] o = so.ints(), s = ss.ints(); for (int k = 0; k < po.length; k++) o[po[k]] = s[ps[k]]; }
            case INT64 -> { long[] o = so.longs(), s = ss.longs(); for (int k = 0; k < po.length; k++) o[po[k]] = s[ps[k]]; }
            case BOOL -> { byte[] o = so.bools(), s = ss.bools(); for (int k = 0; k < po.length; k++) o[po[k]] = s[ps[k]]; }
        }
    }

    /**
     * {@code out[p.out[k]] += alpha * source[p.source[k]]}, in order, in out's dtype (integers wrap;
     * bool sums are logical or, as C++'s {@code bool +=}). An alpha of 1 adds without multiplying.
     */
    public static void add(Tensor out, Tensor source, Positions p, Object alpha) {
        int[] po = p.out(), ps = p.source();
        Storage so = out.storage(), ss = source.storage();
        double a = alpha instanceof Boolean b ? (b ? 1 : 0) : ((Number) alpha).doubleValue();
        boolean one = a == 1;
        switch (out.dtype()) {
            case FLOAT32 -> {
                float[] o = so.floats(), s = ss.floats();
                float fa = (float) a;
                if (one) for (int k = 0; k < po.length; k++) o[po[k]] += s[ps[k]];
                else for (int k = 0; k < po.length; k++) o[po[k]] += fa * s[ps[k]];
            }
            case FLOAT64 -> {
                double[] o = so.doubles(), s = ss.doubles();
                if (one) for (int k = 0; k < po.length; k++) o[po[k]] += s[ps[k]];
                else for (int k = 0; k < po.length; k++) o[po[k]] += a * s[ps[k]];
            }
            case INT32 -> { int[] o = so.ints(), s = ss.ints(); int ia = (int) a; for (int k = 0; k < po.length; k++) o[po[k]] += ia * s[ps[k]]; }
            case INT64 -> { long[] o = so.longs(), s = ss.longs(); long la = (long) a; for (int k = 0; k < po.length; k++) o[po[k]] += la * s[ps[k]]; }
            case BOOL -> {
                byte[] o = so.bools(), s = ss.bools();
                if (a != 0) for (int k = 0; k < po.length; k++) o[po[k]] |= s[ps[k]];
            }
        }
    }

    /** {@code out[p.out[k]] *= source[p.source[k]]}, in order, in out's dtype (integers wrap; bool products are logical and). */
    public static void multiply(Tensor out, Tensor source, Positions p) {
        int[] po = p.out(), ps = p.source();
        Storage so = out.storage(), ss = source.storage();
        switch (out.dtype()) {
            case FLOAT32 -> { float[] o = so.floats(), s = ss.floats(); for (int k = 0; k < po.length; k++) o[po[k]] *= s[ps[k]]; }
            case FLOAT64 -> { double[] o = so.doubles(), s = ss.doubles(); for (int k = 0; k < po.length; k++) o[po[k]] *= s[ps[k]]; }
            case INT32 -> { int[] o = so.ints(), s = ss.ints(); for (int k = 0; k < po.length; k++) o[po[k]] *= s[ps[k]]; }
            case INT64 -> { long[] o = so.longs(), s = ss.longs(); for (int k = 0; k < po.length; k++) o[po[k]] *= s[ps[k]]; }
            case BOOL -> { byte[] o = so.bools(), s = ss.bools(); for (int k = 0; k < po.length; k++) o[po[k]] &= s[ps[k]]; }
        }
    }

    /** A 0-d tensor counts as one element along one dimension (ATen's ensure_nonempty_size). */
    private static int[] nonEmpty(int[] shape) { return shape.length == 0 ? new int[] {1} : shape; }

    private static int[] nonEmptyStrides(Tensor t) { return t.dim() == 0 ? new int[] {1} : t.strides(); }
}
