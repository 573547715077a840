package dev.ember.ops;

import dev.ember.kernels.Attention;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;

/**
 * Neural-network ops with no single-kernel home elsewhere: scaled_dot_product_attention and
 * one_hot. Attention's decomposition (scale, matmul, mask, safe softmax, dropout, matmul) is ATen's
 * math backend step for step: autograd differentiates through it and training graphs are built
 * from it. Its kernel, which runs where no gradient is recorded (eager under no_grad or on inputs
 * that need none, and inference graphs, where the op stays one extern node), is the fused
 * flash-attention kernel ({@link Attention}) of the same semantics, unless dropout is asked for:
 * then the decomposition runs, so the random draws are the generator's, as everywhere else.
 */
public final class NnOps {
    private NnOps() {}

    private static final String SDPA = "scaled_dot_product_attention";

    public static final OpOverload SCALED_DOT_PRODUCT_ATTENTION = OpOverload.define(SDPA
                    + "(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, float? scale=None) -> Tensor")
            .meta(NnOps::attentionMeta)
            .kernel((a, m) -> a.dbl(4) == 0 ? fusedAttention(a, (TensorMeta) m) : ((Tensor) attention(OpEmitter.EAGER, a.toArray())).contiguous())
            .decomposition(NnOps::attention)
            .register();

