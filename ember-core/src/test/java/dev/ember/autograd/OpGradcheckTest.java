package dev.ember.autograd;

import dev.ember.ops.ActivationOps;
import dev.ember.ops.ConvOps;
import dev.ember.ops.RecurrentOps;
import dev.ember.ops.CreationOps;
import dev.ember.ops.DistanceOps;
import dev.ember.ops.IndexingOps;
import dev.ember.ops.LinalgOps;
import dev.ember.ops.LossOps;
import dev.ember.ops.MathOps;
import dev.ember.ops.NnOps;
import dev.ember.ops.NormOps;
import dev.ember.ops.OpOverload;
import dev.ember.ops.OpRegistry;
import dev.ember.ops.PointwiseOps;
import dev.ember.ops.ReductionOps;
import dev.ember.ops.ScanOps;
import dev.ember.ops.ScatterOps;
import dev.ember.ops.Schema;
import dev.ember.ops.ShapeOps;
import dev.ember.ops.SortOps;
import dev.ember.tensor.DType;
import dev.ember.tensor.Generator;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every op with a derivative formula, in float64, against finite differences ({@link GradCheck}):
 * each sample calls the op on leaves that require grad (and on fixed non-differentiable arguments).
 * A completeness check keeps the table whole: an op that gains a formula must gain a sample here.
 */
class OpGradcheckTest {
    private static final Generator RNG = new Generator(7);

    /** A float64 leaf that requires grad. */
    static Tensor x(int... shape) { return Tensor.randn(RNG, shape).to(DType.FLOAT64).requiresGrad(true); }

    /** A float64 leaf away from 0 (for log, sqrt, division). */
    static Tensor pos(int... shape) { return Tensor.rand(RNG, shape).to(DType.FLOAT64).add(0.5).detach().requiresGrad(true); }

    /** A float64 leaf in (0.1, 0.9): a probability away from 0 and 1. */
    static Tensor probability(int... shape) { return Tensor.rand(RNG, shape).to(DType.FLOAT64).mul(0.8).add(0.1).detach().requiresGrad(true); }

    /** A float64 leaf holding {@code v}: inputs with zeros where they must be. */
    static Tensor withZeros(double[] v, int... shape) { return Tensor.of(v, shape).requiresGrad(true); }

    /** Four rows of five with no, one, two and three zeros, the zeros first, inside and last. */
    static Tensor zeroRows() {
        return withZeros(new double[] {1.5, -0.5, 2, 0.7, -1.2, 0.9, 0, 1.3, -2, 0.6, 0, 1.1, 0.8, 0, -1.4, 1.2, 0, -0.7, 0, 0}, 4, 5);
    }

    /** {@code batch} float64 leaves {@code n x n}, the identity times n plus noise: far from singular. */
    static Tensor wellConditioned(int batch, int n) {
        Tensor noise = Tensor.randn(RNG, batch, n, n).to(DType.FLOAT64).mul(0.3);
        return noise.add(Tensor.eye(n).to(DType.FLOAT64).mul((double) n)).detach().requiresGrad(true);
    }

    /** A float64 constant (no grad). */
    static Tensor c(int... shape) { return Tensor.randn(RNG, shape).to(DType.FLOAT64); }

    static Tensor idx(long[] v, int... shape) { return Tensor.of(v, shape); }

    /** One sample: the op, then its arguments (leaves requiring grad are the checked inputs). */
    record Sample(OpOverload op, String label, Object... args) {}

    static final List<Sample> SAMPLES = new ArrayList<>();

    static void s(OpOverload op, Object... args) { SAMPLES.add(new Sample(op, "", args)); }

    static void s(OpOverload op, String label, Object... args) { SAMPLES.add(new Sample(op, label, args)); }

