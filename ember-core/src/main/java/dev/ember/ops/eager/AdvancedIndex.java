package dev.ember.ops.eager;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * ATen's advanced indexing ({@code x[i, :, j]}, {@code x[mask]}), shared by index.Tensor (read) and
 * index_put (write): a list of optional index tensors, one per leading dim of self (null: the whole
 * dim, as {@code :}), each int64/int32 (positions, negative ones from the end) or bool (a mask over
 * as many dims as it has, standing for its nonzero() columns). The integer indices are broadcast
 * together; their broadcast shape replaces the dims they index where those dims are adjacent, and
 * goes first otherwise (numpy's rule, ATen's {@code transposeToFront}).
 *
 * <p>{@link #resultShape} works on metadata alone when no index is a mask (the compiler's fake
 * tensors); {@link #plan} reads the indices and gives, for each element of the result in row-major
 * order, the storage position of the element of self it stands for.
 */
public final class AdvancedIndex {
    private AdvancedIndex() {}

    /** The result's shape, and per result element the position in self's storage it reads or writes. */
    public record Plan(int[] shape, int[] positions) {}

    /** ATen's checkIndexTensorTypes: integers or bools only. */
    public static void checkTypes(List<? extends Tensor> indices) {
        for (Tensor t : indices) {
            if (t != null && t.dtype() != DType.INT64 && t.dtype() != DType.INT32 && t.dtype() != DType.BOOL) {
                throw new IndexOutOfBoundsException("tensors used as indices must be long, int, byte or bool tensors");
            }
        }
    }

    /** Whether some index is a bool mask: then the result's size is known only from its values. */
    public static boolean hasMask(List<? extends Tensor> indices) {
        for (Tensor t : indices) if (t != null && t.dtype() == DType.BOOL) return true;
        return false;
    }

    /** How many of self's dims the indices consume (a mask as many as it has), checked against self's rank. */
    public static int consumedDims(int selfRank, List<? extends Tensor> indices) {
        int used = 0;
        for (Tensor t : indices) used += t != null && t.dtype() == DType.BOOL ? t.dim() : 1;
        if (used > selfRank) throw new IndexOutOfBoundsException("too many indices for tensor of dimension " + selfRank + " (got " + used + ")");
        return used;
    }

    /**
     * The result's shape, from shapes alone when no index is a bool mask (fake tensors too); a mask's
     * true elements are counted, so a mask must hold data. Checks ATen's errors: types, rank,
     * mask sizes, broadcasting.
     */
    public static int[] resultShape(int[] self, List<? extends Tensor> indices) {
        checkTypes(indices);
        consumedDims(self.length, indices);
        Indexed n = normalize(self, new int[self.length], indices);
        List<int[]> shapes = new ArrayList<>();
        for (Tensor t : n.indices()) {
            if (t == null || t.dtype() != DType.BOOL) {
                shapes.add(t == null ? null : t.shape());
                continue;
            }
            checkMask(n.shape(), shapes.size(), t);
            int count = 0;
            for (boolean f : t.toBooleanArray()) if (f) count++;
            for (int j = 0; j < t.dim(); j++) shapes.add(new int[] {count});
        }
        return layout(n.shape(), shapes).shape;
    }

    /** The positions of {@code self}'s elements that {@code self[indices]} names (read or written), the indices checked against self's sizes. */
    public static Plan plan(Tensor self, List<? extends Tensor> indices) {
        checkTypes(indices);
        consumedDims(self.dim(), indices);
        Indexed n = normalize(self.shape(), self.strides(), indices);
        int[] selfShape = n.shape(), strides = n.strides();
        List<Tensor> expanded = expandMasks(selfShape, n.indices());
        List<int[]> shapes = new ArrayList<>();
        for (Tensor t : expanded) shapes.add(t == null ? null : t.shape());
        Layout l = layout(selfShape, shapes);
        // each broadcast index position's offset into self: the sum of its indexed dims' positions times their strides
        int nb = Shapes.numel(l.broadcast);
        int[] indexed = new int[nb];
        for (int d = 0, ordinal = 0; d < expanded.size(); d++) {
            Tensor t = expanded.get(d);
            if (t == null) continue;
            int named = ordinal++;   // ATen's message counts the index tensors, not self's dims
            long[] values = broadcastValues(t, l.broadcast);
            int size = selfShape[d];
            for (int b = 0; b < nb; b++) {
                long v = values[b];
                if (v < -size || v >= size) throw new IndexOutOfBoundsException("index " + v + " is out of bounds for dimension " + named + " with size " + size);
                indexed[b] += (int) (v < 0 ? v + size : v) * strides[d];
            }
        }
        int[] before = offsets(selfShape, strides, l.sliceBefore), after = offsets(selfShape, strides, l.sliceAfter);
        int[] positions = new int[before.length * nb * after.length];
        int base = self.storageOffset(), p = 0;
        for (int o : before) for (int b : indexed) for (int i : after) positions[p++] = base + o + b + i;
        return new Plan(l.shape, positions);
    }

    /** Reads {@code plan}'s elements of {@code self} into a new contiguous tensor. */
    public static Tensor read(Tensor self, Plan plan) {
        Tensor out = Tensor.allocateUninitialized(dev.ember.tensor.TensorMeta.contiguous(self.dtype(), plan.shape()));
        Object src = self.storage().data(), dst = out.storage().data();
        int[] at = plan.positions();
        switch (self.dtype()) {
            case FLOAT32 -> { float[] s = (float[]) src, o = (float[]) dst; for (int i = 0; i < at.length; i++) o[i] = s[at[i]]; }
            case FLOAT64 -> { double[] s = (double[]) src, o = (double[]) dst; for (int i = 0; i < at.length; i++) o[i] = s[at[i]]; }
            case INT32 -> { int[] s = (int[]) src, o = (int[]) dst; for (int i = 0; i < at.length; i++) o[i] = s[at[i]]; }
            case INT64 -> { long[] s = (long[]) src, o = (long[]) dst; for (int i = 0; i < at.length; i++) o[i] = s[at[i]]; }
            case BOOL -> { byte[] s = (byte[]) src, o = (byte[]) dst; for (int i = 0; i < at.length; i++) o[i] = s[at[i]]; }
        }
        return out;
    }

    /**
     * Writes {@code values} (contiguous, of the plan's shape) into {@code target} at the plan's
     * positions, in order: the last write to a position repeated in the indices wins, or, with
     * {@code accumulate}, every write adds (bools: or), as ATen's CPU kernels.
     */
    public static void write(Tensor target, Plan plan, Tensor values, boolean accumulate) {
        Object src = values.storage().data(), dst = target.storage().data();
        int[] at = plan.positions();
        int v0 = values.storageOffset();
        switch (target.dtype()) {
            case FLOAT32 -> { float[] s = (float[]) src, o = (float[]) dst; for (int i = 0; i < at.length; i++) o[at[i]] = accumulate ? o[at[i]] + s[v0 + i] : s[v0 + i]; }
            case FLOAT64 -> { double[] s = (double[]) src, o = (double[]) dst; for (int i = 0; i < at.length; i++) o[at[i]] = accumulate ? o[at[i]] + s[v0 + i] : s[v0 + i]; }
            case INT32 -> { int[] s = (int[]) src, o = (int[]) dst; for (int i = 0; i < at.length; i++) o[at[i]] = accumulate ? o[at[i]] + s[v0 + i] : s[v0 + i]; }
            case INT64 -> { long[] s = (long[]) src, o = (long[]) dst; for (int i = 0; i < at.length; i++) o[at[i]] = accumulate ? o[at[i]] + s[v0 + i] : s[v0 + i]; }
            case BOOL -> { byte[] s = (byte[]) src, o = (byte[]) dst; for (int i = 0; i < at.length; i++) o[at[i]] = (byte) (accumulate ? o[at[i]] | s[v0 + i] : s[v0 + i]); }
        }
    }

    // ------------------------------------------------------------------ the layout of the result

    /** The result's shape, the broadcast index shape, and the dims of self sliced whole before and after it in the result. */
    private record Layout(int[] shape, int[] broadcast, int[] sliceBefore, int[] sliceAfter) {}

    /** {@code indices} one per dim (masks already expanded; null: a whole dim), self's later dims whole. */
    private static Layout layout(int[] self, List<int[]> indices) {
        List<Integer> indexedDims = new ArrayList<>();
        int[] broadcast = null;
        for (int d = 0; d < indices.size(); d++) {
            int[] s = indices.get(d);
            if (s == null) continue;
            indexedDims.add(d);
            broadcast = broadcast == null ? s : broadcastIndices(broadcast, s, indices);
        }
        if (broadcast == null) {
            int[] all = new int[self.length];
            for (int d = 0; d < all.length; d++) all[d] = d;
            return new Layout(self.clone(), new int[0], new int[0], all);
        }
        boolean adjacent = indexedDims.getLast() - indexedDims.getFirst() + 1 == indexedDims.size();
        List<Integer> before = new ArrayList<>(), after = new ArrayList<>();
        for (int d = 0; d < self.length; d++) {
            if (indexedDims.contains(d)) continue;
            (adjacent && d < indexedDims.getFirst() ? before : after).add(d);
        }
        int[] shape = new int[before.size() + broadcast.length + after.size()];
        int k = 0;
        for (int d : before) shape[k++] = self[d];
        for (int s : broadcast) shape[k++] = s;
        for (int d : after) shape[k++] = self[d];
        return new Layout(shape, broadcast, before.stream().mapToInt(Integer::intValue).toArray(), after.stream().mapToInt(Integer::intValue).toArray());
    }

    private static int[] broadcastIndices(int[] a, int[] b, List<int[]> all) {
        try {
            return Shapes.broadcast("index", a, b);
        } catch (IllegalArgumentException e) {
            StringBuilder shapes = new StringBuilder();
            for (int[] s : all) {
                if (s == null) continue;
                if (!shapes.isEmpty()) shapes.append(", ");
                shapes.append(Shapes.format(s));
            }
            throw new IndexOutOfBoundsException("shape mismatch: indexing tensors could not be broadcast together with shapes " + shapes);
        }
    }

    /** Self's shape and strides and the indices, a 0-d mask made a 1-d one over a new dim of size 1 (Python's {@code x[True]}). */
    private record Indexed(int[] shape, int[] strides, List<Tensor> indices) {}

    private static Indexed normalize(int[] shape, int[] strides, List<? extends Tensor> indices) {
        List<Tensor> out = new ArrayList<>(indices);
        int[] sh = shape, st = strides;
        for (int k = 0, at = 0; k < out.size(); k++) {
            Tensor t = out.get(k);
            if (t != null && t.dtype() == DType.BOOL && t.dim() == 0) {
                sh = inserted(sh, at, 1);
                st = inserted(st, at, 0);
                out.set(k, t.reshape(1));
            }
            at += t != null && t.dtype() == DType.BOOL ? Math.max(t.dim(), 1) : 1;
        }
        return new Indexed(sh, st, out);
    }

    private static int[] inserted(int[] a, int at, int v) {
        int[] out = new int[a.length + 1];
        System.arraycopy(a, 0, out, 0, at);
        out[at] = v;
        System.arraycopy(a, at, out, at + 1, a.length - at);
        return out;
    }

    /** A mask's sizes must be those of the dims it covers, from {@code at}. */
    private static void checkMask(int[] self, int at, Tensor mask) {
        for (int j = 0; j < mask.dim(); j++) {
            if (mask.size(j) != self[at + j]) {
                throw new IndexOutOfBoundsException("The shape of the mask " + Shapes.format(mask.shape()) + " at index " + j
                        + " does not match the shape of the indexed tensor " + Shapes.format(self) + " at index " + (at + j));
            }
        }
    }

    /** Each bool mask replaced by its nonzero() columns, one per dim it covers, its sizes checked against self's. */
    private static List<Tensor> expandMasks(int[] self, List<? extends Tensor> indices) {
        List<Tensor> out = new ArrayList<>();
        for (Tensor t : indices) {
            if (t == null || t.dtype() != DType.BOOL) {
                out.add(t);
                continue;
            }
            checkMask(self, out.size(), t);
            out.addAll(nonzeroColumns(t));
        }
        return out;
    }

    /** The row-major coordinates of a mask's true elements, one int64 vector per dim. */
    private static List<Tensor> nonzeroColumns(Tensor mask) {
        Tensor dense = Tensor.allocateUninitialized(dev.ember.tensor.TensorMeta.contiguous(DType.BOOL, mask.shape()));
        Copy.copy(mask, dense);
        byte[] flags = dense.storage().bools();
        int rank = mask.dim(), n = 0;
        for (byte f : flags) if (f != 0) n++;
        long[][] columns = new long[rank][n];
        int[] shape = mask.shape(), index = new int[rank];
        for (int i = 0, row = 0; i < flags.length; i++) {
            if (flags[i] != 0) {
                for (int d = 0; d < rank; d++) columns[d][row] = index[d];
                row++;
            }
            for (int d = rank - 1; d >= 0 && ++index[d] == shape[d]; d--) index[d] = 0;   // odometer
        }
        List<Tensor> out = new ArrayList<>();
        for (long[] c : columns) out.add(Tensor.wrap(new Storage(DType.INT64, c), new int[] {n}, new int[] {1}, 0));
        return out;
    }

    /** An index tensor's values broadcast to {@code shape}, as int64, row-major. */
    private static long[] broadcastValues(Tensor index, int[] shape) {
        Tensor dense = Tensor.allocateUninitialized(dev.ember.tensor.TensorMeta.contiguous(DType.INT64, shape));
        Copy.copy(index, dense);
        long[] all = dense.storage().longs();
        return all.length == Shapes.numel(shape) ? all : Arrays.copyOf(all, Shapes.numel(shape));
    }

    /** The storage offsets of every element of the sub-tensor of {@code dims} (row-major over them). */
    private static int[] offsets(int[] shape, int[] strides, int[] dims) {
        int n = 1;
        for (int d : dims) n *= shape[d];
        int[] out = new int[n];
        int[] index = new int[dims.length];
        for (int i = 0; i < n; i++) {
            int off = 0;
            for (int k = 0; k < dims.length; k++) off += index[k] * strides[dims[k]];
            out[i] = off;
            for (int k = dims.length - 1; k >= 0 && ++index[k] == shape[dims[k]]; k--) index[k] = 0;
        }
        return out;
    }
}
