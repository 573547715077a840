package dev.ember.ops;

import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;

import java.util.Arrays;
import java.util.List;

/**
 * nn ops that are other ops put together (ATen's CompositeImplicitAutograd ones): pixel_shuffle and
 * pixel_unshuffle (a reshape, a permute, a reshape), bilinear (one matrix product and a weighted
 * sum), and the losses margin_ranking_loss, cosine_embedding_loss and triplet_margin_loss, each in
 * ATen's formula and with its checks, so eager, autograd and the compiler compute the same thing.
 */
public final class NnComposites {
    private NnComposites() {}

    /**
     * Channel dropout, as ATen's feature_dropout (what F.dropout1d/2d/3d call): in training, each
     * whole channel {@code [n, c, …]} is zeroed with probability p and the others scaled by
     * 1/(1−p), one bernoulli draw per (batch, channel); otherwise (or for p = 0) the input unchanged.
     */
    public static final OpOverload FEATURE_DROPOUT = ComposedOps.define("feature_dropout(Tensor input, float p, bool train) -> Tensor",
            a -> {
                double p = a.dbl(1);
                if (!(p >= 0 && p <= 1)) throw new IllegalArgumentException("dropout probability has to be between 0 and 1, but got " + p);
                if (a.bool(2) && p > 0 && a.tensor(0).dim() < 2) {
                    throw new IllegalArgumentException("Feature dropout requires at least 2 dimensions in the input");
                }
            },
            (e, a) -> {
                double p = ((Number) a[1]).doubleValue();
                var meta = e.meta(a[0]);
                if (p == 0 || !(Boolean) a[2] || meta.numel() == 0) return e.call(ShapeOps.CLONE, a[0]);
                if (p == 1) return e.call(PointwiseOps.MUL_TENSOR, a[0], e.call(CreationOps.ZEROS, new int[0], meta.dtype()));
                int[] s = meta.shape(), noise = new int[s.length];
                Arrays.fill(noise, 1);
                noise[0] = s[0];
                noise[1] = s[1];
                Object kept = e.call(CreationOps.BERNOULLI_P, e.call(CreationOps.ZEROS, noise, meta.dtype()), 1 - p);
                return e.call(PointwiseOps.MUL_TENSOR, a[0], e.call(PointwiseOps.DIV_SCALAR, kept, 1 - p));
            });

    /** {@code [*, C·r², H, W]} → {@code [*, C, H·r, W·r]}: each group of r² channels becomes an r×r block of pixels. */
    public static final OpOverload PIXEL_SHUFFLE = ComposedOps.define("pixel_shuffle(Tensor self, int upscale_factor) -> Tensor",
            a -> {
                Tensor x = a.tensor(0);
                int r = a.integer(1);
                if (x.dim() < 3) {
                    throw new IllegalArgumentException("pixel_shuffle expects input to have at least 3 dimensions, but got input with " + x.dim() + " dimension(s)");
                }
                if (r <= 0) throw new IllegalArgumentException("pixel_shuffle expects a positive upscale_factor, but got " + r);
                if (x.size(-3) % (r * r) != 0) {
                    throw new IllegalArgumentException("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)="
                            + x.size(-3) + " is not divisible by " + r * r);
                }
            },
            (e, a) -> {
                int[] s = e.meta(a[0]).shape();
                int r = ((Number) a[1]).intValue(), n = s.length, c = s[n - 3] / (r * r), h = s[n - 2], w = s[n - 1];
                int[] batch = Arrays.copyOf(s, n - 3);
                Object x = e.call(ShapeOps.RESHAPE, a[0], append(batch, c, r, r, h, w));
                int b = batch.length;
                x = e.call(ShapeOps.PERMUTE, x, append(range(b), b, b + 3, b + 1, b + 4, b + 2));
                return e.call(ShapeOps.RESHAPE, x, append(batch, c, h * r, w * r));
            });

    /**
     * {@code [N, C, *]} with its channels in {@code groups} groups interleaved (ShuffleNet's shuffle),
     * as ATen's channel_shuffle: reshaped to {@code [N, g, C/g, *]}, groups and channels swapped,
     * reshaped back.
     */
    public static final OpOverload CHANNEL_SHUFFLE = ComposedOps.define("channel_shuffle(Tensor self, SymInt groups) -> Tensor",
            a -> {
                Tensor x = a.tensor(0);
                int g = a.integer(1);
                if (x.dim() <= 2) {
                    throw new IllegalArgumentException("channel_shuffle expects input with > 2 dims, but got input with sizes " + Shapes.format(x.shape()));
                }
                if (g <= 0) throw new IllegalArgumentException("Number of groups to divide channels in must be positive. Value of groups:" + g);
                if (x.size(1) % g != 0) {
                    throw new IllegalArgumentException("Number of channels must be divisible by groups. Got " + x.size(1) + " channels and " + g + " groups.");
                }
            },
            (e, a) -> {
                int[] s = e.meta(a[0]).shape();
                int g = ((Number) a[1]).intValue();
                int[] split = new int[s.length + 1];
                split[0] = s[0];
                split[1] = g;
                split[2] = s[1] / g;
                System.arraycopy(s, 2, split, 3, s.length - 2);
                return e.call(ShapeOps.RESHAPE, e.call(ShapeOps.TRANSPOSE, e.call(ShapeOps.RESHAPE, a[0], split), 1L, 2L), s);
            });

    /** {@code [*, C, H·r, W·r]} → {@code [*, C·r², H, W]}: pixel_shuffle's inverse. */
    public static final OpOverload PIXEL_UNSHUFFLE = ComposedOps.define("pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor",
            a -> {
                Tensor x = a.tensor(0);
                int r = a.integer(1);
                if (x.dim() < 3) {
                    throw new IllegalArgumentException("pixel_unshuffle expects input to have at least 3 dimensions, but got input with " + x.dim() + " dimension(s)");
                }
                if (r <= 0) throw new IllegalArgumentException("pixel_unshuffle expects a positive downscale_factor, but got " + r);
                if (x.size(-2) % r != 0) {
                    throw new IllegalArgumentException("pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=" + x.size(-2)
                            + " is not divisible by " + r);
                }
                if (x.size(-1) % r != 0) {
                    throw new IllegalArgumentException("pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=" + x.size(-1)
                            + " is not divisible by " + r);
                }
            },
            (e, a) -> {
                int[] s = e.meta(a[0]).shape();
                int r = ((Number) a[1]).intValue(), n = s.length, c = s[n - 3], h = s[n - 2] / r, w = s[n - 1] / r;
                int[] batch = Arrays.copyOf(s, n - 3);
                Object x = e.call(ShapeOps.RESHAPE, a[0], append(batch, c, h, r, w, r));
                int b = batch.length;
                x = e.call(ShapeOps.PERMUTE, x, append(range(b), b, b + 2, b + 4, b + 1, b + 3));
                return e.call(ShapeOps.RESHAPE, x, append(batch, c * r * r, h, w));
            });