    static {
        s(PointwiseOps.ADD_TENSOR, x(2, 3), x(3));
        s(PointwiseOps.ADD_TENSOR, "alpha", x(2, 3), x(2, 1), 2.5);
        s(PointwiseOps.ADD_SCALED_BY, "alpha a 0-d tensor, broadcast", x(2, 3), x(2, 1), x());
        s(PointwiseOps.ADD_SCALAR, x(2, 3), 1.5);
        s(PointwiseOps.SUB_TENSOR, x(2, 3), x(1, 3), 0.5);
        s(PointwiseOps.SUB_SCALAR, x(4), 2.0);
        s(PointwiseOps.RSUB_SCALAR, x(4), 2.0, 3.0);
        s(PointwiseOps.MUL_TENSOR, x(2, 3), x(2, 3));
        s(PointwiseOps.MUL_TENSOR, "broadcast", x(4, 1), x(3));
        s(PointwiseOps.MUL_SCALAR, x(3), -1.5);
        s(PointwiseOps.DIV_TENSOR, x(2, 3), pos(3));
        s(PointwiseOps.DIV_SCALAR, x(3), 4.0);
        s(PointwiseOps.DIV_TENSOR_MODE, x(3), pos(3), null);
        s(PointwiseOps.DIV_SCALAR_MODE, x(3), 3.0, null);
        s(PointwiseOps.FLOOR_DIVIDE, x(5).mul(3.0).add(0.5).detach().requiresGrad(true), pos(5));
        s(PointwiseOps.FLOOR_DIVIDE_SCALAR, x(5).mul(3.0).add(0.5).detach().requiresGrad(true), 0.7);
        s(PointwiseOps.REMAINDER_TENSOR, pos(5), pos(5));
        s(PointwiseOps.REMAINDER_SCALAR, x(5), 0.7);
        s(PointwiseOps.FMOD_TENSOR, x(5), pos(5));
        s(PointwiseOps.FMOD_SCALAR, x(5), 0.7);
        s(PointwiseOps.POW_TENSOR_TENSOR, pos(2, 3), x(2, 3));
        s(PointwiseOps.POW_TENSOR_SCALAR, x(2, 3), 3.0);
        s(PointwiseOps.POW_TENSOR_SCALAR, "fractional", pos(4), 1.5);
        s(PointwiseOps.MAXIMUM, x(2, 3), x(3));
        s(PointwiseOps.MINIMUM, x(2, 3), x(2, 3));
        s(PointwiseOps.NEG, x(3));
        s(PointwiseOps.ABS, x(2, 3));
        s(PointwiseOps.EXP, x(2, 3));
        s(PointwiseOps.LOG, pos(2, 3));
        s(PointwiseOps.LOG1P, pos(2, 3));
        s(PointwiseOps.SQRT, pos(2, 3));
        s(PointwiseOps.RSQRT, pos(2, 3));
        s(PointwiseOps.SIN, x(2, 3));
        s(PointwiseOps.COS, x(2, 3));
        s(PointwiseOps.TANH, x(2, 3));
        s(PointwiseOps.SIGMOID, x(2, 3));
        s(PointwiseOps.ERF, x(2, 3));
        s(PointwiseOps.FLOOR, x(2, 3));
        s(PointwiseOps.CEIL, x(2, 3));
        s(PointwiseOps.ROUND, x(2, 3));
        s(PointwiseOps.ROUND_DECIMALS, x(2, 3), 1L);
        s(PointwiseOps.TRUNC, x(2, 3));
        s(PointwiseOps.FRAC, x(2, 3));
        s(PointwiseOps.SIGN, x(2, 3));
        s(PointwiseOps.RECIPROCAL, pos(2, 3));
        s(PointwiseOps.TAN, x(2, 3).mul(0.5).detach().requiresGrad(true));
        s(PointwiseOps.ATAN, x(2, 3));
        s(PointwiseOps.ASIN, x(2, 3).mul(0.3).detach().requiresGrad(true));
        s(PointwiseOps.ACOS, x(2, 3).mul(0.3).detach().requiresGrad(true));
        s(PointwiseOps.SINH, x(2, 3));
        s(PointwiseOps.COSH, x(2, 3));
        s(PointwiseOps.ASINH, x(2, 3));
        s(PointwiseOps.ACOSH, pos(2, 3).add(1.0).detach().requiresGrad(true));
        s(PointwiseOps.ATANH, x(2, 3).mul(0.3).detach().requiresGrad(true));
        s(PointwiseOps.EXPM1, x(2, 3));
        s(PointwiseOps.EXP2, x(2, 3));
        s(PointwiseOps.LOG2, pos(2, 3));
        s(PointwiseOps.LOG10, pos(2, 3));
        s(PointwiseOps.ATAN2, x(2, 3), x(3));
        s(PointwiseOps.RELU, x(2, 3));
        s(PointwiseOps.SILU, x(2, 3));
        s(PointwiseOps.GELU, x(2, 3));
        s(PointwiseOps.GELU, "tanh", x(2, 3), "tanh");
        s(PointwiseOps.GELU_BACKWARD, x(2, 3), x(2, 3).mul(2.0).detach().requiresGrad(true));
        s(PointwiseOps.GELU_BACKWARD, "tanh", x(2, 3), x(3).mul(2.0).detach().requiresGrad(true), "tanh");
        s(PointwiseOps.REMAINDER_SCALAR_TENSOR, 2.5, pos(5));
        s(PointwiseOps.DROPOUT, x(4, 5), 0.4, true);
        s(PointwiseOps.DROPOUT, "eval", x(4, 5), 0.4, false);
        s(PointwiseOps.NATIVE_DROPOUT, x(4, 5), 0.3, true);
        s(PointwiseOps.NATIVE_DROPOUT, "p=1", x(3), 1.0, null);
        s(PointwiseOps.NATIVE_DROPOUT, "eval", x(3), 0.3, false);
        s(PointwiseOps.NATIVE_DROPOUT_BACKWARD, x(4, 5), c(4, 5).gt(0.0), 1.25);
        s(PointwiseOps.CLAMP, x(2, 4), -0.5, 0.5);
        s(PointwiseOps.CLAMP, "min only", x(2, 4), -0.2, null);
        s(PointwiseOps.CLAMP_TENSOR, x(2, 4), x(2, 4).sub(1.0).detach().requiresGrad(true), x(4).add(1.0).detach().requiresGrad(true));
        s(PointwiseOps.WHERE_SELF, c(2, 3).gt(0.0), x(2, 3), x(3));
        s(PointwiseOps.WHERE_SCALAR_OTHER, c(2, 3).gt(0.0), x(2, 3), 1.0);
        s(PointwiseOps.WHERE_SCALAR_SELF, c(2, 3).gt(0.0), 1.0, x(2, 3));
        s(PointwiseOps.MASKED_FILL_SCALAR, x(2, 3), c(3).gt(0.0), 2.0);
        s(PointwiseOps.MASKED_FILL_TENSOR, x(2, 3), c(2, 3).gt(0.0), x());
        s(PointwiseOps.FILL, x(2, 3), 2.0);
        s(PointwiseOps.ZERO, x(2, 3));

        s(ReductionOps.SUM, x(2, 3));
        s(ReductionOps.SUM_DIM, x(2, 3, 4), new int[] {0, 2}, false);
        s(ReductionOps.SUM_DIM, "keepdim", x(2, 3, 4), new int[] {-1}, true);
        s(ReductionOps.MEAN, x(2, 3));
        s(ReductionOps.MEAN_DIM, x(2, 3, 4), new int[] {1}, false);
        s(ReductionOps.AMAX, x(3, 4), new int[] {1}, false);
        s(ReductionOps.AMIN, x(3, 4), new int[] {0}, true);
        s(ReductionOps.VAR, x(3, 4), new int[] {1}, 1L, false);
        s(ReductionOps.STD, x(3, 4), new int[] {0}, 0L, true);
        s(ReductionOps.SOFTMAX, x(3, 4), 1, false);
        s(ReductionOps.LOG_SOFTMAX, x(3, 4), 0, false);
        s(ReductionOps.SOFTMAX_INT, x(3, 4), -1, null);
        s(ReductionOps.LOG_SOFTMAX_INT, x(3, 4), -1, null);
        s(ScanOps.CUMSUM, x(3, 4), 1);
        // products at zeros: ATen's prod_backward and cumprod_backward give the product of the others (one zero in a
        // slice), and zero everywhere in a slice with two (rows: none, one, two, three zeros)
        s(ReductionOps.PROD, x(2, 3));
        s(ReductionOps.PROD, "one zero", withZeros(new double[] {1.5, 0, -2, 0.5, 1.2, 0.7}, 2, 3));
        s(ReductionOps.PROD, "two zeros", withZeros(new double[] {1.5, 0, -2, 0.5, 0, 0.7}, 2, 3));
        s(ReductionOps.PROD_DIM, x(2, 3, 4), 1, false, null);
        s(ReductionOps.PROD_DIM, "keepdim", x(2, 3, 4), -1, true, null);
        s(ReductionOps.PROD_DIM, "zeros", zeroRows(), 1, false, null);
        s(ReductionOps.PROD_DIM, "zeros along dim 0", zeroRows(), 0, true, null);
        s(ScanOps.CUMPROD, x(3, 4), 1, null);
        s(ScanOps.CUMPROD, "zeros", zeroRows(), 1, null);
        s(ScanOps.CUMPROD, "zeros along dim 0", zeroRows(), 0, null);
        s(MathOps.ERFC, x(2, 3));
        s(MathOps.ERFINV, probability(2, 3));
        s(MathOps.LGAMMA, pos(2, 3));
        s(MathOps.DIGAMMA, pos(2, 3));
        // the samplers' values do not depend on self's (the generator restarts each call): a zero gradient, as ATen's
        s(CreationOps.UNIFORM, x(2, 3), -1.0, 2.0, null);
        s(CreationOps.NORMAL_FUNCTIONAL, x(2, 3), 0.5, 2.0, null);
        s(CreationOps.EXPONENTIAL, x(2, 3), 1.5, null);
        s(CreationOps.CAUCHY, x(2, 3), 0.0, 1.0, null);
        s(CreationOps.GEOMETRIC, x(2, 3), 0.3, null);
        s(CreationOps.LOG_NORMAL, x(2, 3), 0.0, 0.5, null);
        s(MathOps.SPECIAL_XLOG1PY, x(2, 3), pos(3));
        s(MathOps.SPECIAL_XLOG1PY, "self zero", withZeros(new double[] {0, 1.5, 0, -0.5}, 4), pos(4));
        s(MathOps.SPECIAL_ENTR, pos(2, 3));
        s(MathOps.SPECIAL_ERFCX, x(2, 3));
        s(MathOps.I0, x(2, 3));
        s(MathOps.SPECIAL_I0E, x(2, 3));
        s(MathOps.SPECIAL_I1, x(2, 3));
        s(MathOps.SPECIAL_I1E, x(2, 3));
        s(MathOps.SPECIAL_LOG_NDTR, x(2, 3).mul(2.0).detach().requiresGrad(true));
        s(ScanOps.CUMMAX, x(3, 4), 1L);
        s(ScanOps.CUMMIN, x(3, 4), 0L);
        s(ScanOps.LOGCUMSUMEXP, x(3, 4), 1L);
        s(ScanOps.LOGCUMSUMEXP, "negative dim, wide range", x(2, 5).mul(20.0).detach().requiresGrad(true), -1L);
        s(MathOps.LOGADDEXP, x(2, 3), x(3));
        s(MathOps.LOGADDEXP2, x(2, 3), x(2, 1));
        s(MathOps.HYPOT, x(2, 3), x(3));
        s(MathOps.XLOGY, x(2, 3), pos(2, 3));
        s(MathOps.XLOGY_SCALAR_OTHER, x(2, 3), 2.5);
        s(MathOps.DIFF, x(3, 5), 2, 1, null, null);
        s(MathOps.LINALG_CROSS, x(4, 3), x(4, 3), -1);
        s(MathOps.TENSORDOT, x(2, 3), x(3, 4), new int[] {1}, new int[] {0});
        s(MathOps.NANMEAN, x(3, 4), new int[] {1}, false, null);
        s(DistanceOps.CDIST, x(4, 3), x(5, 3), 2.0, null);

        s(ShapeOps.VIEW, x(2, 6), new int[] {3, 4});
        s(ShapeOps.RESHAPE, x(2, 6), new int[] {4, -1});
        s(ShapeOps.UNSAFE_VIEW, x(2, 6), new int[] {4, -1});
        s(ShapeOps.FLATTEN, x(2, 3, 2), 1, -1);
        s(ShapeOps.UNSQUEEZE, x(2, 3), 1);
        s(ShapeOps.SQUEEZE, x(2, 1, 3));
        s(ShapeOps.SQUEEZE_DIM, x(2, 1, 3), 1);
        s(ShapeOps.PERMUTE, x(2, 3, 4), new int[] {2, 0, 1});
        s(ShapeOps.TRANSPOSE, x(2, 3, 4), 0, 2);
        s(ShapeOps.T, x(2, 3));
        s(ShapeOps.EXPAND, x(3, 1), new int[] {2, 3, 4});
        s(ShapeOps.SLICE, x(5, 3), 0, 1L, 4L, 1L);
        s(ShapeOps.SLICE, "step", x(3, 7), 1, 1L, 7L, 2L);
        s(ShapeOps.NARROW, x(3, 5), 1, 2, 2);
        s(ShapeOps.SELECT, x(3, 4), 1, -1);
        s(ShapeOps.CLONE, x(2, 3));
        s(ShapeOps.TO_COPY, x(2, 3), DType.FLOAT64);
        s(ShapeOps.SPLIT, x(5, 2), 2, 0);
        s(ShapeOps.SPLIT_WITH_SIZES, x(2, 5), new int[] {1, 4}, 1);
        s(ShapeOps.CHUNK, x(6, 2), 3, 0);
        s(ShapeOps.CAT, List.of(x(2, 3), x(1, 3), x(4, 3)), 0);
        s(ShapeOps.STACK, List.of(x(2, 3), x(2, 3)), 1);

        s(LinalgOps.MM, x(2, 3), x(3, 4));
        s(dev.ember.ops.LuOps.LINALG_DET, "batched", wellConditioned(2, 3));
        s(dev.ember.ops.LuOps.LINALG_SLOGDET, "batched", wellConditioned(2, 3));
        s(dev.ember.ops.LuOps.LINALG_INV, "batched", wellConditioned(2, 3));
        s(dev.ember.ops.LuOps.LINALG_SOLVE, "matrix right-hand side, broadcast", wellConditioned(2, 3), x(3, 2), true);
        s(dev.ember.ops.LuOps.LINALG_SOLVE, "vector right-hand side", wellConditioned(1, 3).squeeze(0).detach().requiresGrad(true), x(3), true);
        s(dev.ember.ops.LinalgLuOps.LINALG_LU_FACTOR_EX, "square, batched", x(2, 3, 3), true, false);
        s(dev.ember.ops.LinalgLuOps.LINALG_LU_FACTOR_EX, "tall", x(4, 2), true, false);
        s(dev.ember.ops.LinalgLuOps.LINALG_LU_FACTOR, "wide", x(2, 4), true);
        s(dev.ember.ops.LinalgLuOps.LU_UNPACK, "square", x(3, 3), Tensor.of(new int[] {2, 3, 3}, 3), true, true);
        s(dev.ember.ops.LinalgLuOps.LU_UNPACK, "wide", x(2, 4), Tensor.of(new int[] {2, 2}, 2), true, true);
        s(dev.ember.ops.LinalgLuOps.LU_UNPACK, "tall", x(4, 2), Tensor.of(new int[] {3, 4}, 2), true, true);
        s(dev.ember.ops.LinalgLuOps.LINALG_SOLVE_TRIANGULAR, "upper, left, broadcast", wellConditioned(2, 3), x(3, 2), true, true, false);
        s(dev.ember.ops.LinalgLuOps.LINALG_SOLVE_TRIANGULAR, "lower, right, unitriangular", wellConditioned(1, 3), x(2, 2, 3), false, false, true);
        s(dev.ember.ops.LinalgLuOps.LINALG_INV_EX, "batched", wellConditioned(2, 3), false);
        s(dev.ember.ops.LinalgLuOps.LINALG_SOLVE_EX, "broadcast", wellConditioned(2, 3), x(3, 2), true, false);
        s(dev.ember.ops.OrthogonalOps.LINALG_QR, "tall, reduced", x(2, 4, 3), "reduced");
        s(dev.ember.ops.OrthogonalOps.LINALG_QR, "wide", x(3, 5), "reduced");
        s(dev.ember.ops.OrthogonalOps.LINALG_QR, "square, complete", x(3, 3), "complete");
        s(dev.ember.ops.OrthogonalOps.LINALG_SVD, "tall, reduced", x(2, 4, 3), false, null);
        s(dev.ember.ops.OrthogonalOps.LINALG_SVD, "wide, reduced", x(3, 5), false, null);
        s(dev.ember.ops.OrthogonalOps.LINALG_SVD, "square, full", x(3, 3), true, null);
        s(LinalgOps.BMM, x(2, 2, 3), x(2, 3, 4));
        s(LinalgOps.MATMUL, x(2, 3), x(3, 4));
        s(LinalgOps.MATMUL, "batch broadcast", x(2, 1, 3, 4), x(3, 4, 2));
        s(LinalgOps.MATMUL, "vector @ batch", x(4), x(2, 4, 3));
        s(LinalgOps.MATMUL, "batch @ vector", x(2, 3, 4), x(4));
        s(LinalgOps.MATMUL, "dot", x(4), x(4));
        s(LinalgOps.ADDMM, x(4), x(2, 3), x(3, 4), 0.5, 2.0);
        s(IndexingOps.INDEX_SELECT, x(4, 3), 0, idx(new long[] {3, 0, 3}, 3));
        s(IndexingOps.GATHER, x(3, 4), 1, idx(new long[] {0, 3, 1, 1, 2, 2}, 3, 2));
        s(IndexingOps.EMBEDDING, x(5, 3), idx(new long[] {1, 4, 1, 0}, 2, 2), -1L);   // padding_idx: BackwardTest
        s(IndexingOps.MASKED_SELECT, x(3, 4), Tensor.of(new boolean[] {true, false, false, true}, 4));   // self broadcast along dim 0
        s(IndexingOps.MASKED_SELECT, "mask broadcast", x(1, 4), Tensor.of(new boolean[] {true, false, true, true, false, false}, 3, 2, 1));
        s(IndexingOps.INDEX_TENSOR, x(3, 2, 2), java.util.List.of(Tensor.of(new boolean[] {true, false, true, true, true, false}, 3, 2)));
        s(IndexingOps.INDEX_TENSOR, "integers, a whole dim between", x(3, 2, 4), java.util.Arrays.asList(idx(new long[] {2, 0, 2}, 3), null, idx(new long[] {-1, 1, 1}, 3)));
        s(dev.ember.ops.MatrixExpOps.LINALG_MATRIX_EXP, x(3, 3));
        s(dev.ember.ops.MatrixExpOps.LINALG_MATRIX_EXP, "batched, scaled", wellConditioned(2, 3));
        s(dev.ember.ops.NumericOps.FREXP, x(3, 4));
        s(dev.ember.ops.ViewScatterOps.SELECT_SCATTER, x(3, 4), x(3), 1, -1);
        s(dev.ember.ops.ViewScatterOps.SLICE_SCATTER, x(4, 6), x(4, 3), 1, 1L, null, 2);
        s(dev.ember.ops.ViewScatterOps.DIAGONAL_SCATTER, x(2, 3, 4), x(3, 1), 1, -1, 0);
        s(dev.ember.ops.StridedViewOps.UNFOLD, "overlapping windows", x(5, 4), 0, 3, 2);
        s(dev.ember.ops.StridedViewOps.UNFOLD, "0-d", x(), 0, 1, 1);
        s(dev.ember.ops.StridedViewOps.AS_STRIDED, "overlapping, offset", x(4, 5), new int[] {3, 3}, new int[] {2, 1}, 1L);
        s(dev.ember.ops.StridedViewOps.AS_STRIDED, "own offset, a broadcast dim", x(3, 4), new int[] {2, 3, 2}, new int[] {0, 4, 1}, null);
        s(dev.ember.ops.StridedViewOps.AS_STRIDED_SCATTER, x(4, 5), x(2, 3), new int[] {2, 3}, new int[] {5, 2}, 1L);
        s(dev.ember.ops.IndexPutOps.INDEX_PUT, x(4, 3), java.util.Arrays.asList(null, idx(new long[] {2, 0}, 2)), x(2), false);   // values broadcast along dim 0
        s(dev.ember.ops.IndexPutOps.INDEX_PUT, "accumulate, repeats", x(4, 3), java.util.List.of(idx(new long[] {3, 0, 3}, 3)), x(3, 3), true);
        s(dev.ember.ops.IndexPutOps.INDEX_PUT, "mask", x(4, 3), java.util.List.of(Tensor.of(new boolean[] {true, false, true, true}, 4)), x(3), false);

        s(ScatterOps.SCATTER_SRC, x(3, 4), 1, idx(new long[] {0, 3, 1, 2, 3, 0}, 3, 2), x(3, 2));
        s(ScatterOps.SCATTER_VALUE, x(3, 4), 0, idx(new long[] {2, 0, 1, 1}, 1, 4), 1.5);
        s(ScatterOps.SCATTER_REDUCE, "add", x(3, 4), 1, idx(new long[] {0, 0, 1, 3, 2, 2}, 3, 2), x(3, 2), "add");
        s(ScatterOps.SCATTER_REDUCE, "multiply", x(3, 4), 1, idx(new long[] {0, 0, 1, 3, 2, 2}, 3, 2), c(3, 2), "multiply");
        s(ScatterOps.SCATTER_VALUE_REDUCE, "add", x(3, 4), 1, idx(new long[] {0, 0, 1, 3}, 2, 2), 2.0, "add");
        s(ScatterOps.SCATTER_VALUE_REDUCE, "multiply", x(3, 4), 1, idx(new long[] {0, 0, 1, 3}, 2, 2), 2.0, "multiply");
        s(ScatterOps.SCATTER_ADD, x(3, 4), 1, idx(new long[] {0, 0, 1, 3, 2, 2}, 3, 2), x(3, 2));
        // scatter_reduce and index_reduce: every reduction, with and without self (randn values: no ties, no zeros)
        for (String reduce : new String[] {"sum", "prod", "mean", "amax", "amin"}) {
            for (boolean includeSelf : new boolean[] {true, false}) {
                s(dev.ember.ops.ScatterReduceOps.SCATTER_REDUCE, reduce + (includeSelf ? "" : ", without self"), x(3, 4), 1,
                        idx(new long[] {0, 0, 1, 3, 2, 2}, 3, 2), x(3, 2), reduce, includeSelf);
                if (reduce.equals("sum")) continue;   // index_reduce has no sum (index_add is its sum)
                s(dev.ember.ops.ScatterReduceOps.INDEX_REDUCE, reduce + (includeSelf ? "" : ", without self"), x(3, 4), 0,
                        idx(new long[] {0, 2, 0}, 3), x(3, 4), reduce, includeSelf);
            }
        }
        s(ScatterOps.INDEX_ADD, x(4, 3), 0, idx(new long[] {3, 0, 3}, 3), x(3, 3), 0.5);
        s(SortOps.SORT, x(3, 5), 1, true);
        s(SortOps.SORT_STABLE, x(4, 3), null, 0, false);
        s(SortOps.TOPK, x(3, 5), 2L, -1, true, true);
        s(SortOps.MEDIAN, x(3, 5));
        s(SortOps.NANMEDIAN, x(4, 3));
        s(SortOps.MODE, x(3, 5), 1L, false);
        s(SortOps.MODE, "keepdim", x(3, 5), 0L, true);

        s(LossOps.MSE_LOSS, x(3, 4), x(4), 1L);
        s(LossOps.MSE_LOSS, "none", x(3, 4), x(3, 4), 0L);
        s(LossOps.MSE_LOSS, "sum", x(3, 4), c(3, 4), 2L);
        Tensor target = idx(new long[] {2, 0, 4, 1, 2, 3}, 6), weight = c(5).abs().add(0.1);
        for (long r = 0; r < 3; r++) {
            s(LossOps.NLL_LOSS_FORWARD, "reduction " + r, x(6, 5), target, weight, r, 1L);
            s(LossOps.NLL_LOSS, "reduction " + r, x(6, 5), target, null, r, -100L);
            s(LossOps.CROSS_ENTROPY_LOSS, "reduction " + r, x(6, 5), target, weight, r, 1L, 0.2);
            s(LossOps.BINARY_CROSS_ENTROPY_WITH_LOGITS, "reduction " + r, x(3, 4), pos(3, 4).sub(0.5).detach().requiresGrad(true), c(4).abs(), c(4).abs().add(0.5), r);
        }
        Tensor logits = c(6, 5);
        for (long r = 0; r < 3; r++) {
            Tensor total = LossOps.NLL_LOSS_FORWARD.callList(logits, target, weight, r, 1L).get(1);
            s(LossOps.NLL_LOSS_BACKWARD, "reduction " + r, r == 0 ? x(6) : x(), logits, target, weight, r, 1L, total);
        }
        s(LossOps.NLL_LOSS_FORWARD, "unbatched", x(5), idx(new long[] {3}), null, 1L, -100L);
        s(LossOps.NLL_LOSS_ND, x(2, 5, 3, 2), idx(new long[] {0, 1, 2, 3, 4, 0, 1, 1, 2, 2, 4, 4}, 2, 3, 2), weight, 1L, 2L);
        s(LossOps.NLL_LOSS_ND, "none", x(2, 5, 3), idx(new long[] {0, 1, 2, 3, 4, 0}, 2, 3), null, 0L, -100L);
        s(LossOps.CROSS_ENTROPY_LOSS, "spatial", x(2, 5, 3), idx(new long[] {0, 1, 2, 3, 4, 0}, 2, 3), null, 1L, -100L, 0.0);
        s(LossOps.CROSS_ENTROPY_LOSS, "probabilities", x(4, 5), c(4, 5).softmax(1), weight, 1L, -100L, 0.1);
        s(LossOps.BINARY_CROSS_ENTROPY_WITH_LOGITS, "no weights", x(6), pos(6).sub(0.5).detach().requiresGrad(true), null, null, 1L);
        for (long r = 0; r < 3; r++) {
            s(LossOps.BINARY_CROSS_ENTROPY, "reduction " + r, probability(3, 4), probability(3, 4), c(4).abs(), r);
        }
        s(ActivationOps.LOG_SIGMOID, x(3, 4));
        s(ActivationOps.MISH, x(3, 4));

        s(ConvOps.CONVOLUTION, x(2, 4, 5, 6), x(6, 2, 3, 2), x(6), new int[] {2, 1}, new int[] {1, 0}, new int[] {1, 2}, false, new int[] {0}, 2);
        s(ConvOps.CONVOLUTION, "1x1, no bias", x(1, 3, 4, 4), x(2, 3, 1, 1), null, new int[] {1}, new int[] {0}, new int[] {1}, false, new int[] {0}, 1);
        s(ConvOps.CONVOLUTION, "depthwise", x(2, 3, 5, 5), x(3, 1, 3, 3), x(3), new int[] {1}, new int[] {1}, new int[] {1}, false, new int[] {0}, 3);
        s(RecurrentOps.RNN_LAYER, "LSTM", x(3, 2, 16), x(2, 4), x(2, 4), x(16, 4), x(16), "LSTM", false);
        s(RecurrentOps.RNN_LAYER, "GRU reversed, no bias", x(4, 2, 12), x(2, 4), null, x(12, 4), null, "GRU", true);
        s(RecurrentOps.RNN_LAYER, "tanh", x(3, 1, 5), x(1, 5), null, x(5, 5), x(5), "RNN_TANH", false);
        s(ConvOps.CONV2D, "unbatched", x(2, 5, 5), x(3, 2, 2, 2), x(3), new int[] {2}, new int[] {1}, new int[] {1}, 1);
        s(ConvOps.CONVOLUTION, "3-d: depth stride, padding, dilation, groups", x(2, 4, 5, 4, 5), x(6, 2, 2, 3, 2), x(6), new int[] {2, 1, 1},
                new int[] {1, 0, 1}, new int[] {1, 1, 2}, false, new int[] {0}, 2);
        s(ConvOps.CONV_TRANSPOSE3D, "stride, output padding, groups", x(1, 4, 2, 3, 2), x(4, 1, 2, 2, 2), x(2), new int[] {2, 1, 2}, new int[] {1, 0, 0},
                new int[] {1, 0, 1}, 2, new int[] {1});
        s(ConvOps.CONV3D, "unbatched", x(2, 4, 3, 4), x(3, 2, 2, 2, 3), x(3), new int[] {1, 2, 1}, new int[] {1}, new int[] {1}, 1);
        s(ConvOps.CONVOLUTION_BACKWARD, "3-d", x(2, 6, 3, 2, 5), x(2, 4, 5, 4, 5), x(6, 2, 2, 3, 2), new int[] {6}, new int[] {2, 1, 1},
                new int[] {1, 0, 1}, new int[] {1, 1, 2}, false, new int[] {0}, 2, new boolean[] {true, true, true});
        s(ConvOps.CONVOLUTION_BACKWARD, x(2, 6, 3, 4), x(2, 4, 5, 6), x(6, 2, 3, 2), new int[] {6}, new int[] {2, 1}, new int[] {1, 0}, new int[] {1, 2},
                false, new int[] {0}, 2, new boolean[] {true, true, true});
        s(ConvOps.CONVOLUTION_BACKWARD, "batch of 3, stride 2, dilation, 3 groups, odd sizes", x(3, 6, 4, 4), x(3, 3, 7, 6), x(6, 1, 2, 3), new int[] {6},
                new int[] {2, 2}, new int[] {1, 2}, new int[] {2, 1}, false, new int[] {0}, 3, new boolean[] {true, true, true});
        s(ConvOps.CONVOLUTION_BACKWARD, "1x1, weight only", x(2, 3, 4, 5), x(2, 5, 4, 5), x(3, 5, 1, 1), null, new int[] {1}, new int[] {0}, new int[] {1},
                false, new int[] {0}, 1, new boolean[] {false, true, false});
        s(ConvOps.CONVOLUTION_BACKWARD, "input only", x(1, 2, 3, 3), x(1, 3, 5, 5), x(2, 3, 3, 3), null, new int[] {1}, new int[] {0}, new int[] {1},
                false, new int[] {0}, 1, new boolean[] {true, false, false});
        s(ConvOps.MAX_POOL2D, x(2, 2, 5, 6), new int[] {2, 2}, new int[] {}, new int[] {0}, new int[] {1}, false);
        s(ConvOps.MAX_POOL2D, "padded, dilated, ceil, unbatched", x(2, 7, 6), new int[] {3, 2}, new int[] {2, 1}, new int[] {1, 1}, new int[] {2, 1}, true);
        s(ConvOps.MAX_POOL2D_WITH_INDICES, x(1, 3, 4, 4), new int[] {3}, new int[] {1}, new int[] {1}, new int[] {1}, false);
        Tensor poolIn = c(2, 3, 5, 4);
        Tensor indices = ConvOps.MAX_POOL2D_WITH_INDICES.callList(poolIn, new int[] {2}, new int[] {2}, new int[] {1}, new int[] {1}, true).get(1);
        s(ConvOps.MAX_POOL2D_WITH_INDICES_BACKWARD, x(2, 3, 3, 3), poolIn, new int[] {2}, new int[] {2}, new int[] {1}, new int[] {1}, true, indices);
        s(ConvOps.AVG_POOL2D, x(2, 2, 5, 6), new int[] {2, 3}, new int[] {}, new int[] {0}, false, true, null);
        s(ConvOps.AVG_POOL2D, "padded, ceil, no pad count", x(2, 5, 5), new int[] {3}, new int[] {2}, new int[] {1}, true, false, null);
        s(ConvOps.AVG_POOL2D, "divisor", x(1, 2, 4, 4), new int[] {2}, new int[] {1}, new int[] {1}, false, true, 3);
        s(ConvOps.AVG_POOL2D_BACKWARD, x(2, 3, 3), c(2, 5, 5), new int[] {3}, new int[] {2}, new int[] {1}, true, false, null);
        s(ConvOps.ADAPTIVE_AVG_POOL2D, x(2, 3, 5, 7), new int[] {3, 2});
        s(ConvOps.ADAPTIVE_AVG_POOL2D, "1x1 of any rank", x(2, 2, 3, 4, 5), new int[] {1, 1});
        s(ConvOps.ADAPTIVE_AVG_POOL2D_BACKWARD, x(3, 3, 2), c(3, 5, 7));
        s(ConvOps.MAX_POOL3D, "padded, dilated, ceil", x(1, 2, 4, 5, 5), new int[] {2, 3, 2}, new int[] {2, 1, 2}, new int[] {1, 1, 0},
                new int[] {1, 1, 2}, true);
        s(ConvOps.MAX_POOL3D_WITH_INDICES, "unbatched", x(2, 4, 4, 3), new int[] {2}, new int[] {}, new int[] {0}, new int[] {1}, false);
        Tensor volume = c(1, 2, 4, 4, 4);
        Tensor volumeIndices = ConvOps.MAX_POOL3D_WITH_INDICES.callList(volume, new int[] {2}, new int[] {2}, new int[] {1}, new int[] {1}, true).get(1);
        s(ConvOps.MAX_POOL3D_WITH_INDICES_BACKWARD, x(1, 2, 3, 3, 3), volume, new int[] {2}, new int[] {2}, new int[] {1}, new int[] {1}, true, volumeIndices);
        s(ConvOps.AVG_POOL3D, x(2, 2, 4, 5, 4), new int[] {2, 3, 2}, new int[] {}, new int[] {0}, false, true, null);
        s(ConvOps.AVG_POOL3D, "padded, ceil, no pad count, unbatched", x(2, 5, 4, 5), new int[] {3}, new int[] {2}, new int[] {1}, true, false, null);
        s(ConvOps.AVG_POOL3D, "divisor", x(1, 2, 3, 4, 4), new int[] {2}, new int[] {1}, new int[] {1}, false, true, 3);
        s(ConvOps.ADAPTIVE_AVG_POOL3D, x(2, 2, 5, 4, 7), new int[] {3, 2, 4});
        s(ConvOps.ADAPTIVE_AVG_POOL3D, "1x1x1, unbatched", x(2, 3, 4, 3), new int[] {1, 1, 1});
        s(ConvOps.ADAPTIVE_AVG_POOL3D_BACKWARD, x(2, 3, 2, 4), c(2, 5, 3, 7));
        s(ConvOps.AVG_POOL3D_BACKWARD, x(1, 2, 3, 3, 3), c(1, 2, 5, 5, 5), new int[] {3}, new int[] {2}, new int[] {1}, true, false, null);

        s(NnOps.SCALED_DOT_PRODUCT_ATTENTION, x(2, 3, 4), x(2, 5, 4), x(2, 5, 3));
        s(NnOps.SCALED_DOT_PRODUCT_ATTENTION, "causal, scale", x(1, 2, 4, 3), x(1, 2, 4, 3), x(1, 2, 4, 2), null, 0.0, true, 0.7);
        s(NnOps.SCALED_DOT_PRODUCT_ATTENTION, "float mask", x(3, 2), x(4, 2), x(4, 2), x(3, 4), 0.0, false, null);
        s(NnOps.SCALED_DOT_PRODUCT_ATTENTION, "bool mask, dropout", x(2, 3, 2), x(2, 4, 2), x(2, 4, 2), c(3, 4).gt(-0.5), 0.3, false, null);

        s(NormOps.BATCH_NORM, "training", x(4, 3, 2, 2), x(3), x(3), c(3), c(3).abs(), true, 0.1, 1e-5);
        s(NormOps.BATCH_NORM, "training, no affine", x(5, 3), null, null, null, null, true, 0.1, 1e-5);
        s(NormOps.BATCH_NORM, "evaluation", x(4, 3, 2), x(3), x(3), c(3), c(3).abs(), false, 0.1, 1e-5);
        s(NormOps.LAYER_NORM, "affine", x(3, 4, 5), new int[] {4, 5}, x(4, 5), x(4, 5), 1e-5);
        s(NormOps.LAYER_NORM, "no affine", x(5, 6), new int[] {6}, null, null, 1e-5);
        s(NormOps.LAYER_NORM, "no leading dims", x(7), new int[] {7}, x(7), x(7), 1e-5);
        s(NormOps.BATCH_NORM_FUNCTIONAL, "training", x(4, 3, 2, 2), x(3), x(3), c(3), c(3).abs(), true, 0.1, 1e-5);

        // nn, round 6: shrinkage activations, channel_shuffle, 3-d padding
        s(ActivationOps.THRESHOLD, x(3, 4), 0.1, 2.0);
        s(ActivationOps.HARDSHRINK, x(3, 4), 0.3);
        s(ActivationOps.SOFTSHRINK, x(3, 4), 0.3);
        s(dev.ember.ops.NnComposites.CHANNEL_SHUFFLE, x(2, 6, 3), 3L);
        s(dev.ember.ops.PadOps.REFLECTION_PAD3D, x(1, 2, 3, 3, 4), new int[] {1, 2, 2, 0, 1, 1});
        s(dev.ember.ops.PadOps.REPLICATION_PAD3D, "unbatched", x(2, 2, 3, 3), new int[] {2, 1, 0, 2, 1, 3});
        s(dev.ember.ops.NnComposites.MAX_UNPOOL2D, x(1, 2, 2, 2), idx(new long[] {0, 3, 9, 14, 1, 6, 8, 15}, 1, 2, 2, 2), new int[] {4, 4});
        s(dev.ember.ops.NnComposites.MAX_UNPOOL3D, "unbatched", x(1, 1, 2, 2), idx(new long[] {0, 3, 12, 15}, 1, 1, 2, 2), new int[] {2, 2, 4}, new int[] {2, 2, 2}, new int[] {0, 0, 0});
        s(dev.ember.ops.NnComposites.ADAPTIVE_MAX_POOL3D, x(1, 2, 3, 4, 3), new int[] {2, 3, 2});
        s(dev.ember.ops.NnComposites.SOFT_MARGIN_LOSS, x(3, 4), c(3, 4).sign(), 1L);
        s(dev.ember.ops.NnComposites.HINGE_EMBEDDING_LOSS, x(3, 4), c(3, 4).sign(), 0.5, 2L);
        s(dev.ember.ops.NnComposites.POISSON_NLL_LOSS, "full", x(3, 4), c(3, 4).abs().mul(3.0).floor(), true, true, 1e-8, 1L);
        s(dev.ember.ops.NnComposites.MULTI_MARGIN_LOSS, "p 2, weight", x(3, 4), idx(new long[] {2, 0, 3}, 3), 2L, 0.7, x(4), 0L);
        s(dev.ember.ops.NnComposites.MULTILABEL_MARGIN_LOSS, x(2, 4), idx(new long[] {3, 1, -1, 0, 2, -1, 1, 3}, 2, 4), 2L);

        // everyday pointwise ops (session 34): ATen's formulas where the decomposition's differ
        s(dev.ember.ops.SpecialFunctionOps.SPECIAL_NDTRI, probability(2, 3));
        s(dev.ember.ops.SpecialFunctionOps.SPECIAL_ZETA, "q only (ATen has no x-gradient)", pos(2, 3).add(1.5).detach(), pos(3));
        s(dev.ember.ops.SpecialFunctionOps.IGAMMA, "x only (ATen has no a-gradient)", pos(2, 3).mul(3.0).detach(), pos(3));
        s(dev.ember.ops.SpecialFunctionOps.IGAMMAC, "x only (ATen has no a-gradient)", pos(3).mul(3.0).detach(), pos(2, 3));
        s(dev.ember.ops.SpecialFunctionOps.MVLGAMMA, pos(2, 3).add(1.5).detach().requiresGrad(true), 3L);
        s(dev.ember.ops.SpecialFunctionOps.BERNOULLI_TENSOR, "piecewise constant: zero", c(2, 3), probability(3), null);
        s(MathOps.POLYGAMMA, "n = 2, through the Hurwitz zeta", 2L, pos(2, 3));
        s(MathOps.POLYGAMMA, "n = 3", 3L, pos(2, 3));
        s(MathOps.COPYSIGN, pos(2, 3), x(3));
        s(MathOps.COPYSIGN_SCALAR, x(2, 3), -2.0);
        s(MathOps.LOGIT, probability(2, 3), null);
        s(MathOps.LOGIT, "eps", probability(2, 3), 0.05);
        s(MathOps.SINC, x(2, 3));
        s(MathOps.FMAX, x(2, 3), x(3));
        s(MathOps.FMIN, x(2, 3), x(2, 1));
        s(dev.ember.ops.ComplexOnRealOps.ANGLE, "piecewise constant: zero", x(2, 3));
    }

