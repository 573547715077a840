package dev.ember.testing;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.types.SparseFormat;
import ai.djl.nn.Activation;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Embedding;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.BatchNorm;
import ai.djl.nn.norm.Dropout;
import ai.djl.nn.norm.LayerNorm;
import ai.djl.nn.pooling.Pool;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;
import ai.djl.pytorch.jni.LibUtils;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checks every entry of this package's {@code README.md}: that the DJL way of computing an op
 * runs and agrees with the op itself (called through {@link Torch#call}), and that the
 * TorchScript spelling of an op DJL lacks computes what PyTorch's documentation says (against
 * small float64 references written here). Uses only DJL, no Ember ops.
 */
class TorchSmokeTest {
    NDManager m;
    final Random rng = new Random(2024);

    @BeforeEach
    void open() { m = Torch.scope(); }

    @AfterEach
    void close() { m.close(); }

    NDArray randn(long... shape) {
        float[] v = new float[(int) new Shape(shape).size()];
        for (int i = 0; i < v.length; i++) v[i] = (float) rng.nextGaussian();
        return m.create(v, new Shape(shape));
    }

    NDArray positive(long... shape) { return randn(shape).abs().add(0.1f); }

    NDArray f32(float[] v, long... shape) { return m.create(v, new Shape(shape)); }

    NDArray f64(double[] v, long... shape) { return m.create(v, new Shape(shape)); }

    NDArray i64(long[] v, long... shape) { return m.create(v, new Shape(shape)); }

    /** The DJL route gives exactly what the ATen op gives. */
    static void same(NDArray djl, String expr, Object... args) {
        assertClose(djl, Torch.call(expr, args), expr, Tolerance.EXACT);
    }

    // ------------------------------------------------------------------ loading

    @Test
    void libtorchLoadsFromTheJarIntoTheConfiguredCache() {
        assertEquals("2.7.1", Torch.version());
        assertEquals("PyTorch", Torch.manager().getEngine().getEngineName());
        String cache = System.getProperty("ENGINE_CACHE_DIR");
        if (cache != null) { // set by Surefire (root pom)
            assertTrue(Path.of(LibUtils.getLibtorchPath()).startsWith(Path.of(cache)), LibUtils.getLibtorchPath() + " not under " + cache);
        }
        assertTrue(Boolean.parseBoolean(System.getProperty("ai.djl.offline", "false")) || cache == null);
    }

    // ------------------------------------------------------------------ pointwise

    @Test
    void pointwiseNDArrayMethodsAreTheAtenOps() {
        NDArray a = randn(3, 4), b = randn(4), p = positive(3, 4);
        same(a.add(b), "torch.add(a, b)", a, b);
        same(a.sub(b), "torch.sub(a, b)", a, b);
        same(a.mul(b), "torch.mul(a, b)", a, b);
        same(a.div(b), "torch.div(a, b)", a, b);
        same(a.neg(), "torch.neg(a)", a);
        same(a.abs(), "torch.abs(a)", a);
        same(a.exp(), "torch.exp(a)", a);
        same(p.log(), "torch.log(a)", p);
        same(p.sqrt(), "torch.sqrt(a)", p);
        same(p.pow(b), "torch.pow(a, b)", p, b);
        same(a.sin(), "torch.sin(a)", a);
        same(a.cos(), "torch.cos(a)", a);
        same(a.tanh(), "torch.tanh(a)", a);
        same(a.maximum(b), "torch.maximum(a, b)", a, b);
        same(a.minimum(b), "torch.minimum(a, b)", a, b);
        same(Activation.sigmoid(a), "torch.sigmoid(a)", a);
        same(Activation.relu(a), "torch.relu(a)", a);
        same(Activation.gelu(a), "torch.gelu(a)", a);
        same(a.clip(-0.5, 0.5), "torch.clamp(a, -0.5, 0.5)", a);
        // alpha: add(a, b, alpha) has no DJL method
        assertClose(Torch.call("torch.add(a, b, alpha=2.0)", a, b), a.add(b.mul(2f)), "add alpha", Tolerance.EXACT);
    }

    @Test
    void comparisonsAndLogicalOps() {
        NDArray a = i64(new long[] {1, 2, 3, 4}, 4), b = i64(new long[] {3, 2, 1, 4}, 4);
        same(a.eq(b), "torch.eq(a, b)", a, b);
        same(a.neq(b), "torch.ne(a, b)", a, b);
        same(a.lt(b), "torch.lt(a, b)", a, b);
        same(a.lte(b), "torch.le(a, b)", a, b);
        same(a.gt(b), "torch.gt(a, b)", a, b);
        same(a.gte(b), "torch.ge(a, b)", a, b);
        assertEquals(DataType.BOOLEAN, a.eq(b).getDataType());
        NDArray x = m.create(new boolean[] {true, true, false, false}), y = m.create(new boolean[] {true, false, true, false});
        same(x.logicalAnd(y), "torch.logical_and(a, b)", x, y);
        same(x.logicalOr(y), "torch.logical_or(a, b)", x, y);
        same(x.logicalNot(), "torch.logical_not(a)", x);
        same(a.logicalAnd(b), "torch.logical_and(a, b)", a, b); // non-bool inputs: truthiness, bool result
        NDArray cond = m.create(new boolean[] {true, false, true, false});
        same(NDArrays.where(cond, a, b), "torch.where(a, b, c)", cond, a, b);
    }

    @Test
    void integerTrueDivisionGivesFloat() {
        NDArray a = i64(new long[] {7, -7}, 2), b = i64(new long[] {2, 2}, 2);
        NDArray q = a.div(b);
        assertEquals(DataType.FLOAT32, q.getDataType());
        assertArrayEquals(new float[] {3.5f, -3.5f}, q.toFloatArray());
        same(q, "torch.div(a, b)", a, b);
    }

    @Test
    void divRoundingModesExistOnlyThroughTorchScript() {
        NDArray a = i64(new long[] {7, -7, 7, -7}, 4), b = i64(new long[] {2, 2, -2, -2}, 4);
        NDArray floor = Torch.call("torch.div(a, b, rounding_mode='floor')", a, b);
        NDArray trunc = Torch.call("torch.div(a, b, rounding_mode='trunc')", a, b);
        assertEquals(DataType.INT64, floor.getDataType());
        assertArrayEquals(new long[] {3, -4, -4, 3}, floor.toLongArray());
        assertArrayEquals(new long[] {3, -3, -3, 3}, trunc.toLongArray());
        NDArray x = f32(new float[] {-7.5f, 7.5f, 1f}, 3), y = f32(new float[] {2f, -2f, 0f}, 3);
        assertArrayEquals(new float[] {-4f, -4f, Float.POSITIVE_INFINITY}, Torch.call("torch.div(a, b, rounding_mode='floor')", x, y).toFloatArray());
        assertArrayEquals(new float[] {-3f, -3f, Float.POSITIVE_INFINITY}, Torch.call("torch.div(a, b, rounding_mode='trunc')", x, y).toFloatArray());
    }

    @Test
    void djlNumberOverloadsAreNotPythonScalars() {
        // DJL's add(Number) adds a 0-d float64 tensor; ATen's a + 2.5 adds a wrapped Python number.
        NDArray a = m.create(new int[] {1, 2});
        assertEquals(DataType.FLOAT64, a.add(2.5).getDataType());
        assertEquals(DataType.FLOAT32, Torch.call("a + 2.5", a).getDataType());
        assertEquals(DataType.FLOAT32, Torch.call("torch.add(a, b)", a, 2.5).getDataType());
    }

    @Test
    void log1pRsqrtSiluGeluTanhThroughTorchScript() {
        double[] xs = {-0.9, -1e-3, 1e-8, 0.3, 2.0};
        NDArray x = f64(xs, xs.length);
        double[] log1p = Torch.call("torch.log1p(a)", x).toDoubleArray();
        double[] silu = Torch.call("torch.silu(a)", x).toDoubleArray();
        double[] geluTanh = Torch.call("torch.gelu(a, approximate='tanh')", x).toDoubleArray();
        double[] geluNone = Torch.call("torch.gelu(a, approximate='none')", x).toDoubleArray();
        for (int i = 0; i < xs.length; i++) {
            double v = xs[i];
            assertEquals(Math.log1p(v), log1p[i], 1e-15 + 1e-14 * Math.abs(log1p[i]), "log1p");
            assertEquals(v / (1 + Math.exp(-v)), silu[i], 1e-15, "silu");
            double inner = Math.sqrt(2 / Math.PI) * (v + 0.044715 * v * v * v);
            assertEquals(0.5 * v * (1 + Math.tanh(inner)), geluTanh[i], 1e-15, "gelu tanh");
        }
        // 'none' is the erf form; DJL's Activation.gelu is that one, not tanh.
        same(Activation.gelu(x), "torch.gelu(a, approximate='none')", x);
        assertTrue(Math.abs(geluNone[4] - geluTanh[4]) > 1e-6);
        // the composites are only close: log(1 + x) loses tiny x entirely in float32
        NDArray tiny = f32(new float[] {1e-8f}, 1);
        assertEquals(0f, tiny.add(1f).log().toFloatArray()[0]);
        assertEquals(1e-8f, Torch.call("torch.log1p(a)", tiny).toFloatArray()[0], 1e-15f);
        NDArray p = positive(10);
        double[] rsqrt = Torch.call("torch.rsqrt(a)", p.toType(DataType.FLOAT64, false)).toDoubleArray();
        float[] pv = p.toFloatArray();
        for (int i = 0; i < pv.length; i++) assertEquals(1 / Math.sqrt(pv[i]), rsqrt[i], 1e-15 * rsqrt[i]);
        NDArray r = randn(100);
        assertClose(Activation.swish(r, 1f), Torch.call("torch.silu(a)", r), "silu vs swish(1)");
    }

    @Test
    void clampWithTensorOrOneSidedBounds() {
        NDArray a = f32(new float[] {-2, -0.5f, 0.5f, 2}, 4);
        assertArrayEquals(new float[] {-2, -0.5f, 0.5f, 1}, Torch.call("torch.clamp(a, None, 1.0)", a).toFloatArray());
        assertArrayEquals(new float[] {0, 0, 0.5f, 2}, Torch.call("torch.clamp(a, 0.0)", a).toFloatArray());
        NDArray lo = f32(new float[] {-1, 0, 0, 0}, 4), hi = f32(new float[] {1, 1, 0.25f, 3}, 4);
        assertArrayEquals(new float[] {-1, 0, 0.25f, 2}, Torch.call("torch.clamp(a, b, c)", a, lo, hi).toFloatArray());
    }

    @Test
    void maskedFill() {
        NDArray a = f32(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        NDArray mask = m.create(new boolean[] {true, false, true}, new Shape(3));
        assertArrayEquals(new float[] {-1, 2, -1, -1, 5, -1}, Torch.call("torch.masked_fill(a, b, -1.0)", a, mask).toFloatArray());
        NDArray ninf = Torch.call("a.masked_fill(b, float('-inf'))", a, mask);
        assertEquals(Float.NEGATIVE_INFINITY, ninf.toFloatArray()[0]);
        // DJL composite: where(mask, value, a); DJL's where does not broadcast, so expand first
        assertThrows(UnsupportedOperationException.class, () -> NDArrays.where(mask, m.create(-1f), a));
        NDArray full = mask.broadcast(a.getShape());
        same(NDArrays.where(full, m.full(a.getShape(), -1f), a), "torch.masked_fill(a, b, -1.0)", a, mask);
    }

    // ------------------------------------------------------------------ reductions

    @Test
    void sumMeanAmaxAminArgmax() {
        NDArray a = randn(2, 3, 4);
        same(a.sum(new int[] {0, 2}, true), "torch.sum(a, [0, 2], keepdim=True)", a);
        same(a.sum(), "torch.sum(a)", a);
        NDArray ints = m.create(new int[] {1, 2, 3});
        assertEquals(DataType.INT64, ints.sum().getDataType());
        same(ints.sum(), "torch.sum(a)", ints);
        same(a.mean(new int[] {1}, false), "torch.mean(a, [1])", a);
        assertThrows(UnsupportedOperationException.class, () -> a.mean(new int[] {0, 1}, false));
        Torch.call("torch.mean(a, [0, 1], keepdim=True)", a);
        same(a.max(new int[] {2}, true), "torch.amax(a, [2], keepdim=True)", a);
        same(a.min(new int[] {2}, false), "torch.amin(a, [2])", a);
        assertThrows(UnsupportedOperationException.class, () -> a.max(new int[] {0, 1}, false));
        assertArrayEquals(new long[] {4}, Torch.call("torch.amax(a, [0, 1])", a).getShape().getShape());
        same(a.argMax(1), "torch.argmax(a, 1)", a);
        same(a.argMin(1), "torch.argmin(a, 1)", a);
        same(a.argMax(), "torch.argmax(a)", a);
        assertArrayEquals(new long[] {2, 1, 4}, Torch.call("torch.argmax(a, 1, keepdim=True)", a).getShape().getShape());
        // ties: the first occurrence
        assertEquals(1L, Torch.call("torch.argmax(a)", f32(new float[] {0, 5, 5}, 3)).toLongArray()[0]);
    }

    @Test
    void varAndStdWithCorrectionDimsKeepdim() {
        double[] v = {1, 2, 3, 4, 5, 7, -1, 0.5};
        NDArray a = f64(v, 2, 4);
        for (double correction : new double[] {0, 1, 2}) {
            double[] rows = new double[2];
            for (int r = 0; r < 2; r++) {
                double mean = 0, ss = 0;
                for (int c = 0; c < 4; c++) mean += v[r * 4 + c] / 4;
                for (int c = 0; c < 4; c++) ss += (v[r * 4 + c] - mean) * (v[r * 4 + c] - mean);
                rows[r] = ss / (4 - correction);
            }
            NDArray var = Torch.call("torch.var(a, [1], correction=b, keepdim=True)", a, correction);
            assertArrayEquals(new long[] {2, 1}, var.getShape().getShape());
            assertArrayEquals(rows, var.toDoubleArray(), 1e-14);
            double[] std = Torch.call("torch.std(a, [1], correction=b)", a, correction).toDoubleArray();
            assertArrayEquals(new double[] {Math.sqrt(rows[0]), Math.sqrt(rows[1])}, std, 1e-14);
        }
        // defaults: all dims, correction 1; a correction >= N gives inf/nan like PyTorch
        assertEquals(Torch.call("torch.var(a, None, correction=1)", a).toDoubleArray()[0], Torch.call("torch.var(a)", a).toDoubleArray()[0]);
        assertEquals(Torch.call("torch.std(a, None, correction=1)", a).toDoubleArray()[0], Torch.call("torch.std(a)", a).toDoubleArray()[0]);
        assertEquals(Torch.call("ops.aten.var(a, [1], correction=0)", a).toDoubleArray()[1], Torch.call("torch.var(a, [1], correction=0)", a).toDoubleArray()[1]);
        assertTrue(Double.isInfinite(Torch.call("torch.var(a, [1], correction=4)", a).toDoubleArray()[0]));
    }

    @Test
    void softmaxAndLogSoftmax() {
        NDArray a = randn(3, 5);
        same(a.softmax(1), "torch.softmax(a, 1)", a);
        same(a.softmax(0), "torch.softmax(a, 0)", a);
        same(a.logSoftmax(-1), "torch.log_softmax(a, -1)", a);
    }

    // ------------------------------------------------------------------ linear algebra

    @Test
    void matmulBmmLinearAddmm() {
        NDArray a = randn(2, 3, 4), b = randn(4, 5), v = randn(4), c = randn(2, 4, 5);
        same(a.matMul(b), "torch.matmul(a, b)", a, b);
        same(a.matMul(v), "torch.matmul(a, b)", a, v); // 1-d operand, batch broadcast
        same(a.batchMatMul(c), "torch.bmm(a, b)", a, c);
        NDArray w = randn(5, 4), bias = randn(5);
        same(Linear.linear(a, w, bias).head(), "torch.linear(a, b, c)", a, w, bias);
        same(Linear.linear(a, w).head(), "torch.linear(a, b)", a, w);
        NDArray x = randn(3, 4), self = randn(5);
        NDArray addmm = Torch.call("torch.addmm(a, b, c, beta=0.5, alpha=2.0)", self, x, b);
        assertClose(addmm, self.mul(0.5f).add(x.matMul(b).mul(2f)), "addmm vs composite");
    }

    @Test
    void conv2dWithStridePaddingDilationGroups() {
        NDArray x = randn(2, 4, 9, 8), w = randn(6, 2, 3, 2), bias = randn(6);
        NDArray djl = Conv2d.conv2d(x, w, bias, new Shape(2, 1), new Shape(1, 2), new Shape(2, 3), 2).head();
        same(djl, "torch.conv2d(a, b, c, [2, 1], [1, 2], [2, 3], 2)", x, w, bias);
        assertArrayEquals(new long[] {2, 6, 4, 9}, djl.getShape().getShape());
        // no-bias and padding='same' exist only in the op
        Torch.call("torch.conv2d(a, b, None, [1, 1], 'same', [1, 1], 2)", x, w);
    }

    // ------------------------------------------------------------------ pooling

    @Test
    void pooling() {
        NDArray x = randn(2, 3, 7, 6);
        same(Pool.maxPool2d(x, new Shape(3, 2), new Shape(2, 2), new Shape(1, 1), false), "torch.max_pool2d(a, [3, 2], [2, 2], [1, 1])", x);
        same(Pool.maxPool2d(x, new Shape(3, 3), new Shape(2, 2), new Shape(1, 1), true), "torch.max_pool2d(a, [3, 3], [2, 2], [1, 1], [1, 1], True)", x);
        assertArrayEquals(new long[] {2, 3, 3, 4}, Torch.call("torch.max_pool2d(a, [2, 2], [2, 1], [0, 0], [2, 2])", x).getShape().getShape());
        same(Pool.avgPool2d(x, new Shape(3, 2), new Shape(2, 2), new Shape(1, 1), false, true), "torch.avg_pool2d(a, [3, 2], [2, 2], [1, 1])", x);
        same(Pool.avgPool2d(x, new Shape(3, 2), new Shape(2, 2), new Shape(1, 1), true, true), "torch.avg_pool2d(a, [3, 2], [2, 2], [1, 1], True)", x);
        // DJL's JNI drops countIncludePad (always True): count_include_pad=False is only in the op
        NDArray djlNoPad = Pool.avgPool2d(x, new Shape(3, 2), new Shape(2, 2), new Shape(1, 1), false, false);
        assertThrows(AssertionError.class, () -> same(djlNoPad, "torch.avg_pool2d(a, [3, 2], [2, 2], [1, 1], False, False)", x));
        same(djlNoPad, "torch.avg_pool2d(a, [3, 2], [2, 2], [1, 1], False, True)", x);
        NDArray sum = Torch.call("torch.avg_pool2d(a, [3, 2], [2, 2], [1, 1], True, False, 1)", x); // divisor_override 1: window sums
        NDArray div3 = Torch.call("torch.avg_pool2d(a, [3, 2], [2, 2], [1, 1], True, False, 3)", x);
        assertClose(div3, sum.div(3f), "divisor_override");
        same(JniUtils.adaptiveAvgPool((PtNDArray) x, new Shape(4, 5)), "torch.adaptive_avg_pool2d(a, [4, 5])", x);
        assertClose(Pool.globalAvgPool2d(x), Torch.call("torch.adaptive_avg_pool2d(a, [1, 1]).flatten(2)", x).squeeze(2), "global avg pool", Tolerance.EXACT);
    }

    // ------------------------------------------------------------------ normalization

    @Test
    void batchNormEvalAndTrainIncludingRunningStats() {
        NDArray x = randn(4, 3, 5, 2), w = randn(3), b = randn(3);
        NDArray rm = randn(3), rv = positive(3);
        same(BatchNorm.batchNorm(x, rm, rv, w, b, 1, 0.9f, 1e-5f, false).head(),
                "torch.batch_norm(a, b, c, d, e, False, 0.1, 1e-5, False)", x, w, b, rm, rv);

        // training: normalizes with batch stats and updates running stats in place;
        // DJL's momentum is 1 - PyTorch's
        NDArray rmDjl = rm.duplicate(), rvDjl = rv.duplicate(), rmT = rm.duplicate(), rvT = rv.duplicate();
        NDArray yDjl = BatchNorm.batchNorm(x, rmDjl, rvDjl, w, b, 1, 0.9f, 1e-5f, true).head();
        NDList t = Torch.callList("""
                y = torch.batch_norm(a, b, c, d, e, True, 0.1, 1e-5, False)
                return (y, d, e)""", x, w, b, rmT, rvT);
        assertClose(yDjl, t.get(0), "bn train out", Tolerance.EXACT);
        // DJL passes 1f - 0.9f = 0.100000024f as momentum: running stats are off by an ulp or so
        assertClose(rmDjl, t.get(1), "bn running mean");
        assertClose(rvDjl, t.get(2), "bn running var");
        assertClose(rmT, t.get(1), "in place", Tolerance.EXACT);
        // running mean = 0.9 * old + 0.1 * batch mean; running var uses the unbiased batch var
        NDArray batchMean = Torch.call("torch.mean(a, [0, 2, 3])", x);
        NDArray batchVar = Torch.call("torch.var(a, [0, 2, 3], correction=1)", x);
        assertClose(rmT, rm.mul(0.9f).add(batchMean.mul(0.1f)), "running mean formula");
        assertClose(rvT, rv.mul(0.9f).add(batchVar.mul(0.1f)), "running var formula");
    }

    @Test
    void layerNorm() {
        NDArray x = randn(2, 3, 4), w = randn(3, 4), b = randn(3, 4);
        same(LayerNorm.layerNorm(x, new Shape(3, 4), w, b, 1e-5f).head(), "torch.layer_norm(a, [3, 4], b, c, 1e-5, False)", x, w, b);
        Torch.call("torch.layer_norm(a, [4])", x); // no affine
    }

    @Test
    void dropoutIsRandomSoOnlyItsPropertiesCompare() {
        NDArray x = positive(1000);
        same(Dropout.dropout(x, 0.5f, false).head(), "torch.dropout(a, 0.5, False)", x);
        assertClose(Torch.call("torch.dropout(a, 0.5, False)", x), x, "eval is identity", Tolerance.EXACT);
        assertClose(Torch.call("torch.dropout(a, 0.0, True)", x), x, "p=0 is identity", Tolerance.EXACT);
        float[] in = x.toFloatArray(), out = Torch.call("torch.dropout(a, 0.25, True)", x).toFloatArray();
        int zeros = 0;
        for (int i = 0; i < in.length; i++) {
            if (out[i] == 0) zeros++;
            else assertEquals(in[i] / 0.75f, out[i], 1e-6f * out[i]);
        }
        assertTrue(zeros > 150 && zeros < 350, "zeros " + zeros);
        assertEquals(0f, Torch.call("torch.dropout(a, 1.0, True)", x).abs().sum().getFloat());
        Dropout.dropout(x, 0.5f, true); // runs; values are libtorch's RNG
    }

    // ------------------------------------------------------------------ indexing and joining

    @Test
    void embeddingGatherIndexSelect() {
        NDArray weight = randn(10, 3), idx = i64(new long[] {0, 9, 2, 2, 5, 1}, 2, 3);
        NDArray emb = Embedding.embedding(idx, weight, SparseFormat.DENSE).head();
        same(emb, "torch.embedding(b, a)", idx, weight);
        assertArrayEquals(new long[] {2, 3, 3}, emb.getShape().getShape());
        Torch.call("torch.embedding(a, b, 0)", weight, idx); // padding_idx

        NDArray a = randn(3, 4), g = i64(new long[] {0, 3, 1, 1, 2, 0}, 3, 2);
        same(a.gather(g, 1), "torch.gather(a, 1, b)", a, g);

        NDArray rows = i64(new long[] {2, 0, 2}, 3), sel = i64(new long[] {3, 0, 3}, 3);
        same(a.get(rows), "torch.index_select(a, 0, b)", a, rows);
        assertArrayEquals(new long[] {3, 3}, Torch.call("torch.index_select(a, 1, b)", a, sel).getShape().getShape());
        same(a.get(":, {}", sel), "torch.index_select(a, 1, b)", a, sel);
    }

    @Test
    void catStackSplitChunk() {
        NDArray a = randn(2, 3), b = randn(4, 3);
        same(NDArrays.concat(new NDList(a, b), 0), "torch.cat(a, 0)", java.util.List.of(a, b));
        same(NDArrays.stack(new NDList(a, a), 1), "torch.stack(a, 1)", java.util.List.of(a, a));
        // torch.split(x, size) / split(x, [sizes]): DJL's split(long[]) takes split *points*
        NDArray x = randn(7, 2);
        NDList t = Torch.callList("torch.split(a, 3)", x);
        NDList d = JniUtils.split((PtNDArray) x, 3, 0);
        assertEquals(3, t.size());
        for (int i = 0; i < 3; i++) assertClose(d.get(i), t.get(i), "split " + i, Tolerance.EXACT);
        NDList sizes = Torch.callList("torch.split(a, [2, 5])", x);
        NDList points = x.split(new long[] {2}, 0);
        for (int i = 0; i < 2; i++) assertClose(points.get(i), sizes.get(i), "split sizes " + i, Tolerance.EXACT);
        // chunk: ceil(n / chunks) per chunk, possibly fewer chunks
        assertEquals(3, Torch.callList("torch.chunk(a, 3)", x).size()); // 3, 3, 1
        assertEquals(2, Torch.callList("torch.chunk(a, 3)", randn(4)).size()); // 2, 2
        NDList chunks = Torch.callList("torch.chunk(a, 4, 1)", x);
        assertEquals(2, chunks.size());
    }

    // ------------------------------------------------------------------ attention

    @Test
    void scaledDotProductAttention() {
        int L = 3, S = 4, E = 2, V = 3;
        NDArray q = randn(1, L, E).toType(DataType.FLOAT64, false), k = randn(1, S, E).toType(DataType.FLOAT64, false), v = randn(1, S, V).toType(DataType.FLOAT64, false);
        NDArray mask = m.create(new boolean[] {true, false, true, true, true, true, false, true, false, true, true, true}, new Shape(L, S));
        double[] plain = Torch.call("torch.scaled_dot_product_attention(a, b, c)", q, k, v).toDoubleArray();
        assertArrayEquals(attention(q, k, v, null, false, 1 / Math.sqrt(E)), plain, 1e-12);
        double[] causal = Torch.call("torch.scaled_dot_product_attention(a, b, c, is_causal=True)", q, k, v).toDoubleArray();
        assertArrayEquals(attention(q, k, v, null, true, 1 / Math.sqrt(E)), causal, 1e-12);
        double[] masked = Torch.call("torch.scaled_dot_product_attention(a, b, c, attn_mask=d, scale=0.3)", q, k, v, mask).toDoubleArray();
        assertArrayEquals(attention(q, k, v, mask.toBooleanArray(), false, 0.3), masked, 1e-12);
        // a float mask is added to the scores: 0 keeps, -inf drops
        NDArray additive = Torch.call("torch.zeros_like(a, dtype=torch.float64).masked_fill(a.logical_not(), float('-inf'))", mask);
        double[] floatMasked = Torch.call("torch.scaled_dot_product_attention(a, b, c, attn_mask=d, scale=0.3)", q, k, v, additive).toDoubleArray();
        assertArrayEquals(masked, floatMasked, 1e-12);
    }

    /** softmax(q k^T * scale, masked) v for one batch, in float64. */
    static double[] attention(NDArray q, NDArray k, NDArray v, boolean[] mask, boolean causal, double scale) {
        int L = (int) q.getShape().get(1), E = (int) q.getShape().get(2), S = (int) k.getShape().get(1), Vd = (int) v.getShape().get(2);
        double[] qa = q.toDoubleArray(), ka = k.toDoubleArray(), va = v.toDoubleArray();
        double[] out = new double[L * Vd];
        for (int i = 0; i < L; i++) {
            double[] s = new double[S];
            double max = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < S; j++) {
                boolean keep = (mask == null || mask[i * S + j]) && (!causal || j <= i);
                double dot = 0;
                for (int e = 0; e < E; e++) dot += qa[i * E + e] * ka[j * E + e];
                s[j] = keep ? dot * scale : Double.NEGATIVE_INFINITY;
                max = Math.max(max, s[j]);
            }
            double sum = 0;
            for (int j = 0; j < S; j++) sum += s[j] = Math.exp(s[j] - max);
            for (int j = 0; j < S; j++) {
                for (int c = 0; c < Vd; c++) out[i * Vd + c] += s[j] / sum * va[j * Vd + c];
            }
        }
        return out;
    }
}