    /**
     * {@code y[..., o] = Σ_ij x1[..., i] · W[o, i, j] · x2[..., j] + b[o]}: x1 times W (one matrix
     * product over the flattened leading dims), then weighted by x2 and summed.
     */
    public static final OpOverload BILINEAR = ComposedOps.define("bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor",
            a -> {
                Tensor x1 = a.tensor(0), x2 = a.tensor(1), w = a.tensor(2), b = a.optTensor(3);
                if (x1.dim() != x2.dim()) throw new IllegalArgumentException("bilinear(): input dimensions do not match: got " + x1.dim() + " and " + x2.dim());
                for (int i = 0; i < x1.dim() - 1; i++) {
                    if (x1.size(i) != x2.size(i)) throw new IllegalArgumentException("bilinear(): input batch dimensions do not match: got " + x1.size(i) + " and " + x2.size(i));
                }
                if (w.dim() != 3) throw new IllegalArgumentException("bilinear(): weight must be 3-D [out, in1, in2], got " + Shapes.format(w.shape()));
                if (x1.size(-1) != w.size(1)) {
                    throw new IllegalArgumentException("bilinear(): input1 size does not match weight size: got " + x1.size(-1) + " but expected " + w.size(1));
                }
                if (x2.size(-1) != w.size(2)) {
                    throw new IllegalArgumentException("bilinear(): input2 size does not match weight size: got " + x2.size(-1) + " but expected " + w.size(2));
                }
                if (b != null && b.size(0) != w.size(0)) {
                    throw new IllegalArgumentException("bilinear(): bias size does not match weight size: got " + b.size(0) + " but expected " + w.size(0));
                }
            },
            (e, a) -> {
                int[] s1 = e.meta(a[0]).shape(), w = e.meta(a[2]).shape();
                int out = w[0], in1 = w[1], in2 = w[2];
                int rows = 1;
                for (int i = 0; i < s1.length - 1; i++) rows *= s1[i];
                Object x1 = e.call(ShapeOps.RESHAPE, a[0], new int[] {rows, in1});
                Object x2 = e.call(ShapeOps.RESHAPE, a[1], new int[] {rows, 1, in2});
                Object weights = e.call(ShapeOps.RESHAPE, e.call(ShapeOps.PERMUTE, a[2], new int[] {1, 0, 2}), new int[] {in1, out * in2});
                Object left = e.call(ShapeOps.RESHAPE, e.call(LinalgOps.MM, x1, weights), new int[] {rows, out, in2});
                Object y = e.call(ReductionOps.SUM_DIM, e.call(PointwiseOps.MUL_TENSOR, left, x2), new int[] {2}, false);
                if (a[3] != null) y = e.call(PointwiseOps.ADD_TENSOR, y, a[3]);
                int[] shape = Arrays.copyOf(s1, s1.length);
                shape[shape.length - 1] = out;
                return e.call(ShapeOps.RESHAPE, y, shape);
            });

    /** {@code max(0, -target · (input1 - input2) + margin)}, reduced: ATen's margin_ranking_loss. */
    public static final OpOverload MARGIN_RANKING_LOSS = ComposedOps.define(
            "margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, int reduction=Mean) -> Tensor",
            (e, a) -> {
                Object gap = e.call(PointwiseOps.MUL_TENSOR, e.call(PointwiseOps.NEG, a[2]), e.call(PointwiseOps.SUB_TENSOR, a[0], a[1]));
                return LossOps.reduce(e, e.call(PointwiseOps.CLAMP, e.call(PointwiseOps.ADD_SCALAR, gap, a[3]), 0L, null), a[4]);
            });

    /**
     * ATen's cosine_embedding_loss: with {@code cos} the cosine of each pair (squared norms plus
     * 1e-12 under the root), {@code 1 - cos} where target is 1, {@code max(0, cos - margin)} where it
     * is -1, 0 elsewhere; reduced.
     */
    public static final OpOverload COSINE_EMBEDDING_LOSS = ComposedOps.define(
            "cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, int reduction=Mean) -> Tensor",
            a -> {
                Tensor x1 = a.tensor(0), x2 = a.tensor(1), t = a.tensor(2);
                if (t.dim() > 1) throw new IllegalArgumentException("0D or 1D target tensor expected, multi-target not supported");
                boolean ok = t.dim() == 1 ? x1.dim() == 2 && x2.dim() == 2 : x1.dim() == 1 && x2.dim() == 1;
                if (!ok) {
                    throw new IllegalArgumentException((t.dim() == 1 ? "1D target tensor expects 2D input tensors" : "0D target tensor expects 1D input tensors")
                            + ", but found inputs with sizes " + Shapes.format(x1.shape()) + " and " + Shapes.format(x2.shape()) + ".");
                }
            },
            (e, a) -> {
                long dim = e.meta(a[2]).dim();
                int[] dims = {(int) dim};
                Object dot = e.call(ReductionOps.SUM_DIM, e.call(PointwiseOps.MUL_TENSOR, a[0], a[1]), dims, false);
                Object sq1 = e.call(PointwiseOps.ADD_SCALAR, e.call(ReductionOps.SUM_DIM, e.call(PointwiseOps.MUL_TENSOR, a[0], a[0]), dims, false), 1e-12);
                Object sq2 = e.call(PointwiseOps.ADD_SCALAR, e.call(ReductionOps.SUM_DIM, e.call(PointwiseOps.MUL_TENSOR, a[1], a[1]), dims, false), 1e-12);
                Object cos = e.call(PointwiseOps.DIV_TENSOR, dot, e.call(PointwiseOps.SQRT, e.call(PointwiseOps.MUL_TENSOR, sq1, sq2)));
                Object pos = e.call(PointwiseOps.RSUB_SCALAR, cos, 1L);
                Object neg = e.call(PointwiseOps.CLAMP, e.call(PointwiseOps.SUB_SCALAR, cos, a[3]), 0L, null);
                Object fromPos = e.call(PointwiseOps.WHERE_SCALAR_OTHER, e.call(PointwiseOps.EQ_SCALAR, a[2], 1L), pos, 0.0);
                Object fromNeg = e.call(PointwiseOps.WHERE_SCALAR_OTHER, e.call(PointwiseOps.EQ_SCALAR, a[2], -1L), neg, 0.0);
                return LossOps.reduce(e, e.call(PointwiseOps.ADD_TENSOR, fromPos, fromNeg), a[4]);
            });