    /** Ops whose derivative is ATen's refusal ("derivative for … is not implemented"): nothing to gradcheck. */
    static final java.util.Set<String> REFUSE_BACKWARD = java.util.Set.of("aten.heaviside.default", "aten.nextafter.default", "aten.geqrf.default");

    /**
     * Ops whose formula finite differences cannot check element by element, each checked against
     * libtorch's gradient instead: cholesky reads only A's lower triangle while its gradient is
     * symmetrized (derivatives.yaml's, for a symmetric A), as PyTorch's own gradcheck of it
     * symmetrizes its input first (LuOpsTest.choleskyAndMatrixPowerMatchLibtorch); eigh likewise reads one
     * triangle and gives ATen's symmetric gradient (QrEighSvdTest.gradientsMatchLibtorch); cholesky_ex
     * is cholesky's formula, and cholesky_inverse reads one triangle while ATen's gradient treats the
     * whole factor as L (both in LinalgLuOpsTest.gradientsMatchLibtorch).
     */
    static final java.util.Set<String> CHECKED_AGAINST_LIBTORCH = java.util.Set.of("aten.linalg_cholesky.default", "aten.linalg_eigh.default",
            "aten.linalg_cholesky_ex.default", "aten.cholesky_inverse.default");

    @TestFactory
    List<DynamicTest> everyFormulaMatchesFiniteDifferences() {
        List<DynamicTest> tests = new ArrayList<>();
        for (Sample sample : SAMPLES) {
            tests.add(DynamicTest.dynamicTest(sample.op() + (sample.label().isEmpty() ? "" : " (" + sample.label() + ")"), () -> {
                List<Tensor> leaves = new ArrayList<>();
                for (Object a : sample.args()) {
                    if (a instanceof Tensor t && t.requiresGrad()) leaves.add(t);
                    if (a instanceof List<?> l) for (Object e : l) if (e instanceof Tensor t && t.requiresGrad()) leaves.add(t);
                }
                // a random op (dropout, or attention with dropout) draws the same mask on every call: the generator restarts each time
                Function<List<Tensor>, Tensor> fn = in -> {
                    Generator.global().manualSeed(11);
                    return first(sample.op(), sample.op().call(sample.args()));
                };
                GradCheck.check(fn, leaves, 1e-6, 1e-6, 1e-4);
            }));
        }
        return tests;
    }

