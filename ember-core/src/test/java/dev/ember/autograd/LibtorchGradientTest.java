package dev.ember.autograd;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.ops.ConvOps;
import dev.ember.ops.DistanceOps;
import dev.ember.ops.IndexingOps;
import dev.ember.ops.LinalgOps;
import dev.ember.ops.LossOps;
import dev.ember.ops.MathOps;
import dev.ember.ops.NnComposites;
import dev.ember.ops.NnOps;
import dev.ember.ops.NormOps;
import dev.ember.ops.OpOverload;
import dev.ember.ops.PointwiseOps;
import dev.ember.ops.ReductionOps;
import dev.ember.ops.ScanOps;
import dev.ember.ops.ScatterOps;
import dev.ember.ops.ShapeOps;
import dev.ember.ops.SortOps;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Ember's gradients against libtorch's autograd on the same float32 inputs: each case calls one
 * op on leaves (and fixed arguments), backpropagates the same random output gradient through
 * Ember ({@link Autograd#grad}) and through libtorch ({@code torch.autograd.grad} in a TorchScript
 * function run with grad mode on), and compares every input's gradient. It covers the formulas
 * and the decompositions autograd records through: pointwise, reductions, shapes, linear algebra,
 * indexing, scatter and sort, convolution, pooling, normalisation, the losses and attention.
 */
class LibtorchGradientTest {
    private static final Random RNG = new Random(2024);
    private static final Tolerance TOL = Tolerance.of(1e-4, 1e-4);
    private static final String LETTERS = "abcdefghijklmnopqrstuvwxyz";

    /** One op call: the libtorch expression over a, b, c…, the op and its output index, which arguments are differentiated. */
    private record Case(String name, String torch, OpOverload op, int output, int[] wrt, Object[] args) {}

    private static final List<Case> CASES = new ArrayList<>();

    private static void add(String torch, OpOverload op, int[] wrt, Object... args) { CASES.add(new Case(torch, torch, op, 0, wrt, args)); }

    private static int[] d(int... i) { return i; }

    /** float32 normal values. */
    private static Tensor t(int... shape) { return Inputs.randn(RNG, DType.FLOAT32, shape); }

    /** float32 values in [0.5, 1.5). */
    private static Tensor pos(int... shape) { return Inputs.rand(RNG, DType.FLOAT32, shape).add(0.5); }

    private static Tensor idx(long[] v, int... shape) { return Tensor.of(v, shape); }

    static {
        // pointwise
        add("torch.add(a, b, alpha=2.5)", PointwiseOps.ADD_TENSOR, d(0, 1), t(2, 3), t(3), 2.5);
        add("torch.sub(a, b)", PointwiseOps.SUB_TENSOR, d(0, 1), t(4, 3), t(4, 1));
        add("torch.mul(a, b)", PointwiseOps.MUL_TENSOR, d(0, 1), t(4, 1), t(3));
        add("torch.div(a, b)", PointwiseOps.DIV_TENSOR, d(0, 1), t(2, 3), pos(3));
        add("torch.pow(a, b)", PointwiseOps.POW_TENSOR_TENSOR, d(0, 1), pos(2, 3), t(2, 3));
        add("torch.pow(a, b)", PointwiseOps.POW_TENSOR_SCALAR, d(0), t(2, 3), 3.0);
        add("torch.neg(a)", PointwiseOps.NEG, d(0), t(5));
        add("torch.abs(a)", PointwiseOps.ABS, d(0), t(5));
        add("torch.exp(a)", PointwiseOps.EXP, d(0), t(5));
        add("torch.log(a)", PointwiseOps.LOG, d(0), pos(5));
        add("torch.log1p(a)", PointwiseOps.LOG1P, d(0), pos(5));
        add("torch.sqrt(a)", PointwiseOps.SQRT, d(0), pos(5));
        add("torch.rsqrt(a)", PointwiseOps.RSQRT, d(0), pos(5));
        add("torch.sin(a)", PointwiseOps.SIN, d(0), t(5));
        add("torch.cos(a)", PointwiseOps.COS, d(0), t(5));
        add("torch.tanh(a)", PointwiseOps.TANH, d(0), t(5));
        add("torch.sigmoid(a)", PointwiseOps.SIGMOID, d(0), t(5));
        add("torch.erf(a)", PointwiseOps.ERF, d(0), t(5));
        add("torch.frac(a)", PointwiseOps.FRAC, d(0), t(5).mul(3.0));
        add("torch.sign(a)", PointwiseOps.SIGN, d(0), t(5));
        add("torch.floor(a)", PointwiseOps.FLOOR, d(0), t(5).mul(3.0));
        add("torch.reciprocal(a)", PointwiseOps.RECIPROCAL, d(0), pos(5));
        add("torch.square(a)", PointwiseOps.SQUARE, d(0), t(5));
        add("torch.tan(a)", PointwiseOps.TAN, d(0), t(5));
        add("torch.atan(a)", PointwiseOps.ATAN, d(0), t(5));
        add("torch.asin(a)", PointwiseOps.ASIN, d(0), t(5).mul(0.3));
        add("torch.acos(a)", PointwiseOps.ACOS, d(0), t(5).mul(0.3));
        add("torch.sinh(a)", PointwiseOps.SINH, d(0), t(5));
        add("torch.cosh(a)", PointwiseOps.COSH, d(0), t(5));
        add("torch.asinh(a)", PointwiseOps.ASINH, d(0), t(5).mul(3.0));
        add("torch.acosh(a)", PointwiseOps.ACOSH, d(0), pos(5).add(1.0));
        add("torch.atanh(a)", PointwiseOps.ATANH, d(0), t(5).mul(0.3));
        add("torch.expm1(a)", PointwiseOps.EXPM1, d(0), t(5));
        add("torch.exp2(a)", PointwiseOps.EXP2, d(0), t(5));
        add("torch.log2(a)", PointwiseOps.LOG2, d(0), pos(5));
        add("torch.log10(a)", PointwiseOps.LOG10, d(0), pos(5));
        add("torch.atan2(a, b)", PointwiseOps.ATAN2, d(0, 1), t(4, 3), t(3));
        add("torch.nan_to_num(a)", PointwiseOps.NAN_TO_NUM, d(0), Tensor.of(new double[] {1.5, Double.NaN, Double.POSITIVE_INFINITY, -2, Double.NEGATIVE_INFINITY}, 5).to(DType.FLOAT32));
        add("torch.relu(a)", PointwiseOps.RELU, d(0), t(3, 4));
        add("torch.silu(a)", PointwiseOps.SILU, d(0), t(3, 4));
        add("torch.gelu(a)", PointwiseOps.GELU, d(0), t(3, 4).mul(2.0));
        add("torch.gelu(a, approximate=b)", PointwiseOps.GELU, d(0), t(3, 4).mul(2.0), "tanh");
        add("torch.clamp(a, b, c)", PointwiseOps.CLAMP, d(0), t(3, 4), -0.5, 0.5);
        add("torch.clamp(a, b, c)", PointwiseOps.CLAMP_TENSOR, d(0, 1, 2), t(3, 4), t(3, 4).sub(1.0), t(4).add(1.0));
        // which input wins on a tie with a bound, where min > max (clamp returns max), with one bound alone
        add("torch.clamp(a, b, c)", PointwiseOps.CLAMP_TENSOR, d(0, 1, 2), Tensor.of(new float[] {-1f, 0f, 1f, 2f, 0f, 3f}, 6),
                Tensor.of(new float[] {-1f, -1f, -1f, 1f, 1f, 1f}, 6), Tensor.of(new float[] {1f, 1f, 1f, 2f, 0f, 0f}, 6));
        add("torch.clamp(a, min=b)", PointwiseOps.CLAMP_TENSOR, d(0, 1), Tensor.of(new float[] {-1f, 0f, 1f, 2f}, 4), Tensor.of(new float[] {0f, 0f, 0f, 0f}, 4), null);
        add("torch.clamp(a, max=c)", PointwiseOps.CLAMP_TENSOR, d(0, 2), Tensor.of(new float[] {-1f, 0f, 1f, 2f}, 4), null, Tensor.of(new float[] {0f, 0f, 0f, 0f}, 4));
        add("torch.where(a, b, c)", PointwiseOps.WHERE_SELF, d(1, 2), t(3, 4).gt(0.0), t(3, 4), t(4));
        add("torch.masked_fill(a, b, c)", PointwiseOps.MASKED_FILL_SCALAR, d(0), t(3, 4), t(4).gt(0.0), 2.0);
        add("torch.maximum(a, b)", PointwiseOps.MAXIMUM, d(0, 1), t(3, 4), t(4));
        add("torch.minimum(a, b)", PointwiseOps.MINIMUM, d(0, 1), t(3, 4), t(3, 4));

        // reductions and scans
        add("torch.sum(a, b, c)", ReductionOps.SUM_DIM, d(0), t(2, 3, 4), new int[] {0, 2}, false);
        add("torch.mean(a, b, c)", ReductionOps.MEAN_DIM, d(0), t(2, 3, 4), new int[] {1}, true);
        add("torch.amax(a, b, c)", ReductionOps.AMAX, d(0), t(3, 5), new int[] {1}, false);
        add("torch.var(a, b, correction=c, keepdim=d)", ReductionOps.VAR, d(0), t(3, 5), new int[] {1}, 1L, false);
        add("torch.std(a, b, correction=c, keepdim=d)", ReductionOps.STD, d(0), t(3, 5), new int[] {0}, 0L, true);
        add("torch._softmax(a, b, c)", ReductionOps.SOFTMAX, d(0), t(3, 5), 1L, false);
        add("torch._log_softmax(a, b, c)", ReductionOps.LOG_SOFTMAX, d(0), t(3, 5), 0L, false);
        add("torch.cumsum(a, b)", ScanOps.CUMSUM, d(0), t(3, 5), 1L);
        // rows with no, one, two and three zeros: ATen's gradients are right there, the simple formula y/x is not
        Tensor zeros = Tensor.of(new float[] {1.5f, -0.5f, 2f, 0.7f, -1.2f, 0.9f, 0f, 1.3f, -2f, 0.6f, 0f, 1.1f, 0.8f, 0f, -1.4f, 1.2f, 0f, -0.7f, 0f, 0f}, 4, 5);
        add("torch.prod(a)", ReductionOps.PROD, d(0), t(2, 3), null);
        add("torch.prod(a)", ReductionOps.PROD, d(0), Tensor.of(new float[] {1.5f, 0f, -2f, 0.5f, 1.2f, 0.7f}, 2, 3), null);
        add("torch.prod(a)", ReductionOps.PROD, d(0), Tensor.of(new float[] {1.5f, 0f, -2f, 0.5f, 0f, 0.7f}, 2, 3), null);
        add("torch.prod(a, b, c)", ReductionOps.PROD_DIM, d(0), t(3, 5), 1L, false, null);
        add("torch.prod(a, b, c)", ReductionOps.PROD_DIM, d(0), zeros, 1L, true, null);
        add("torch.prod(a, b, c)", ReductionOps.PROD_DIM, d(0), zeros, 0L, false, null);
        add("torch.cumprod(a, b)", ScanOps.CUMPROD, d(0), t(3, 5), 1L, null);
        add("torch.cumprod(a, b)", ScanOps.CUMPROD, d(0), zeros, 1L, null);
        add("torch.cumprod(a, b)", ScanOps.CUMPROD, d(0), zeros, 0L, null);

        // MathOps and cdist: composites differentiated through their decompositions (hypot by its own formula)
        add("torch.logaddexp(a, b)", MathOps.LOGADDEXP, d(0, 1), t(2, 3), t(3));
        add("torch.logaddexp(a, b)", MathOps.LOGADDEXP, d(0, 1), Tensor.of(new float[] {1, -2, 30, 0.5f}, 4), Tensor.of(new float[] {1, 3, -30, 0.5f}, 4));
        add("torch.logaddexp2(a, b)", MathOps.LOGADDEXP2, d(0, 1), t(2, 3), t(2, 1));
        add("torch.hypot(a, b)", MathOps.HYPOT, d(0, 1), t(2, 3), t(3));
        add("torch.hypot(a, b)", MathOps.HYPOT, d(0, 1), Tensor.of(new float[] {0, 3, 0, -1e-3f}, 4), Tensor.of(new float[] {0, -4, 2, 1e-3f}, 4));
        add("torch.xlogy(a, b)", MathOps.XLOGY, d(0, 1), t(2, 3), pos(3));
        add("torch.xlogy(a, b)", MathOps.XLOGY, d(0, 1), Tensor.of(new float[] {0, 0, 1.5f, -2}, 4), pos(4));
        add("torch.xlogy(a, 0.7)", MathOps.XLOGY_SCALAR_OTHER, d(0), Tensor.of(new float[] {0, 1.5f, -2}, 3), 0.7);
        add("torch.xlogy(a, -0.7)", MathOps.XLOGY_SCALAR_OTHER, d(0), Tensor.of(new float[] {0, 1.5f, -2}, 3), -0.7);
        add("torch.diff(a, b, c)", MathOps.DIFF, d(0), t(3, 6), 2L, 1L, null, null);
        add("torch.diff(a, b, c, d, e)", MathOps.DIFF, d(0, 3, 4), t(3, 4), 1L, 0L, t(2, 4), t(1, 4));
        add("torch.linalg_cross(a, b, dim=c)", MathOps.LINALG_CROSS, d(0, 1), t(4, 3), t(1, 3), -1L);
        add("torch.tensordot(a, b, c, d)", MathOps.TENSORDOT, d(0, 1), t(2, 3, 4), t(4, 3, 5), new long[] {1, 2}, new long[] {1, 0});
        Tensor withNan = Tensor.of(new float[] {1.5f, Float.NaN, -2f, 0.5f, Float.NaN, 0.7f}, 2, 3);
        add("torch.nansum(a)", MathOps.NANSUM, d(0), withNan);
        add("torch.nanmean(a, b)", MathOps.NANMEAN, d(0), withNan, new long[] {1});
        CASES.add(new Case("var_mean → var", "torch.var_mean(a, b)[0]", MathOps.VAR_MEAN, 0, d(0), new Object[] {t(3, 4), new long[] {1}}));
        CASES.add(new Case("std_mean → mean", "torch.std_mean(a, b)[1]", MathOps.STD_MEAN, 1, d(0), new Object[] {t(3, 4), new long[] {0}}));
        add("torch.cdist(a, b)", DistanceOps.CDIST, d(0, 1), t(2, 5, 3), t(4, 3));
        add("torch.cdist(a, b, c)", DistanceOps.CDIST, d(0, 1), t(5, 3), t(4, 3), 1.0);
        add("torch.pixel_shuffle(a, b)", NnComposites.PIXEL_SHUFFLE, d(0), t(2, 8, 3, 2), 2L);
        add("torch.pixel_unshuffle(a, b)", NnComposites.PIXEL_UNSHUFFLE, d(0), t(1, 2, 4, 6), 2L);
        add("torch.bilinear(a, b, c, d)", NnComposites.BILINEAR, d(0, 1, 2, 3), t(3, 4), t(3, 5), t(2, 4, 5), t(2));
        add("torch.margin_ranking_loss(a, b, c, d, e)", NnComposites.MARGIN_RANKING_LOSS, d(0, 1), t(6), t(6), Tensor.of(new float[] {1, -1, 1, -1, 1, 1}, 6), 0.2, 1L);
        add("torch.cosine_embedding_loss(a, b, c, d, e)", NnComposites.COSINE_EMBEDDING_LOSS, d(0, 1), t(4, 5), t(4, 5), Tensor.of(new float[] {1, -1, -1, 1}, 4), -0.5, 2L);
        add("torch.triplet_margin_loss(a, b, c, d, e, f, g, h)", NnComposites.TRIPLET_MARGIN_LOSS, d(0, 1, 2), t(4, 6), t(4, 6), t(4, 6), 2.0, 2.0, 1e-6, true, 1L);

        // shapes
        add("torch.reshape(a, b)", ShapeOps.RESHAPE, d(0), t(2, 6), new int[] {4, -1});
        add("torch.permute(a, b)", ShapeOps.PERMUTE, d(0), t(2, 3, 4), new int[] {2, 0, 1});
        add("torch.transpose(a, b, c)", ShapeOps.TRANSPOSE, d(0), t(2, 3, 4), 0L, 2L);
        add("a.expand(b)", ShapeOps.EXPAND, d(0), t(3, 1), new int[] {2, 3, 4});
        add("ops.aten.slice(a, b, c, d, e)", ShapeOps.SLICE, d(0), t(3, 7), 1L, 1L, 7L, 2L);
        add("torch.narrow(a, b, c, d)", ShapeOps.NARROW, d(0), t(3, 5), 1L, 2L, 2L);
        add("torch.select(a, b, c)", ShapeOps.SELECT, d(0), t(3, 4), 1L, -1L);
        add("torch.cat(a, b)", ShapeOps.CAT, d(), List.of(t(2, 3), t(1, 3)), 0L);
        add("torch.unsqueeze(a, b)", ShapeOps.UNSQUEEZE, d(0), t(2, 3), 1L);
        add("torch.flatten(a, b, c)", ShapeOps.FLATTEN, d(0), t(2, 3, 2), 1L, -1L);

        // linear algebra
        add("torch.mm(a, b)", LinalgOps.MM, d(0, 1), t(3, 4), t(4, 5));
        add("torch.bmm(a, b)", LinalgOps.BMM, d(0, 1), t(2, 3, 4), t(2, 4, 5));
        add("torch.addmm(a, b, c, beta=d, alpha=e)", LinalgOps.ADDMM, d(0, 1, 2), t(5), t(3, 4), t(4, 5), 0.5, 2.0);
        add("torch.matmul(a, b)", LinalgOps.MATMUL, d(0, 1), t(2, 1, 3, 4), t(3, 4, 2));
        add("torch.matmul(a, b)", LinalgOps.MATMUL, d(0, 1), t(4), t(2, 4, 3));
        add("torch.linear(a, b, c)", LinalgOps.LINEAR, d(0, 1, 2), t(2, 3, 4), t(5, 4), t(5));

        // indexing, scatter, sort
        add("torch.index_select(a, b, c)", IndexingOps.INDEX_SELECT, d(0), t(4, 3), 0L, idx(new long[] {3, 0, 3}, 3));
        add("torch.gather(a, b, c)", IndexingOps.GATHER, d(0), t(3, 4), 1L, idx(new long[] {0, 3, 1, 1, 2, 2}, 3, 2));
        add("torch.embedding(a, b, c)", IndexingOps.EMBEDDING, d(0), t(5, 3), idx(new long[] {1, 4, 1, 0, 2, 1}, 2, 3), 1L);
        add("torch.scatter(a, b, c, d)", ScatterOps.SCATTER_SRC, d(0, 3), t(3, 4), 1L, idx(new long[] {0, 3, 1, 2, 3, 0}, 3, 2), t(3, 2));
        add("torch.scatter_add(a, b, c, d)", ScatterOps.SCATTER_ADD, d(0, 3), t(3, 4), 1L, idx(new long[] {0, 0, 1, 3, 2, 2}, 3, 2), t(3, 2));
        add("torch.index_add(a, b, c, d, alpha=e)", ScatterOps.INDEX_ADD, d(0, 3), t(4, 3), 0L, idx(new long[] {3, 0, 3}, 3), t(3, 3), 0.5);
        add("torch.sort(a, b, c)[0]", SortOps.SORT, d(0), t(3, 6), 1L, true);
        add("torch.topk(a, b)[0]", SortOps.TOPK, d(0), t(3, 6), 2L);
        add("torch.median(a, b, c)[0]", SortOps.MEDIAN_DIM, d(0), t(3, 6), 1L, false);
        add("torch.nanmedian(a, b, c)[0]", SortOps.NANMEDIAN_DIM, d(0), t(3, 6), 0L, true);
        add("torch.kthvalue(a, b, c)[0]", SortOps.KTHVALUE, d(0), t(4, 5), 2L, 0L);
        add("torch.median(a)", SortOps.MEDIAN, d(0), t(3, 5));
        add("torch.nanmedian(a)", SortOps.NANMEDIAN, d(0), t(4, 4));
        add("torch.mode(a, b, c)[0]", SortOps.MODE, d(0), Tensor.of(new float[] {1, 2, 2, 0, 3, 3, 5, 3, 4, 1, 1, 4}, 3, 4), 1L, false);
        add("torch.masked_select(a, b)", IndexingOps.MASKED_SELECT, d(0), t(1, 5), Tensor.of(new boolean[] {true, false, true, true, false, false, true, true, false, true}, 2, 5));

        // convolution and pooling
        add("torch.convolution(a, b, c, d, e, f, g, h, i)", ConvOps.CONVOLUTION, d(0, 1, 2), t(2, 4, 7, 6), t(6, 2, 3, 2), t(6),
                new int[] {2, 1}, new int[] {1, 0}, new int[] {1, 2}, false, new int[] {0, 0}, 2L);
        add("torch.conv2d(a, b, c, d, e, f, g)", ConvOps.CONV2D, d(0, 1, 2), t(2, 3, 8, 8), t(4, 3, 3, 3), t(4), new int[] {1}, new int[] {1}, new int[] {1}, 1L);
        add("torch.conv2d(a, b, c, d, e, f, g)", ConvOps.CONV2D, d(0, 1, 2), t(1, 3, 6, 6), t(3, 1, 3, 3), t(3), new int[] {2}, new int[] {1}, new int[] {1}, 3L);
        add("torch.max_pool2d(a, b, c, d, e, f)", ConvOps.MAX_POOL2D, d(0), t(2, 2, 7, 6), new int[] {3, 2}, new int[] {2, 1}, new int[] {1, 1}, new int[] {2, 1}, true);
        add("torch.max_pool2d(a, b)", ConvOps.MAX_POOL2D, d(0), t(2, 3, 8, 8), new int[] {2});
        add("torch.avg_pool2d(a, b, c, d, e, f)", ConvOps.AVG_POOL2D, d(0), t(2, 2, 5, 5), new int[] {3}, new int[] {2}, new int[] {1}, true, false);
        add("torch.avg_pool2d(a, b, c, d, e, f, g)", ConvOps.AVG_POOL2D, d(0), t(1, 2, 4, 4), new int[] {2}, new int[] {1}, new int[] {1}, false, true, 3L);
        add("torch.adaptive_avg_pool2d(a, b)", ConvOps.ADAPTIVE_AVG_POOL2D, d(0), t(2, 3, 5, 7), new int[] {3, 2});
        add("torch.adaptive_avg_pool2d(a, b)", ConvOps.ADAPTIVE_AVG_POOL2D, d(0), t(2, 3, 5, 7), new int[] {1, 1});

        // normalisation
        add("torch.batch_norm(a, b, c, d, e, f, g, h, False)", NormOps.BATCH_NORM, d(0, 1, 2), t(4, 3, 2, 2), t(3), t(3), t(3), pos(3), true, 0.1, 1e-5);
        add("torch.batch_norm(a, b, c, d, e, f, g, h, False)", NormOps.BATCH_NORM, d(0, 1, 2), t(4, 3, 5), t(3), t(3), t(3), pos(3), false, 0.1, 1e-5);
        add("torch.layer_norm(a, b, c, d, e)", NormOps.LAYER_NORM, d(0, 2, 3), t(3, 4, 5), new int[] {4, 5}, t(4, 5), t(4, 5), 1e-5);

        // losses
        Tensor target = idx(new long[] {2, 0, 4, 1, 2, 3}, 6), weight = pos(5);
        for (long r = 0; r < 3; r++) {
            add("torch.mse_loss(a, b, c)", LossOps.MSE_LOSS, d(0, 1), t(3, 4), t(3, 4), r);
            // a broadcast target: only self's gradient is compared, libtorch's for the target is scaled
            // by the target's own element count (mse_loss_backward called with the arguments swapped)
            add("torch.mse_loss(a, b, c)", LossOps.MSE_LOSS, d(0), t(3, 4), t(4), r);
            add("ops.aten.nll_loss_nd(a, b, c, d, e)", LossOps.NLL_LOSS_ND, d(0), t(6, 5), target, weight, r, 1L);
            add("ops.aten.cross_entropy_loss(a, b, c, d, e, f)", LossOps.CROSS_ENTROPY_LOSS, d(0), t(6, 5), target, weight, r, 1L, 0.2);
            add("torch.binary_cross_entropy_with_logits(a, b, c, d, e)", LossOps.BINARY_CROSS_ENTROPY_WITH_LOGITS, d(0, 1), t(3, 4), Inputs.rand(RNG, DType.FLOAT32, 3, 4),
                    pos(4), pos(4), r);
        }
        add("ops.aten.nll_loss_nd(a, b, c, d, e)", LossOps.NLL_LOSS_ND, d(0), t(2, 5, 3, 2), idx(new long[] {0, 1, 2, 3, 4, 0, 1, 1, 2, 2, 4, 4}, 2, 3, 2), weight, 1L, 2L);
        add("ops.aten.cross_entropy_loss(a, b, c, d, e, f)", LossOps.CROSS_ENTROPY_LOSS, d(0), t(2, 5, 3), idx(new long[] {0, 1, 2, 3, 4, 0}, 2, 3), weight, 1L, -100L, 0.0);
        add("ops.aten.cross_entropy_loss(a, b, c, d, e, f)", LossOps.CROSS_ENTROPY_LOSS, d(0, 1), t(4, 5), t(4, 5).softmax(1), weight, 1L, -100L, 0.1);

        // attention
        add("torch.scaled_dot_product_attention(a, b, c)", NnOps.SCALED_DOT_PRODUCT_ATTENTION, d(0, 1, 2), t(2, 3, 4), t(2, 5, 4), t(2, 5, 3));
        add("torch.scaled_dot_product_attention(a, b, c, None, e, f, scale=g)", NnOps.SCALED_DOT_PRODUCT_ATTENTION, d(0, 1, 2), t(1, 2, 4, 3), t(1, 2, 4, 3),
                t(1, 2, 4, 2), null, 0.0, true, 0.7);
        add("torch.scaled_dot_product_attention(a, b, c, d)", NnOps.SCALED_DOT_PRODUCT_ATTENTION, d(0, 1, 2), t(2, 3, 2), t(2, 4, 2), t(2, 4, 2), t(3, 4).gt(-0.5));
        // query row 1 sees no key: its output is 0 (_safe_softmax) and so are its gradients (they were NaN)
        add("torch.scaled_dot_product_attention(a, b, c, d)", NnOps.SCALED_DOT_PRODUCT_ATTENTION, d(0, 1, 2), t(2, 3, 2), t(2, 4, 2), t(2, 4, 2),
                Tensor.of(new double[] {1, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 1}, 3, 4).gt(0.5));
    }

    @TestFactory
    List<DynamicTest> gradientsMatchLibtorch() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Case c : CASES) tests.add(DynamicTest.dynamicTest(c.op() + ": " + c.name(), () -> check(c)));
        return tests;
    }

    private static void check(Case c) {
        Object[] args = c.args();
        int[] wrt = c.wrt();
        // a list argument (cat) is differentiated through its tensors; otherwise the listed positions
        Object[] emberArgs = args.clone();
        List<Tensor> leaves = new ArrayList<>();
        List<String> torchLeaves = new ArrayList<>();
        StringBuilder body = new StringBuilder();
        for (int i : wrt) {
            Tensor leaf = ((Tensor) args[i]).detach().requiresGrad(true);
            emberArgs[i] = leaf;
            leaves.add(leaf);
            String name = String.valueOf(LETTERS.charAt(i));
            body.append(name).append(" = ").append(name).append(".detach().requires_grad_(True)\n");
            torchLeaves.add(name);
        }
        for (int i = 0; i < args.length; i++) {
            if (!(args[i] instanceof List<?> list)) continue;
            List<Tensor> ls = new ArrayList<>();
            for (int k = 0; k < list.size(); k++) {
                Tensor leaf = ((Tensor) list.get(k)).detach().requiresGrad(true);
                ls.add(leaf);
                leaves.add(leaf);
                String name = "l" + i + "_" + k;
                body.append(name).append(" = ").append(LETTERS.charAt(i)).append("[").append(k).append("].detach().requires_grad_(True)\n");
                torchLeaves.add(name);
            }
            emberArgs[i] = ls;
            body.append(LETTERS.charAt(i)).append(" = [").append(String.join(", ", torchLeaves.subList(torchLeaves.size() - list.size(), torchLeaves.size()))).append("]\n");
        }
        Object out = c.op().call(emberArgs);
        Tensor y = out instanceof Tensor t ? t : (Tensor) ((List<?>) out).get(c.output());
        Tensor v = Inputs.randn(RNG, y.dtype(), y.shape());
        List<Tensor> got = Autograd.grad(List.of(y), leaves, List.of(v), false, false, false);

        int vIndex = args.length;
        body.append("y = ").append(c.torch()).append('\n');
        body.append("go: List[Optional[Tensor]] = [").append(LETTERS.charAt(vIndex)).append("]\n");
        body.append("return torch.autograd.grad([y], [").append(String.join(", ", torchLeaves)).append("], go)");
        Object[] torchArgs = java.util.Arrays.copyOf(args, args.length + 1);
        torchArgs[vIndex] = v;
        // a None argument is written inline in the expression; its letter gets a placeholder
        for (int i = 0; i < torchArgs.length; i++) if (torchArgs[i] == null) torchArgs[i] = 0L;
        // libtorch computes in float64 and its gradients are rounded to each leaf's dtype: libtorch 2.7.1's
        // float32 conv2d backward gave gradients 5 to 14 away from its own float64 ones in half the runs
        // on one host (AMD Zen 5, session 34), where Ember's were 1.3e-6 away, so its float32 run is no reference
        for (int i = 0; i < torchArgs.length; i++) torchArgs[i] = widened(torchArgs[i]);
        try (NDManager m = Torch.scope()) {
            NDList want = Torch.callListWithGrad(m, body.toString(), torchArgs);
            assertEquals(leaves.size(), want.size(), "gradients from libtorch");
            for (int k = 0; k < leaves.size(); k++) {
                Tensor reference = Torch.fromNd(want.get(k)).to(got.get(k).dtype());
                assertClose(got.get(k), reference, c.op() + " " + c.name() + ": gradient of " + torchLeaves.get(k), TOL);
            }
        }
    }

    /** A float32 tensor (or list of them) as float64; anything else as it is. */
    private static Object widened(Object arg) {
        if (arg instanceof Tensor t) return t.dtype() == dev.ember.tensor.DType.FLOAT32 ? t.to(dev.ember.tensor.DType.FLOAT64) : t;
        if (arg instanceof List<?> list) return list.stream().map(LibtorchGradientTest::widened).toList();
        return arg;
    }
}