    /**
     * One-hot int64 rows for int64 class indices. With {@code num_classes=-1} the class count is
     * the largest index + 1, which only real data can tell: on fake tensors (while tracing) that is
     * refused, so a compiled function breaks its graph there and runs the op eagerly.
     */
    public static final OpOverload ONE_HOT = OpOverload.define("one_hot(Tensor self, int num_classes=-1) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0);
                long classes = a.lng(1);
                if (self.dtype() != DType.INT64) throw new IllegalArgumentException("one_hot: one_hot is only applicable to index tensor of type LongTensor.");
                if (self.numel() == 0) {
                    if (classes <= 0) throw new IllegalArgumentException("one_hot: Can not infer total number of classes from empty tensor.");
                } else if (self.isFake()) {
                    if (classes == -1) {
                        throw new IllegalArgumentException("one_hot: with num_classes=-1 the output's size is the largest class index + 1, "
                                + "known only from the data; pass num_classes to trace one_hot");
                    }
                } else {
                    long[] v = self.toLongArray();
                    long min = Arrays.stream(v).min().orElseThrow(), max = Arrays.stream(v).max().orElseThrow();
                    if (min < 0) throw new IllegalArgumentException("one_hot: Class values must be non-negative.");
                    if (classes == -1) classes = max + 1;
                    else if (classes <= max) throw new IllegalArgumentException("one_hot: Class values must be smaller than num_classes.");
                }
                int[] shape = Arrays.copyOf(self.shape(), self.dim() + 1);
                shape[self.dim()] = Math.toIntExact(classes);
                return TensorMeta.contiguous(DType.INT64, shape);
            })
            .kernel((a, m) -> {
                Tensor out = Tensor.allocate((TensorMeta) m);
                long[] classes = a.tensor(0).toLongArray(), data = out.storage().longs();
                int width = out.size(-1);
                // the meta function has checked every class against the width (real tensors reach it before the kernel)
                for (int i = 0; i < classes.length; i++) data[i * width + (int) classes[i]] = 1;
                return out;
            })
            .register();

    /**
     * {@code F.pad}'s constant mode: {@code pad} holds (before, after) pairs from the last dim
     * backwards; a negative amount crops. Crops are narrows, and each padded dim a concatenation
     * with blocks of {@code value}, so autograd and the compiler see only existing ops.
     */
    public static final OpOverload CONSTANT_PAD_ND = ComposedOps.composed("constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor",
                    a -> TensorMeta.contiguous(a.tensor(0).dtype(), paddedShape(a.tensor(0).shape(), a.ints(1))),
                    (e, a) -> {
                        int[] pad = Composites.toInts(a[1]);
                        TensorMeta in = e.meta(a[0]);
                        Object out = a[0];
                        for (int k = 0; k < pad.length / 2; k++) {
                            int dim = in.dim() - 1 - k, before = pad[2 * k], after = pad[2 * k + 1];
                            if (before >= 0 && after >= 0) continue;
                            int start = Math.max(-before, 0);
                            int length = e.meta(out).shape()[dim] - start - Math.max(-after, 0);
                            out = e.call(ShapeOps.NARROW, out, (long) dim, (long) start, (long) length);
                        }
                        for (int k = 0; k < pad.length / 2; k++) {
                            int dim = in.dim() - 1 - k, before = Math.max(pad[2 * k], 0), after = Math.max(pad[2 * k + 1], 0);
                            if (before == 0 && after == 0) continue;
                            java.util.List<Object> parts = new java.util.ArrayList<>();
                            int[] block = e.meta(out).shape();
                            if (before > 0) parts.add(filled(e, block, dim, before, a[2], in.dtype()));
                            parts.add(out);
                            if (after > 0) parts.add(filled(e, block, dim, after, a[2], in.dtype()));
                            out = e.call(ShapeOps.CAT, parts, (long) dim);
                        }
                        // no padding at all: still a new tensor, as ATen's
                        return out == a[0] ? e.call(ShapeOps.CLONE, out) : out;
                    })
            .register();

    private static TensorMeta attentionMeta(Args a) {
        Tensor q = a.tensor(0), k = a.tensor(1), v = a.tensor(2), mask = a.optTensor(3);
        if (q.dtype() != k.dtype() || q.dtype() != v.dtype()) {
            throw new IllegalArgumentException(SDPA + ": Expected query, key, and value to have the same dtype, but got query.dtype: " + q.dtype()
                    + " key.dtype: " + k.dtype() + " and value.dtype: " + v.dtype() + " instead.");
        }
        if (q.dim() < 2 || k.dim() < 2 || v.dim() < 2) {
            throw new IllegalArgumentException(SDPA + ": Expected query, key, and value to all be at least 2 dimensional, but got query.dim: " + q.dim()
                    + " key.dim: " + k.dim() + " and value.dim: " + v.dim() + " instead.");
        }
        if (!q.dtype().isFloatingPoint()) {
            throw new IllegalArgumentException(SDPA + ": Expected query, key, and value to be floating point, but got " + q.dtype());
        }
        if (mask != null && mask.dtype() != DType.BOOL && mask.dtype() != q.dtype()) {
            throw new IllegalArgumentException(SDPA + ": Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
                    + mask.dtype() + " and  query.dtype: " + q.dtype() + " instead.");
        }
        if (a.bool(5) && mask != null) {
            throw new IllegalArgumentException(SDPA + ": Explicit attn_mask should not be set when is_causal=True");
        }
        double p = a.dbl(4);
        if (!(p >= 0 && p <= 1)) throw new IllegalArgumentException(SDPA + ": dropout probability has to be between 0 and 1, but got " + p);
        int e = q.size(-1), l = q.size(-2), s = k.size(-2);
        if (k.size(-1) != e) {
            throw new IllegalArgumentException(SDPA + ": query and key must have the same embedding size (last dimension), but got query "
                    + Shapes.format(q.shape()) + " and key " + Shapes.format(k.shape()));
        }
        if (v.size(-2) != s) {
            throw new IllegalArgumentException(SDPA + ": key and value must have the same sequence length (dimension -2), but got key "
                    + Shapes.format(k.shape()) + " and value " + Shapes.format(v.shape()));
        }
        int[] batch = Shapes.broadcast(SDPA, Shapes.broadcast(SDPA, batchDims(q), batchDims(k)), batchDims(v));
        if (mask != null) {
            int[] scores = append(batch, l, s);
            if (!broadcastsTo(mask.shape(), scores)) {
                throw new IllegalArgumentException(SDPA + ": attn_mask of shape " + Shapes.format(mask.shape())
                        + " cannot be broadcast to the attention scores' shape " + Shapes.format(scores));
            }
        }
        return TensorMeta.contiguous(q.dtype(), append(batch, l, v.size(-1)));
    }

    /**
     * ATen's math attention: query and key are each scaled by sqrt(scale) before the product, a bool
     * mask becomes an additive 0/-inf bias, and a row whose scores are all -inf gives zeros (ATen's
     * {@code _safe_softmax}) instead of NaN. It is the op's kernel (run eagerly) and its
     * decomposition: eager autograd differentiates attention through it (dropout recording its mask
     * as native_dropout); AOT keeps the op whole.
     */
    private static Object attention(OpEmitter e, Object[] a) {
        Object q = a[0], k = a[1], v = a[2], mask = a[3];
        TensorMeta qm = e.meta(q), km = e.meta(k);
        double dropoutP = ((Number) a[4]).doubleValue();
        double scale = a[6] != null ? ((Number) a[6]).doubleValue() : 1.0 / Math.sqrt(qm.shape()[qm.dim() - 1]);
        double factor = Math.sqrt(Math.abs(scale));
        Object kt = e.call(PointwiseOps.MUL_SCALAR, e.call(ShapeOps.TRANSPOSE, k, -2, -1), factor);
        Object scores = e.call(LinalgOps.MATMUL, e.call(PointwiseOps.MUL_SCALAR, q, scale < 0 ? -factor : factor), kt);
        int l = qm.shape()[qm.dim() - 2], s = km.shape()[km.dim() - 2];
        if ((Boolean) a[5]) {
            Object rows = e.call(ShapeOps.UNSQUEEZE, e.call(CreationOps.ARANGE, 0L, (long) l, 1L), -1);
            mask = e.call(PointwiseOps.GE_TENSOR, rows, e.call(CreationOps.ARANGE, 0L, (long) s, 1L));
        }
        if (mask != null) {
            TensorMeta mm = e.meta(mask);
            Object bias = mm.dtype() == DType.BOOL
                    ? e.call(PointwiseOps.MASKED_FILL_SCALAR, e.call(CreationOps.ZEROS, mm.shape(), qm.dtype()), e.call(PointwiseOps.LOGICAL_NOT, mask), Double.NEGATIVE_INFINITY)
                    : mask;
            scores = e.call(PointwiseOps.ADD_TENSOR, scores, bias);
        }
        Object weights;
        if (s > 0) {
            Object live = e.call(PointwiseOps.NE_SCALAR, e.call(ReductionOps.AMAX, scores, new int[] {-1}, true), Double.NEGATIVE_INFINITY);
            // a row with no live score takes its softmax over zeros, not over -inf: its weights are 0 either
            // way, but softmax's backward multiplies by them, and NaN times the 0 gradient the where gives
            // the row is NaN (the query's gradient was NaN where libtorch's _safe_softmax gives 0)
            if (mask != null) scores = e.call(PointwiseOps.WHERE_SCALAR_OTHER, live, scores, 0.0);
            weights = e.call(PointwiseOps.WHERE_SCALAR_OTHER, live, e.call(ReductionOps.SOFTMAX, scores, -1L, false), 0.0);
        } else {
            weights = e.call(ReductionOps.SOFTMAX, scores, -1L, false);
        }
        if (dropoutP > 0) weights = e.call(PointwiseOps.DROPOUT, weights, dropoutP, true);
        return e.call(LinalgOps.MATMUL, weights, v);
    }

    /** The fused kernel's call: each operand read in place through its (broadcast) batch offsets and strides. */
    private static Tensor fusedAttention(Args a, TensorMeta outMeta) {
        Tensor q = a.tensor(0), k = a.tensor(1), v = a.tensor(2), mask = a.optTensor(3);
        int[] outShape = outMeta.shape();
        int[] batch = Arrays.copyOf(outShape, outShape.length - 2);
        int l = q.size(-2), s = k.size(-2), e = q.size(-1), ev = v.size(-1);
        Double scale = a.optDbl(6);
        Operand qo = operand(q, batch, l, e), ko = operand(k, batch, s, e), vo = operand(v, batch, s, ev);
        Operand mo = mask == null ? null : operand(mask, batch, l, s);
        Attention.MaskKind kind = mask == null ? Attention.MaskKind.NONE : mask.dtype() == DType.BOOL ? Attention.MaskKind.BOOL : Attention.MaskKind.ADDITIVE;
        var layout = new Attention.Layout(Shapes.numel(batch), l, s, e, ev,
                qo.offsets, qo.rowStride, qo.colStride, ko.offsets, ko.rowStride, ko.colStride, vo.offsets, vo.rowStride, vo.colStride,
                kind, mo == null ? null : mo.offsets, mo == null ? 0 : mo.rowStride, mo == null ? 0 : mo.colStride,
                a.bool(5), scale != null ? scale : 1.0 / Math.sqrt(e));
        Tensor out = Tensor.allocate(outMeta);
        Object maskData = mask == null ? null : mask.storage().data();
        if (q.dtype() == DType.FLOAT32) {
            Attention.forward(layout, q.storage().floats(), k.storage().floats(), v.storage().floats(), maskData, out.storage().floats());
        } else {
            Attention.forward(layout, q.storage().doubles(), k.storage().doubles(), v.storage().doubles(), maskData, out.storage().doubles());
        }
        return out;
    }

    /** Where an operand's {@code [rows, cols]} matrix of each batch element starts, and its two strides. */
    private record Operand(int[] offsets, int rowStride, int colStride) {}

    private static Operand operand(Tensor t, int[] batch, int rows, int cols) {
        int[] target = append(batch, rows, cols);
        int[] strides = Shapes.broadcastStrides(t.shape(), t.strides(), target);
        int[] offsets = new int[Shapes.numel(batch)];
        int[] index = new int[batch.length];
        for (int i = 0, off = t.storageOffset(); i < offsets.length; i++) {
            offsets[i] = off;
            for (int d = batch.length - 1; d >= 0; d--) {          // odometer over the batch dims
                off += strides[d];
                if (++index[d] < batch[d]) break;
                off -= strides[d] * batch[d];
                index[d] = 0;
            }
        }
        return new Operand(offsets, strides[batch.length], strides[batch.length + 1]);
    }

    private static boolean broadcastsTo(int[] shape, int[] target) {
        if (shape.length > target.length) return false;
        for (int i = 1; i <= shape.length; i++) {
            int size = shape[shape.length - i];
            if (size != 1 && size != target[target.length - i]) return false;
        }
        return true;
    }

    private static int[] batchDims(Tensor t) { return Arrays.copyOf(t.shape(), t.dim() - 2); }

    private static int[] append(int[] batch, int x, int y) {
        int[] out = Arrays.copyOf(batch, batch.length + 2);
        out[batch.length] = x;
        out[batch.length + 1] = y;
        return out;
    }
    /** ATen's constant_pad_nd checks and output shape. */
    private static int[] paddedShape(int[] shape, int[] pad) {
        String op = "constant_pad_nd";
        if (pad.length % 2 != 0) throw new IllegalArgumentException(op + ": Length of pad must be even but instead it equals " + pad.length);
        if (shape.length < pad.length / 2) {
            throw new IllegalArgumentException(op + ": Length of pad should be no more than twice the number of dimensions of the input. Pad length is "
                    + pad.length + " while the input has " + shape.length + " dimensions.");
        }
        int[] out = shape.clone();
        for (int k = 0; k < pad.length / 2; k++) {
            int dim = shape.length - 1 - k;
            long size = (long) shape[dim] + pad[2 * k] + pad[2 * k + 1];
            if (size < 0) {
                throw new IllegalArgumentException(op + ": The input size " + shape[dim] + ", plus negative padding " + pad[2 * k] + " and " + pad[2 * k + 1]
                        + " resulted in a negative output size, which is invalid. Check dimension " + dim + " of your input.");
            }
            out[dim] = Math.toIntExact(size);
        }
        return out;
    }

    /** A block of {@code value} shaped like {@code shape} but {@code size} long along {@code dim}. */
    private static Object filled(OpEmitter e, int[] shape, int dim, int size, Object value, DType dtype) {
        int[] block = shape.clone();
        block[dim] = size;
        return e.call(CreationOps.FULL, block, value, dtype);
    }
}