    /**
     * ATen's triplet_margin_loss: {@code max(0, margin + d(anchor, positive) - d(anchor, negative))}
     * with pairwise_distance's p-norm (and eps), the negative distance the smaller of d(a, n) and
     * d(p, n) with {@code swap}; reduced.
     */
    public static final OpOverload TRIPLET_MARGIN_LOSS = ComposedOps.define(
            "triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1.0, float p=2, float eps=1e-06, bool swap=False, int reduction=Mean) -> Tensor",
            a -> {
                int ad = a.tensor(0).dim(), pd = a.tensor(1).dim(), nd = a.tensor(2).dim();
                if (ad != pd || pd != nd) {
                    throw new IllegalArgumentException("The anchor, positive, and negative tensors are expected to have the same number of dimensions, but got: anchor "
                            + ad + "D, positive " + pd + "D, and negative " + nd + "D inputs");
                }
            },
            (e, a) -> {
                Object toPositive = e.call(DistanceOps.PAIRWISE_DISTANCE, a[0], a[1], a[4], a[5], false);
                Object toNegative = e.call(DistanceOps.PAIRWISE_DISTANCE, a[0], a[2], a[4], a[5], false);
                if ((Boolean) a[6]) toNegative = e.call(PointwiseOps.MINIMUM, toNegative, e.call(DistanceOps.PAIRWISE_DISTANCE, a[1], a[2], a[4], a[5], false));
                Object loss = e.call(PointwiseOps.SUB_TENSOR, e.call(PointwiseOps.ADD_SCALAR, toPositive, a[3]), toNegative);
                return LossOps.reduce(e, e.call(PointwiseOps.CLAMP, loss, 0L, null), a[7]);
            });

    // ------------------------------------------------------------------ nn, round 6: unpooling

    /**
     * ATen's max_unpool2d: each value of {@code [N, C, H, W]} (or {@code [C, H, W]}) written at its
     * index into its channel's flattened {@code output_size} plane, zeros elsewhere: one scatter
     * (whose gradient is a gather at the indices).
     */
    public static final OpOverload MAX_UNPOOL2D = ComposedOps.define("max_unpool2d(Tensor self, Tensor indices, SymInt[2] output_size) -> Tensor",
            a -> checkUnpool(a, 2, "max_unpooling2d", "two elements (height, width)"),
            (e, a) -> unpooled(e, a[0], a[1], Composites.toInts(a[2])));

    /** ATen's max_unpool3d, max_unpool2d over {@code [N, C, D, H, W]} (or {@code [C, D, H, W]}); stride and padding are only checked. */
    public static final OpOverload MAX_UNPOOL3D = ComposedOps.define(
            "max_unpool3d(Tensor self, Tensor indices, SymInt[3] output_size, int[3] stride, int[3] padding) -> Tensor",
            a -> {
                checkUnpool(a, 3, "max_unpooling3d", "three elements (depth, height, width)");
                int[] stride = a.ints(3);
                if (stride.length != 3) throw new IllegalArgumentException("max_unpool3d: There should be exactly three elements (depth, height, width) in stride, but got: " + stride.length + " elements.");
                for (int v : stride) {
                    if (v <= 0) throw new IllegalArgumentException("max_unpool3d: strides should be greater than zero, but got stride: " + Arrays.toString(stride).replace(",", ""));
                }
            },
            (e, a) -> unpooled(e, a[0], a[1], Composites.toInts(a[2])));

    private static void checkUnpool(Args a, int dims, String kernel, String elements) {
        String op = a.op().schema().name();
        Tensor x = a.tensor(0), indices = a.tensor(1);
        int[] out = a.ints(2);
        if (indices.dtype() != dev.ember.tensor.DType.INT64) {
            throw new IllegalArgumentException(op + ": elements in indices should be type int64 but got: " + indices.dtype().scalarTypeName());
        }
        if (out.length != dims) throw new IllegalArgumentException(op + ": There should be exactly " + elements + " in output_size, but got " + out.length + " elements.");
        if (x.dim() != dims + 1 && x.dim() != dims + 2) {
            throw new IllegalArgumentException(op + ": Input to " + kernel + " should be a " + (dims + 1) + "d or " + (dims + 2) + "d Tensor, but got a tensor with " + x.dim() + " dimensions.");
        }
        if (!Arrays.equals(x.shape(), indices.shape())) {
            throw new IllegalArgumentException(op + ": Expected shape of indices to be same as that of the input tensor (" + Shapes.format(x.shape())
                    + ") but got indices tensor with shape: " + Shapes.format(indices.shape()));
        }
        for (int d = 1; d < x.dim(); d++) {
            if (x.size(d) <= 0) {
                throw new IllegalArgumentException(op + ": " + kernel + "_forward_out_cpu(): Expected input to have non-zero size for non-batch dimensions, but got "
                        + Shapes.format(x.shape()) + " with dimension " + d + " being empty.");
            }
        }
    }

    /**
     * ATen's check of the index values (its kernel's, made as it writes): each must address an
     * element of its channel's output plane. Eager only: a traced graph's scatter refuses an index
     * out of range itself, in its own words.
     */
    private static void checkUnpoolIndices(Tensor indices, int plane, int[] outputSize) {
        for (long index : indices.toLongArray()) {
            if (index < 0 || index >= plane) {
                StringBuilder sizes = new StringBuilder();
                for (int d = 0; d < outputSize.length; d++) sizes.append(d == 0 ? "" : "x").append(outputSize[d]);
                throw new IllegalArgumentException("Found an invalid max index: " + index + " (output volumes are of size " + sizes + ")");
            }
        }
    }

    private static Object unpooled(OpEmitter e, Object self, Object indices, int[] outputSize) {
        int[] s = e.meta(self).shape();
        int dims = outputSize.length;
        boolean batched = s.length == dims + 2;
        int n = batched ? s[0] : 1, c = s[s.length - dims - 1], plane = 1, in = 1;
        for (int d = 0; d < dims; d++) {
            plane *= outputSize[d];
            in *= s[s.length - dims + d];
        }
        if (e == OpEmitter.EAGER) checkUnpoolIndices((Tensor) indices, plane, outputSize);
        Object flat = e.call(ShapeOps.RESHAPE, self, new int[] {n, c, in});
        Object where = e.call(ShapeOps.RESHAPE, indices, new int[] {n, c, in});
        Object zeros = e.call(CreationOps.ZEROS, new int[] {n, c, plane}, e.meta(self).dtype());
        Object out = e.call(ScatterOps.SCATTER_SRC, zeros, 2L, where, flat);
        int[] shape = new int[(batched ? 2 : 1) + dims];
        int k = 0;
        if (batched) shape[k++] = n;
        shape[k++] = c;
        System.arraycopy(outputSize, 0, shape, k, dims);
        return e.call(ShapeOps.RESHAPE, out, shape);
    }

