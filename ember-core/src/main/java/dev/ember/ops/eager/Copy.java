package dev.ember.ops.eager;

import dev.ember.kernels.StridedLoop;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;

/** Element copies between tensors of any strides and dtypes (C-style casts), and single-element reads. */
public final class Copy {
    private Copy() {}

    /** Writes {@code src}, broadcast to {@code dst}'s shape and converted to its dtype, into {@code dst}. */
    public static void copy(Tensor src, Tensor dst) {
        int[] shape = dst.shape();
        int[] srcStrides = Shapes.broadcastStrides(src.shape(), src.strides(), shape);
        StridedLoop loop = new StridedLoop(shape, new int[][] {dst.strides(), srcStrides}, new int[] {dst.storageOffset(), src.storageOffset()});
        Storage d = dst.storage(), s = src.storage();
        int ds = loop.innerStride(0), ss = loop.innerStride(1);
        if (d.dtype() == s.dtype()) {
            Object da = d.data(), sa = s.data();
            if (ds == 1 && ss == 1) {
                loop.forEachRow((off, n) -> System.arraycopy(sa, off[1], da, off[0], n));
                return;
            }
            if (transposing(loop) && copyTransposed(loop, d, s)) return;
            switch (d.dtype()) {
                case FLOAT32 -> { float[] o = d.floats(), a = s.floats(); loop.forEachRow((off, n) -> { for (int i = 0, p = off[0], q = off[1]; i < n; i++, p += ds, q += ss) o[p] = a[q]; }); }
                case FLOAT64 -> { double[] o = d.doubles(), a = s.doubles(); loop.forEachRow((off, n) -> { for (int i = 0, p = off[0], q = off[1]; i < n; i++, p += ds, q += ss) o[p] = a[q]; }); }
                case INT32 -> { int[] o = d.ints(), a = s.ints(); loop.forEachRow((off, n) -> { for (int i = 0, p = off[0], q = off[1]; i < n; i++, p += ds, q += ss) o[p] = a[q]; }); }
                case INT64 -> { long[] o = d.longs(), a = s.longs(); loop.forEachRow((off, n) -> { for (int i = 0, p = off[0], q = off[1]; i < n; i++, p += ds, q += ss) o[p] = a[q]; }); }
                case BOOL -> { byte[] o = d.bools(), a = s.bools(); loop.forEachRow((off, n) -> { for (int i = 0, p = off[0], q = off[1]; i < n; i++, p += ds, q += ss) o[p] = a[q]; }); }
            }
            return;
        }
        boolean exactIntegral = !s.dtype().isFloatingPoint() && !d.dtype().isFloatingPoint();
        loop.forEachRow((off, n) -> {
            for (int i = 0, p = off[0], q = off[1]; i < n; i++, p += ds, q += ss) {
                if (exactIntegral) d.writeLong(p, s.readLong(q));
                else d.writeDouble(p, s.readDouble(q));
            }
        });
    }

    /**
     * Elements per side of a transposing copy's tile. A default measured on one host (2 cores,
     * AVX-512, 48 KB L1d; best of 50 copies of a 2048 x 2048 float transpose, output allocation
     * included): a row at a time 16.1 ms; tiles of 8: 13–16, 16: 14, 32: 8.0–9.3, 64: 6.9–7.6.
     */
    private static final int TILE = 64;

    /**
     * Whether the walk transposes: the destination is stride 1 along the row and the source along
     * the dimension before it, over rows long enough that reading the source a row at a time would
     * touch a new cache line per element ({@code x.t().contiguous()}, a transposed gradient cloned).
     */
    private static boolean transposing(StridedLoop loop) {
        return loop.dims() >= 2 && loop.innerStride(0) == 1 && loop.outerStride(1) == 1 && loop.rowLength() >= TILE;
    }

    /** The same-dtype copy of a transposing walk in L1-sized tiles; false for a dtype it does not cover. */
    private static boolean copyTransposed(StridedLoop loop, Storage d, Storage s) {
        int dRow = loop.outerStride(0), sCol = loop.innerStride(1);
        switch (d.dtype()) {
            case FLOAT32 -> {
                float[] o = d.floats(), a = s.floats();
                loop.forEachTile(TILE, (off, rows, cols) -> {
                    for (int i = 0; i < rows; i++) {
                        for (int j = 0, p = off[0] + i * dRow, q = off[1] + i; j < cols; j++, p++, q += sCol) o[p] = a[q];
                    }
                });
            }
            case FLOAT64 -> {
                double[] o = d.doubles(), a = s.doubles();
                loop.forEachTile(TILE, (off, rows, cols) -> {
                    for (int i = 0; i < rows; i++) {
                        for (int j = 0, p = off[0] + i * dRow, q = off[1] + i; j < cols; j++, p++, q += sCol) o[p] = a[q];
                    }
                });
            }
            default -> { return false; }
        }
        return true;
    }

    /** Fills every element of {@code dst} with {@code value} (a Double, Long or Boolean), converted to its dtype. */
    public static void fill(Tensor dst, Object value) {
        Storage d = dst.storage();
        StridedLoop loop = new StridedLoop(dst.shape(), new int[][] {dst.strides()}, new int[] {dst.storageOffset()});
        int ds = loop.innerStride(0);
        DType t = d.dtype();
        double dv = value instanceof Boolean b ? (b ? 1 : 0) : ((Number) value).doubleValue();
        long lv = value instanceof Boolean b ? (b ? 1 : 0) : value instanceof Double x ? (long) (double) x : ((Number) value).longValue();
        loop.forEachRow((off, n) -> {
            int end = off[0] + n * ds;
            switch (t) {
                case FLOAT32 -> { float[] o = d.floats(); float v = (float) dv; if (ds == 1) java.util.Arrays.fill(o, off[0], end, v); else for (int i = 0, p = off[0]; i < n; i++, p += ds) o[p] = v; }
                case FLOAT64 -> { double[] o = d.doubles(); if (ds == 1) java.util.Arrays.fill(o, off[0], end, dv); else for (int i = 0, p = off[0]; i < n; i++, p += ds) o[p] = dv; }
                case INT32 -> { int[] o = d.ints(); int v = (int) lv; if (ds == 1) java.util.Arrays.fill(o, off[0], end, v); else for (int i = 0, p = off[0]; i < n; i++, p += ds) o[p] = v; }
                case INT64 -> { long[] o = d.longs(); if (ds == 1) java.util.Arrays.fill(o, off[0], end, lv); else for (int i = 0, p = off[0]; i < n; i++, p += ds) o[p] = lv; }
                case BOOL -> { byte[] o = d.bools(); byte v = (byte) (dv != 0 ? 1 : 0); if (ds == 1) java.util.Arrays.fill(o, off[0], end, v); else for (int i = 0, p = off[0]; i < n; i++, p += ds) o[p] = v; }
            }
        });
    }
}