    /** A multi-output op's outputs summed with distinct weights, so every output's gradient is checked. */
    /** The op's differentiable floating outputs, summed with distinct weights (one scalar to differentiate). */
    private static Tensor first(OpOverload op, Object out) {
        if (out instanceof Tensor t) return t.dtype().isFloatingPoint() ? t : null;
        Tensor total = null;
        int k = 1, index = 0;
        for (Object o : (List<?>) out) {
            Tensor t = (Tensor) o;
            if (!t.dtype().isFloatingPoint() || !op.differentiableOutput(index++)) continue;
            Tensor part = t.mul((double) k++).sum();
            total = total == null ? part : total.add(part);
        }
        return total;
    }

    @Test
    void everyOpWithAFormulaHasASample() {
        TreeSet<String> sampled = new TreeSet<>();
        for (Sample s : SAMPLES) sampled.add(s.op().name());
        TreeSet<String> missing = new TreeSet<>();
        for (OpOverload op : OpRegistry.all()) {
            if (op.derivative() != null && !sampled.contains(op.name()) && !REFUSE_BACKWARD.contains(op.name())
                    && !CHECKED_AGAINST_LIBTORCH.contains(op.name())) missing.add(op.name());
        }
        assertEquals(new TreeSet<String>(), missing, "ops with a derivative but no gradcheck sample");
    }