    // ------------------------------------------------------------------ nn, round 6: losses ATen composes

    /** {@code log(1 + exp(−target · input))}, reduced, as ATen's soft_margin_loss. */
    public static final OpOverload SOFT_MARGIN_LOSS = ComposedOps.define("soft_margin_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
            (e, a) -> LossOps.reduce(e, e.call(PointwiseOps.LOG1P, e.call(PointwiseOps.EXP, e.call(PointwiseOps.MUL_TENSOR, e.call(PointwiseOps.NEG, a[0]), a[1]))), a[2]));

    /**
     * ATen's hinge_embedding_loss: {@code max(0, margin − x)} where target is not 1, plus {@code x}
     * where target is not −1 (so a target of 1 gives x, −1 the hinge), reduced.
     */
    public static final OpOverload HINGE_EMBEDDING_LOSS = ComposedOps.define(
            "hinge_embedding_loss(Tensor self, Tensor target, float margin=1.0, int reduction=Mean) -> Tensor",
            (e, a) -> {
                Object hinge = e.call(PointwiseOps.CLAMP, e.call(PointwiseOps.RSUB_SCALAR, a[0], a[2]), 0L, null);
                Object marginPart = e.call(PointwiseOps.WHERE_SCALAR_OTHER, e.call(PointwiseOps.NE_SCALAR, a[1], 1L), hinge, 0L);
                Object selfPart = e.call(PointwiseOps.WHERE_SCALAR_OTHER, e.call(PointwiseOps.NE_SCALAR, a[1], -1L), a[0], 0L);
                return LossOps.reduce(e, e.call(PointwiseOps.ADD_TENSOR, marginPart, selfPart), a[3]);
            });

    /**
     * ATen's poisson_nll_loss: {@code exp(x) − t·x} for a log-rate input, else {@code x − t·log(x + eps)};
     * with {@code full}, plus Stirling's {@code t·log t − t + ½·log(2πt)} where {@code t > 1}; reduced.
     */
    public static final OpOverload POISSON_NLL_LOSS = ComposedOps.define(
            "poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, int reduction) -> Tensor",
            (e, a) -> {
                Object x = a[0], t = a[1];
                Object loss = (Boolean) a[2]
                        ? e.call(PointwiseOps.SUB_TENSOR, e.call(PointwiseOps.EXP, x), e.call(PointwiseOps.MUL_TENSOR, t, x))
                        : e.call(PointwiseOps.SUB_TENSOR, x, e.call(PointwiseOps.MUL_TENSOR, t, e.call(PointwiseOps.LOG, e.call(PointwiseOps.ADD_SCALAR, x, a[4]))));
                if ((Boolean) a[3]) {
                    Object stirling = e.call(PointwiseOps.ADD_TENSOR, e.call(PointwiseOps.SUB_TENSOR, e.call(PointwiseOps.MUL_TENSOR, t, e.call(PointwiseOps.LOG, t)), t),
                            e.call(PointwiseOps.MUL_SCALAR, e.call(PointwiseOps.LOG, e.call(PointwiseOps.MUL_SCALAR, t, 2 * Math.PI)), 0.5));
                    loss = e.call(PointwiseOps.ADD_TENSOR, loss, e.call(PointwiseOps.MASKED_FILL_SCALAR, stirling, e.call(PointwiseOps.LE_SCALAR, t, 1L), 0L));
                }
                return LossOps.reduce(e, loss, a[5]);
            });

    /**
     * ATen's multi_margin_loss over {@code [N, C]} (or {@code [C]}) scores and class targets: per
     * row, {@code Σ_{j≠y} max(0, margin − x[y] + x[j])^p · w[y] / C}; reduced ("none" keeps one loss
     * per row). One gather reads each row's x[y]; the j = y term is masked out.
     */
    public static final OpOverload MULTI_MARGIN_LOSS = ComposedOps.define(
            "multi_margin_loss(Tensor self, Tensor target, Scalar p=1, Scalar margin=1, Tensor? weight=None, int reduction=Mean) -> Tensor",
            a -> {
                Tensor x = a.tensor(0), t = a.tensor(1), w = a.optTensor(4);
                double p = ((Number) a.get(2)).doubleValue();
                if (p != 1 && p != 2) throw new IllegalArgumentException("multi_margin_loss: only p == 1 and p == 2 supported");
                int rank = x.dim(), frames = rank <= 1 ? 1 : x.size(0), dim = rank == 0 ? 1 : x.size(rank - 1);
                if (!(rank == 2 && x.size(1) != 0 || rank == 1 && x.size(0) != 0 || rank == 0)) {
                    throw new IllegalArgumentException("multi_margin_loss: Expected non-empty vector or matrix with optional 0-dim batch size, but got: " + Shapes.format(x.shape()));
                }
                if (t.dim() > 1 || t.numel() != frames) {
                    throw new IllegalArgumentException("multi_margin_loss: inconsistent target size, expected " + frames + " but got " + Shapes.format(t.shape()));
                }
                if (w != null && (w.dim() > 1 || w.numel() != dim)) {
                    throw new IllegalArgumentException("multi_margin_loss: inconsistent weight size, expected " + dim + " but got " + Shapes.format(w.shape()));
                }
            },
            (e, a) -> {
                int[] s = e.meta(a[0]).shape();
                int dim = s.length == 0 ? 1 : s[s.length - 1];
                int frames = s.length <= 1 ? 1 : s[0];
                boolean oneTarget = e.meta(a[1]).shape().length == 0;
                Object x = e.call(ShapeOps.RESHAPE, a[0], new int[] {frames, dim});
                Object target = e.call(ShapeOps.RESHAPE, a[1], new int[] {frames, 1});
                Object chosen = e.call(IndexingOps.GATHER, x, 1L, target);
                Object z = e.call(PointwiseOps.CLAMP, e.call(PointwiseOps.ADD_TENSOR, e.call(PointwiseOps.RSUB_SCALAR, chosen, a[3]), x), 0L, null);
                if (((Number) a[2]).doubleValue() == 2) z = e.call(PointwiseOps.MUL_TENSOR, z, z);
                if (a[4] != null) {
                    Object weightOfTarget = e.call(IndexingOps.INDEX_SELECT, e.call(ShapeOps.RESHAPE, a[4], new int[] {dim}), 0L, e.call(ShapeOps.RESHAPE, target, new int[] {frames}));
                    z = e.call(PointwiseOps.MUL_TENSOR, z, e.call(ShapeOps.RESHAPE, weightOfTarget, new int[] {frames, 1}));
                }
                Object classes = e.call(CreationOps.ARANGE, 0L, (long) dim, 1L);
                z = e.call(PointwiseOps.WHERE_SCALAR_OTHER, e.call(PointwiseOps.NE_TENSOR, classes, target), z, 0L);
                Object perRow = e.call(PointwiseOps.DIV_SCALAR, e.call(ReductionOps.SUM_DIM, z, new int[] {1}, false), (long) dim);
                if (((Number) a[5]).intValue() == dev.ember.ops.eager.NllLoss.NONE) return oneTarget ? e.call(ShapeOps.RESHAPE, perRow, new int[0]) : perRow;
                return LossOps.reduce(e, perRow, a[5]);
            });

    /**
     * ATen's multilabel_margin_loss over {@code [N, C]} (or {@code [C]}) scores: each row's target
     * lists its classes, ended by the first −1; per row,
     * {@code Σ_{j target} Σ_{k not target} max(0, 1 − (x[j] − x[k])) / C}; reduced ("none" keeps one
     * loss per row). The targets read by one gather, a [N, C, C] comparison marks each row's target
     * classes.
     */
    public static final OpOverload MULTILABEL_MARGIN_LOSS = ComposedOps.define("multilabel_margin_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
            a -> {
                Tensor x = a.tensor(0), t = a.tensor(1);
                int rank = x.dim();
                if (!(rank == 2 && x.size(1) != 0 || rank == 1 && x.size(0) != 0 || rank == 0)) {
                    throw new IllegalArgumentException("multilabel_margin_loss: Expected non-empty vector or matrix with optional 0-dim batch size, but got: " + Shapes.format(x.shape()));
                }
                boolean consistent = rank <= 1 ? t.dim() <= 1 && t.numel() == (rank == 0 ? 1 : x.size(0)) : t.dim() == 2 && t.size(0) == x.size(0) && t.size(1) == x.size(1);
                if (!consistent) {
                    throw new IllegalArgumentException("multilabel_margin_loss: inconsistent target size: " + Shapes.format(t.shape()) + " for input of size: " + Shapes.format(x.shape()));
                }
            },
            (e, a) -> {
                int[] s = e.meta(a[0]).shape();
                int dim = s.length == 0 ? 1 : s[s.length - 1], frames = s.length <= 1 ? 1 : s[0];
                Object x = e.call(ShapeOps.RESHAPE, a[0], new int[] {frames, dim});
                Object target = e.call(ShapeOps.RESHAPE, a[1], new int[] {frames, dim});
                Object positions = e.call(CreationOps.ARANGE, 0L, (long) dim, 1L);
                // a target entry counts while no −1 came before it (or at it)
                Object ended = e.call(ScanOps.CUMSUM, e.call(ShapeOps.TO_COPY, e.call(PointwiseOps.EQ_SCALAR, target, -1L), dev.ember.tensor.DType.INT64), 1L);
                Object valid = e.call(PointwiseOps.EQ_SCALAR, ended, 0L);
                Object safe = e.call(PointwiseOps.WHERE_SCALAR_OTHER, valid, target, 0L);
                Object isTarget = e.call(ReductionOps.ANY_DIM, e.call(PointwiseOps.LOGICAL_AND,
                        e.call(PointwiseOps.EQ_TENSOR, e.call(ShapeOps.UNSQUEEZE, safe, 2L), e.call(ShapeOps.RESHAPE, positions, new int[] {1, 1, dim})),
                        e.call(ShapeOps.UNSQUEEZE, valid, 2L)), 1L, false);                                     // [N, C]: class k is one of the row's targets
                Object scoreOfTarget = e.call(IndexingOps.GATHER, x, 1L, safe);                                   // [N, C(j)]
                Object z = e.call(PointwiseOps.CLAMP, e.call(PointwiseOps.RSUB_SCALAR,
                        e.call(PointwiseOps.SUB_TENSOR, e.call(ShapeOps.UNSQUEEZE, scoreOfTarget, 2L), e.call(ShapeOps.UNSQUEEZE, x, 1L)), 1L), 0L, null);   // [N, j, k]
                Object counted = e.call(PointwiseOps.LOGICAL_AND, e.call(ShapeOps.UNSQUEEZE, valid, 2L), e.call(ShapeOps.UNSQUEEZE, e.call(PointwiseOps.LOGICAL_NOT, isTarget), 1L));
                z = e.call(PointwiseOps.WHERE_SCALAR_OTHER, counted, z, 0L);
                Object perRow = e.call(PointwiseOps.DIV_SCALAR, e.call(ReductionOps.SUM_DIM, z, new int[] {1, 2}, false), (long) dim);
                if (((Number) a[2]).intValue() == dev.ember.ops.eager.NllLoss.NONE) return s.length <= 1 ? e.call(ShapeOps.RESHAPE, perRow, new int[0]) : perRow;
                return LossOps.reduce(e, perRow, a[2]);
            });

    /**
     * The sliding blocks of a batched {@code [N, C, H, W]} (or unbatched {@code [C, H, W]}) input as
     * columns, {@code [N, C·kh·kw, L]} with L the number of block positions (ATen's im2col, what
     * {@code F.unfold} calls): the zero-padded input read at every block's positions by one gather,
     * whose gradient (a scatter_add) is col2im.
     */
    public static final OpOverload IM2COL = ComposedOps.define("im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor",
            a -> {
                Tensor x = a.tensor(0);
                Window w = Window.of(a.ints(1), a.ints(2), a.ints(3), a.ints(4));
                int[] s = x.shape();
                boolean nonEmpty = s.length == 3 ? s[0] > 0 && s[1] > 0 && s[2] > 0 : s.length == 4 && s[1] > 0 && s[2] > 0 && s[3] > 0;
                if (!nonEmpty) {
                    throw new IllegalArgumentException("im2col: Expected non-empty 3D or 4D input tensor, but got input of size " + Shapes.format(x.shape()));
                }
                w.blocks("im2col", x.size(-2), x.size(-1));
            },
            (e, a) -> {
                int[] s = e.meta(a[0]).shape();
                boolean batched = s.length == 4;
                Object x = batched ? a[0] : e.call(ShapeOps.UNSQUEEZE, a[0], 0L);
                int n = batched ? s[0] : 1, c = s[s.length - 3], h = s[s.length - 2], wd = s[s.length - 1];
                Window w = Window.of(Composites.toInts(a[1]), Composites.toInts(a[2]), Composites.toInts(a[3]), Composites.toInts(a[4]));
                int[] blocks = w.blocks("im2col", h, wd);
                int hp = h + 2 * w.padding[0], wp = wd + 2 * w.padding[1], k = w.kernel[0] * w.kernel[1], l = blocks[0] * blocks[1];
                Object padded = e.call(NnOps.CONSTANT_PAD_ND, x, new int[] {w.padding[1], w.padding[1], w.padding[0], w.padding[0]});
                Object flat = e.call(ShapeOps.RESHAPE, padded, new int[] {n, c, hp * wp});
                Object index = e.call(ShapeOps.EXPAND, e.call(ShapeOps.RESHAPE, w.positions(e, blocks, wp), new int[] {1, 1, k * l}), new int[] {n, c, k * l});
                Object cols = e.call(ShapeOps.RESHAPE, e.call(IndexingOps.GATHER, flat, 2L, index), new int[] {n, c * k, l});
                return batched ? cols : e.call(ShapeOps.SQUEEZE_DIM, cols, 0L);
            });