    /**
     * Every functional op that can return floats is differentiable (a formula, or a decomposition
     * whose ops have formulas) or named here with the reason it is not yet; the list only shrinks.
     */
    @Test
    void everyFloatOpIsDifferentiableOrListed() {
        Map<String, String> notYet = new LinkedHashMap<>(NOT_YET);
        TreeSet<String> unaccounted = new TreeSet<>();
        for (OpOverload op : OpRegistry.all()) {
            if (op.schema().kind() != Schema.Kind.FUNCTIONAL || op.derivative() != null || op.decomposition() != null) continue;
            if (op.schema().params().stream().noneMatch(p -> p.type().startsWith("Tensor"))) continue;   // factories
            if (op.schema().returns().equals("()")) continue;   // returns nothing (an assert): nothing to differentiate
            if (NON_DIFFERENTIABLE.contains(op.name()) || notYet.remove(op.name()) != null) continue;
            unaccounted.add(op.name());
        }
        assertEquals(new TreeSet<String>(), unaccounted, "functional ops with neither a derivative nor a decomposition");
        assertEquals(Map.of(), notYet, "listed as not yet differentiable but now they are (or are gone): take them off NOT_YET");
    }

    /** Outputs are integers or booleans, or piecewise constant, or cut from autograd (detach): nothing to differentiate. */
    static final java.util.Set<String> NON_DIFFERENTIABLE = java.util.Set.of(
            "aten.argmax.default", "aten.argmin.default", "aten.argsort.default", "aten.one_hot.default", "aten._local_scalar_dense.default",
            "aten.searchsorted.Tensor", "aten.searchsorted.Scalar", "aten.bucketize.Tensor", "aten.bucketize.Scalar",
            "aten.eq.Scalar", "aten.eq.Tensor", "aten.ne.Scalar", "aten.ne.Tensor", "aten.lt.Scalar", "aten.lt.Tensor", "aten.le.Scalar",
            "aten.le.Tensor", "aten.gt.Scalar", "aten.gt.Tensor", "aten.ge.Scalar", "aten.ge.Tensor", "aten.logical_and.default",
            "aten.logical_or.default", "aten.logical_not.default", "aten.where.Scalar",
            "aten.bitwise_and.Tensor", "aten.bitwise_and.Scalar", "aten.bitwise_or.Tensor", "aten.bitwise_or.Scalar",
            "aten.bitwise_xor.Tensor", "aten.bitwise_xor.Scalar", "aten.bitwise_not.default",
            "aten.nonzero.default", "aten.nonzero_numpy.default", "aten.multinomial.default",
            // ATen gives these no gradient either: unique's values (derivatives.yaml: not implemented) and bincount's weighted sums (non-differentiable)
            "aten._unique2.default", "aten.unique_dim.default", "aten.bincount.default", "aten.unique_consecutive.default", "aten.histc.default", "aten.histogram.bins_tensor", "aten.histogram.bin_ct",
            // a new tensor that only takes its dtype from self: no values of self reach it
            "aten.new_empty_strided.default",
            "aten.gcd.default", "aten.lcm.default",   // integers only
            // derivatives.yaml: not implemented (backward through them is refused, as ATen's NotImplemented node refuses it)
            "aten.linalg_ldl_factor_ex.default", "aten.linalg_ldl_factor.default", "aten.linalg_ldl_solve.default",
            "aten.bitwise_left_shift.Tensor", "aten.bitwise_left_shift.Tensor_Scalar", "aten.bitwise_left_shift.Scalar_Tensor",   // integers only
            "aten.bitwise_right_shift.Tensor", "aten.bitwise_right_shift.Tensor_Scalar", "aten.bitwise_right_shift.Scalar_Tensor",
            "aten.detach.default",   // its output carries no gradient by definition
            // derivatives.yaml marks torch.special's Bessel family non_differentiable
            "aten.special_bessel_j0.default", "aten.special_bessel_j1.default", "aten.special_bessel_y0.default", "aten.special_bessel_y1.default",
            "aten.special_modified_bessel_i0.default", "aten.special_modified_bessel_i1.default", "aten.special_modified_bessel_k0.default",
            "aten.special_modified_bessel_k1.default", "aten.special_scaled_modified_bessel_k0.default", "aten.special_scaled_modified_bessel_k1.default",
            // and its orthogonal polynomials
            "aten.special_chebyshev_polynomial_t.default", "aten.special_chebyshev_polynomial_u.default", "aten.special_chebyshev_polynomial_v.default",
            "aten.special_chebyshev_polynomial_w.default", "aten.special_shifted_chebyshev_polynomial_t.default",
            "aten.special_shifted_chebyshev_polynomial_u.default", "aten.special_shifted_chebyshev_polynomial_v.default",
            "aten.special_shifted_chebyshev_polynomial_w.default", "aten.special_hermite_polynomial_h.default", "aten.special_hermite_polynomial_he.default",
            "aten.special_laguerre_polynomial_l.default", "aten.special_legendre_polynomial_p.default", "aten.special_spherical_bessel_j0.default", "aten.special_airy_ai.default");

    /**
     * Differentiable ops without a formula yet, and what they need: the recurrence's backward only
     * (the other backward ops' double-backward formulas are gradchecked above).
     */
    static final Map<String, String> NOT_YET = Map.of(
            "aten.rnn_layer_backward.default", "double backward through a recurrence: its kernel differentiates the steps again (recomputation) without recording that");
}