    /**
     * The inverse arrangement of {@link #IM2COL}: columns {@code [N, C·kh·kw, L]} (or {@code [C·kh·kw, L]})
     * summed back into an {@code [N, C, H, W]} image of {@code output_size}, overlapping blocks
     * adding up (ATen's col2im, what {@code F.fold} calls): one scatter_add, then the padding cut off.
     */
    public static final OpOverload COL2IM = ComposedOps.define(
            "col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor",
            a -> {
                Tensor x = a.tensor(0);
                int[] out = twice(a.ints(1));
                Window w = Window.of(a.ints(2), a.ints(3), a.ints(4), a.ints(5));
                if ((x.dim() != 2 && x.dim() != 3) || x.size(-1) == 0 || x.size(-2) == 0) {
                    throw new IllegalArgumentException("col2im: Expected non-empty 2D or 3D input tensor, but got input of size " + Shapes.format(x.shape()));
                }
                int k = w.kernel[0] * w.kernel[1];
                if (x.size(-2) % k != 0) {
                    throw new IllegalArgumentException("col2im: Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)="
                            + x.size(-2) + " and kernel_size=(" + w.kernel[0] + ", " + w.kernel[1] + ")");
                }
                int[] blocks = w.blocks("col2im", out[0], out[1]);
                if (x.size(-1) != blocks[0] * blocks[1]) {
                    throw new IllegalArgumentException("col2im: Given output_size=(" + out[0] + ", " + out[1] + "), kernel_size=(" + w.kernel[0] + ", " + w.kernel[1]
                            + "), dilation=(" + w.dilation[0] + ", " + w.dilation[1] + "), padding=(" + w.padding[0] + ", " + w.padding[1] + "), stride=(" + w.stride[0]
                            + ", " + w.stride[1] + "), expected size of input's dimension 2 to match the calculated number of sliding blocks " + blocks[0] + " * " + blocks[1]
                            + " = " + blocks[0] * blocks[1] + ", but got input.size(2)=" + x.size(-1) + ".");
                }
            },
            (e, a) -> {
                var meta = e.meta(a[0]);
                int[] s = meta.shape();
                boolean batched = s.length == 3;
                Object x = batched ? a[0] : e.call(ShapeOps.UNSQUEEZE, a[0], 0L);
                int[] out = twice(Composites.toInts(a[1]));
                Window w = Window.of(Composites.toInts(a[2]), Composites.toInts(a[3]), Composites.toInts(a[4]), Composites.toInts(a[5]));
                int[] blocks = w.blocks("col2im", out[0], out[1]);
                int n = batched ? s[0] : 1, k = w.kernel[0] * w.kernel[1], c = s[s.length - 2] / k, l = blocks[0] * blocks[1];
                int hp = out[0] + 2 * w.padding[0], wp = out[1] + 2 * w.padding[1];
                Object src = e.call(ShapeOps.RESHAPE, x, new int[] {n, c, k * l});
                Object index = e.call(ShapeOps.EXPAND, e.call(ShapeOps.RESHAPE, w.positions(e, blocks, wp), new int[] {1, 1, k * l}), new int[] {n, c, k * l});
                Object image = e.call(ScatterOps.SCATTER_ADD, e.call(CreationOps.ZEROS, new int[] {n, c, hp * wp}, meta.dtype()), 2L, index, src);
                image = e.call(ShapeOps.RESHAPE, image, new int[] {n, c, hp, wp});
                image = e.call(ShapeOps.NARROW, e.call(ShapeOps.NARROW, image, 2L, (long) w.padding[0], (long) out[0]), 3L, (long) w.padding[1], (long) out[1]);
                return batched ? image : e.call(ShapeOps.SQUEEZE_DIM, image, 0L);
            });

    /**
     * Max pooling to a fixed output size, with the index (into each channel's flattened H·W) of
     * every maximum, as ATen's adaptive_max_pool2d: output cell (i, j) covers rows
     * {@code [⌊i·H/oh⌋, ⌈(i+1)·H/oh⌉)} and the columns likewise. Each window is read by one gather
     * (short windows repeat their last row or column, which changes neither the maximum nor which
     * element is first), then max over it: the first maximum in row-major order, NaN winning, as
     * ATen's; the gradient goes to that element.
     */
    public static final OpOverload ADAPTIVE_MAX_POOL2D = ComposedOps.define("adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)",
            a -> {
                Tensor x = a.tensor(0);
                if (a.ints(1).length != 2) throw new IllegalArgumentException("adaptive_max_pool2d(): internal error: output_size.size() must be 2");
                if (x.dim() != 3 && x.dim() != 4) throw new IllegalArgumentException("adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: " + Shapes.format(x.shape()));
                for (int d = x.dim() - 3; d < x.dim(); d++) {
                    if (x.size(d) == 0) {
                        throw new IllegalArgumentException("adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                                + Shapes.format(x.shape()) + " with dimension " + d + " being empty");
                    }
                }
                for (int o : a.ints(1)) if (o < 0) throw new IllegalArgumentException("adaptive_max_pool2d(): elements of output_size must be greater than or equal to 0 but received " + o);
            },
            (e, a) -> {
                int[] s = e.meta(a[0]).shape(), out = Composites.toInts(a[1]);
                boolean batched = s.length == 4;
                int n = batched ? s[0] : 1, c = s[s.length - 3], h = s[s.length - 2], w = s[s.length - 1], oh = out[0], ow = out[1];
                int[] shape = batched ? new int[] {n, c, oh, ow} : new int[] {c, oh, ow};
                if (oh == 0 || ow == 0) {
                    return List.of(e.call(CreationOps.ZEROS, shape, e.meta(a[0]).dtype()), e.call(CreationOps.ZEROS, shape, dev.ember.tensor.DType.INT64));
                }
                int kh = adaptiveWindow(h, oh), kw = adaptiveWindow(w, ow);
                int k = kh * kw;
                Object rows = e.call(ShapeOps.RESHAPE, adaptivePositions(e, h, oh, kh), new int[] {oh, 1, kh, 1});
                Object cols = e.call(ShapeOps.RESHAPE, adaptivePositions(e, w, ow, kw), new int[] {1, ow, 1, kw});
                Object positions = e.call(ShapeOps.RESHAPE, e.call(PointwiseOps.ADD_TENSOR, e.call(PointwiseOps.MUL_SCALAR, rows, (long) w), cols),
                        new int[] {1, 1, oh * ow * k});
                int[] flat = {oh * ow * k};
                Object x = e.call(ShapeOps.RESHAPE, a[0], new int[] {n, c, h * w});
                Object windows = e.call(ShapeOps.RESHAPE, e.call(IndexingOps.GATHER, x, 2L, e.call(ShapeOps.EXPAND, positions, new int[] {n, c, flat[0]})),
                        new int[] {n, c, oh, ow, kh * kw});
                @SuppressWarnings("unchecked") List<Object> best = (List<Object>) e.call(ReductionOps.MAX_DIM, windows, -1L, true);
                // ATen's kernel lets every NaN replace the running maximum, so a window's index is its last NaN's
                Object nanRank = e.call(ReductionOps.AMAX, e.call(PointwiseOps.WHERE_SCALAR_OTHER, e.call(PointwiseOps.ISNAN, windows),
                        e.call(CreationOps.ARANGE, 1L, (long) k + 1, 1L), 0L), new int[] {4}, true);
                Object chosen = e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.GT_SCALAR, nanRank, 0L), e.call(PointwiseOps.SUB_SCALAR, nanRank, 1L), best.get(1));
                Object where = e.call(IndexingOps.GATHER, e.call(ShapeOps.EXPAND, e.call(ShapeOps.RESHAPE, positions, new int[] {1, 1, oh, ow, k}),
                        new int[] {n, c, oh, ow, k}), 4L, chosen);
                Object values = e.call(IndexingOps.GATHER, windows, 4L, chosen);   // the chosen element itself, so the gradient goes where the index says
                return List.of(e.call(ShapeOps.RESHAPE, values, shape), e.call(ShapeOps.RESHAPE, where, shape));
            });

    /**
     * adaptive_max_pool2d's rule over the last three dims, as ATen's adaptive_max_pool3d: output cell
     * (i, j, l) covers an adaptive window in depth, height and width; one gather reads every window
     * (short ones repeat their last position), max over it (first maximum, last NaN, as ATen's
     * kernel), and the index is into each channel's flattened D·H·W.
     */
    public static final OpOverload ADAPTIVE_MAX_POOL3D = ComposedOps.define("adaptive_max_pool3d(Tensor self, int[3] output_size) -> (Tensor, Tensor)",
            a -> {
                Tensor x = a.tensor(0);
                if (x.dim() != 4 && x.dim() != 5) throw new IllegalArgumentException("adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: " + Shapes.format(x.shape()));
                for (int d = 1; d < x.dim(); d++) {
                    if (x.size(d) == 0) {
                        throw new IllegalArgumentException("adaptive_max_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                                + Shapes.format(x.shape()) + " with dimension " + d + " being empty");
                    }
                }
                if (a.ints(1).length != 3) throw new IllegalArgumentException("adaptive_max_pool3d(): internal error: output_size.size() must be 3");
                for (int o : a.ints(1)) if (o < 0) throw new IllegalArgumentException("adaptive_max_pool3d(): elements of output_size must be greater than or equal to 0 but received " + o);
            },
            (e, a) -> {
                int[] s = e.meta(a[0]).shape(), out = Composites.toInts(a[1]);
                boolean batched = s.length == 5;
                int n = batched ? s[0] : 1, c = s[s.length - 4], dd = s[s.length - 3], h = s[s.length - 2], w = s[s.length - 1];
                int od = out[0], oh = out[1], ow = out[2];
                int[] shape = batched ? new int[] {n, c, od, oh, ow} : new int[] {c, od, oh, ow};
                if (od == 0 || oh == 0 || ow == 0) {
                    return List.of(e.call(CreationOps.ZEROS, shape, e.meta(a[0]).dtype()), e.call(CreationOps.ZEROS, shape, dev.ember.tensor.DType.INT64));
                }
                int kd = adaptiveWindow(dd, od), kh = adaptiveWindow(h, oh), kw = adaptiveWindow(w, ow), k = kd * kh * kw, cells = od * oh * ow;
                Object depths = e.call(ShapeOps.RESHAPE, adaptivePositions(e, dd, od, kd), new int[] {od, 1, 1, kd, 1, 1});
                Object rows = e.call(ShapeOps.RESHAPE, adaptivePositions(e, h, oh, kh), new int[] {1, oh, 1, 1, kh, 1});
                Object cols = e.call(ShapeOps.RESHAPE, adaptivePositions(e, w, ow, kw), new int[] {1, 1, ow, 1, 1, kw});
                Object positions = e.call(PointwiseOps.ADD_TENSOR, e.call(PointwiseOps.ADD_TENSOR, e.call(PointwiseOps.MUL_SCALAR, depths, (long) h * w),
                        e.call(PointwiseOps.MUL_SCALAR, rows, (long) w)), cols);
                positions = e.call(ShapeOps.RESHAPE, positions, new int[] {1, 1, cells * k});
                Object x = e.call(ShapeOps.RESHAPE, a[0], new int[] {n, c, dd * h * w});
                Object windows = e.call(ShapeOps.RESHAPE, e.call(IndexingOps.GATHER, x, 2L, e.call(ShapeOps.EXPAND, positions, new int[] {n, c, cells * k})),
                        new int[] {n, c, cells, k});
                @SuppressWarnings("unchecked") List<Object> best = (List<Object>) e.call(ReductionOps.MAX_DIM, windows, -1L, true);
                Object nanRank = e.call(ReductionOps.AMAX, e.call(PointwiseOps.WHERE_SCALAR_OTHER, e.call(PointwiseOps.ISNAN, windows),
                        e.call(CreationOps.ARANGE, 1L, (long) k + 1, 1L), 0L), new int[] {3}, true);
                Object chosen = e.call(PointwiseOps.WHERE_SELF, e.call(PointwiseOps.GT_SCALAR, nanRank, 0L), e.call(PointwiseOps.SUB_SCALAR, nanRank, 1L), best.get(1));
                Object where = e.call(IndexingOps.GATHER, e.call(ShapeOps.EXPAND, e.call(ShapeOps.RESHAPE, positions, new int[] {1, 1, cells, k}),
                        new int[] {n, c, cells, k}), 3L, chosen);
                Object values = e.call(IndexingOps.GATHER, windows, 3L, chosen);
                return List.of(e.call(ShapeOps.RESHAPE, values, shape), e.call(ShapeOps.RESHAPE, where, shape));
            });

    /**
     * {@code [out, window]}: the positions each adaptive window reads along one dim, from
     * {@code ⌊i·in/out⌋}, held at the window's last position {@code ⌈(i+1)·in/out⌉ − 1} once past it.
     */
    private static Object adaptivePositions(OpEmitter e, int in, int out, int window) {
        Object cells = e.call(CreationOps.ARANGE, 0L, (long) out, 1L);
        Object starts = e.call(PointwiseOps.FLOOR_DIVIDE_SCALAR, e.call(PointwiseOps.MUL_SCALAR, cells, (long) in), (long) out);
        Object ends = e.call(PointwiseOps.SUB_SCALAR, e.call(PointwiseOps.NEG, e.call(PointwiseOps.FLOOR_DIVIDE_SCALAR,
                e.call(PointwiseOps.MUL_SCALAR, e.call(PointwiseOps.ADD_SCALAR, cells, 1L), (long) -in), (long) out)), 1L);
        Object positions = e.call(PointwiseOps.ADD_TENSOR, e.call(ShapeOps.RESHAPE, starts, new int[] {out, 1}),
                e.call(ShapeOps.RESHAPE, e.call(CreationOps.ARANGE, 0L, (long) window, 1L), new int[] {1, window}));
        return e.call(PointwiseOps.MINIMUM, positions, e.call(ShapeOps.RESHAPE, ends, new int[] {out, 1}));
    }

    /** The longest adaptive window over {@code in} elements for {@code out} cells. */
    private static int adaptiveWindow(int in, int out) {
        int longest = 0;
        for (int i = 0; i < out; i++) longest = Math.max(longest, ceilDiv((i + 1) * in, out) - Math.floorDiv(i * in, out));
        return longest;
    }

    private static int ceilDiv(int a, int b) { return -Math.floorDiv(-a, b); }

    private static int[] twice(int[] v) { return v.length == 1 ? new int[] {v[0], v[0]} : v; }

    /** im2col's and col2im's window: kernel, dilation, padding and stride, each (height, width), checked as ATen's im2col_shape_check. */
    private record Window(int[] kernel, int[] dilation, int[] padding, int[] stride) {
        static Window of(int[] kernel, int[] dilation, int[] padding, int[] stride) {
            Window w = new Window(twice(kernel), twice(dilation), twice(padding), twice(stride));
            if (w.kernel[0] <= 0 || w.kernel[1] <= 0) {
                throw new IllegalArgumentException("kernel size should be greater than zero, but got kernel_height: " + w.kernel[0] + " kernel_width: " + w.kernel[1]);
            }
            if (w.stride[0] <= 0 || w.stride[1] <= 0) throw new IllegalArgumentException("stride should be greater than zero, but got dH: " + w.stride[0] + " dW: " + w.stride[1]);
            if (w.dilation[0] <= 0 || w.dilation[1] <= 0) {
                throw new IllegalArgumentException("dilation should be greater than zero, but got dilation_height: " + w.dilation[0] + " dilation_width: " + w.dilation[1]);
            }
            if (w.padding[0] < 0 || w.padding[1] < 0) {
                throw new IllegalArgumentException("padding should be non-negative, but got pad_height: " + w.padding[0] + " pad_width: " + w.padding[1]);
            }
            return w;
        }

        /** How many block positions fit down and across an image of {@code h × w}, at least one each. */
        int[] blocks(String op, int h, int w) {
            int bh = (h + 2 * padding[0] - (dilation[0] * (kernel[0] - 1) + 1)) / stride[0] + 1;
            int bw = (w + 2 * padding[1] - (dilation[1] * (kernel[1] - 1) + 1)) / stride[1] + 1;
            if (bh < 1 || bw < 1) {
                throw new IllegalArgumentException(op + ": Given input with spatial size (" + h + ", " + w + "), kernel_size=(" + kernel[0] + ", " + kernel[1] + "), dilation=("
                        + dilation[0] + ", " + dilation[1] + "), padding=(" + padding[0] + ", " + padding[1] + "), calculated shape of the array of sliding blocks as ("
                        + bh + ", " + bw + "), but its components must be at least one.");
            }
            return new int[] {bh, bw};
        }

        /** The flat position in the padded image of every (kernel row, kernel column, block row, block column), int64 {@code [kh, kw, bh, bw]}. */
        Object positions(OpEmitter e, int[] blocks, int paddedWidth) {
            Object kernelRows = e.call(ShapeOps.RESHAPE, e.call(PointwiseOps.MUL_SCALAR, e.call(CreationOps.ARANGE, 0L, (long) kernel[0], 1L), (long) dilation[0]), new int[] {kernel[0], 1, 1, 1});
            Object blockRows = e.call(ShapeOps.RESHAPE, e.call(PointwiseOps.MUL_SCALAR, e.call(CreationOps.ARANGE, 0L, (long) blocks[0], 1L), (long) stride[0]), new int[] {1, 1, blocks[0], 1});
            Object kernelCols = e.call(ShapeOps.RESHAPE, e.call(PointwiseOps.MUL_SCALAR, e.call(CreationOps.ARANGE, 0L, (long) kernel[1], 1L), (long) dilation[1]), new int[] {1, kernel[1], 1, 1});
            Object blockCols = e.call(ShapeOps.RESHAPE, e.call(PointwiseOps.MUL_SCALAR, e.call(CreationOps.ARANGE, 0L, (long) blocks[1], 1L), (long) stride[1]), new int[] {1, 1, 1, blocks[1]});
            Object rows = e.call(PointwiseOps.ADD_TENSOR, kernelRows, blockRows), cols = e.call(PointwiseOps.ADD_TENSOR, kernelCols, blockCols);
            return e.call(PointwiseOps.ADD_TENSOR, e.call(PointwiseOps.MUL_SCALAR, rows, (long) paddedWidth), cols);
        }
    }

    private static int[] range(int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) r[i] = i;
        return r;
    }

    private static int[] append(int[] head, int... tail) {
        int[] out = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, out, head.length, tail.length);
        return out;
    }
}
