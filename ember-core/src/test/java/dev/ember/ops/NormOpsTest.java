package dev.ember.ops;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * batch_norm (training with and without running statistics, evaluation) and layer_norm (with and
 * without weight and bias, one- to three-dim normalized shapes) against libtorch, contiguous and
 * not; and their errors, with libtorch saying the same words and nothing written on failure.
 */
class NormOpsTest {
    private static final OpOverload BATCH_NORM = OpRegistry.get("aten.batch_norm.default");
    private static final OpOverload LAYER_NORM = OpRegistry.get("aten.layer_norm.default");

    /** The next argument name ({@code b}, {@code c}, …) for a present tensor, appended to {@code args}; else {@code None}. */
    private static String arg(Tensor t, List<Object> args) {
        if (t == null) return "None";
        args.add(t);
        return String.valueOf((char) ('a' + args.size() - 1));
    }

    /** Normal values with standard deviation {@code scale} around {@code mean}: statistics far from (0, 1). */
    private static Tensor shifted(Random rng, DType dtype, double scale, double mean, int... shape) {
        double[] v = Inputs.randn(rng, DType.FLOAT64, shape).toDoubleArray();
        for (int i = 0; i < v.length; i++) v[i] = mean + scale * v[i];
        return Inputs.fromDoubles(v, dtype, shape);
    }

    @Test
    void batchNormTrainingMatchesLibtorchAndUpdatesRunningStatistics() {
        Random rng = new Random(21);
        int[][] shapes = {{8, 20}, {4, 3, 10}, {2, 3, 5, 7}, {1, 2, 40, 3}};
        try (NDManager m = Torch.scope()) {
            for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
                for (int[] shape : shapes) {
                    int c = shape[1];
                    Tensor x = shifted(rng, dtype, 3, 1.5, shape);
                    for (int variant = 0; variant < 4; variant++) {
                        boolean affine = variant % 2 == 0, running = variant < 2;
                        double momentum = variant == 1 ? 0.3 : 0.1;
                        Tensor w = affine ? Inputs.randn(rng, dtype, c) : null, b = affine ? Inputs.randn(rng, dtype, c) : null;
                        Tensor rm = running ? Inputs.randn(rng, dtype, c) : null, rv = running ? Inputs.uniform(rng, dtype, 0.5, 2, c) : null;

                        List<Object> args = new ArrayList<>(List.of(x));
                        String call = "torch.batch_norm(a, " + arg(w, args) + ", " + arg(b, args) + ", " + arg(rm, args) + ", " + arg(rv, args)
                                + ", True, " + momentum + ", 1e-5, False)";
                        String body = running ? "y = " + call + "\nreturn (y, " + (affine ? "d, e" : "b, c") + ")" : call;
                        NDList expected = Torch.callList(m, body, args.toArray());

                        for (Tensor in : List.of(x, Inputs.nonContiguous(x))) {
                            Tensor rmE = rm == null ? null : rm.clone(), rvE = rv == null ? null : rv.clone();
                            Tensor y = BATCH_NORM.callTensor(in, w, b, rmE, rvE, true, momentum, 1e-5, false);
                            String ctx = "batch_norm train " + dtype + " " + in.describe() + " affine=" + affine + " running=" + running;
                            assertClose(y, expected.get(0), ctx);
                            if (running) {
                                assertClose(rmE, expected.get(1), ctx + " running_mean");
                                assertClose(rvE, expected.get(2), ctx + " running_var");
                                assertEquals(1, rmE.version(), "running_mean version");
                                assertEquals(1, rvE.version(), "running_var version");
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void batchNormEvaluationUsesRunningStatistics() {
        Random rng = new Random(22);
        try (NDManager m = Torch.scope()) {
            for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
                for (int[] shape : new int[][] {{6, 17}, {3, 4, 9}, {2, 3, 4, 5}}) {
                    int c = shape[1];
                    Tensor x = Inputs.randn(rng, dtype, shape);
                    Tensor w = Inputs.randn(rng, dtype, c), b = Inputs.randn(rng, dtype, c);
                    Tensor rm = Inputs.randn(rng, dtype, c), rv = Inputs.uniform(rng, dtype, 0.5, 2, c);
                    Tensor rmBefore = rm.clone(), rvBefore = rv.clone();
                    for (Tensor in : List.of(x, Inputs.nonContiguous(x))) {
                        String ctx = "batch_norm eval " + dtype + " " + in.describe();
                        assertClose(BATCH_NORM.callTensor(in, w, b, rm, rv, false, 0.1, 1e-3, true),
                                Torch.call(m, "torch.batch_norm(a, b, c, d, e, False, 0.1, 1e-3, False)", x, w, b, rm, rv), ctx);
                        assertClose(BATCH_NORM.callTensor(in, null, null, rm, rv, false, 0.1, 1e-5, true),
                                Torch.call(m, "torch.batch_norm(a, None, None, b, c, False, 0.1, 1e-5, False)", x, rm, rv), ctx + " no affine");
                    }
                    assertTrue(rm.sameData(rmBefore) && rv.sameData(rvBefore), "evaluation leaves the running statistics alone");
                    assertEquals(0, rm.version());
                }
            }
        }
    }

    @Test
    void batchNormOfAnEmptyBatchIsEmpty() {
        Tensor y = BATCH_NORM.callTensor(Tensor.zeros(0, 3, 2), null, null, null, null, true, 0.1, 1e-5);
        assertArrayEquals(new int[] {0, 3, 2}, y.shape());
    }

    @Test
    void layerNormMatchesLibtorch() {
        Random rng = new Random(23);
        int[][][] cases = {
            {{2, 3, 4}, {4}}, {{2, 3, 4}, {3, 4}}, {{2, 3, 4}, {2, 3, 4}}, {{5, 1000}, {1000}}, {{7}, {7}},
            {{3, 0, 4}, {4}}, {{4, 37}, {37}}};
        try (NDManager m = Torch.scope()) {
            for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
                for (int[][] c : cases) {
                    int[] shape = c[0], ns = c[1];
                    Tensor x = shifted(rng, dtype, 1, 2, shape);
                    for (int variant = 0; variant < 4; variant++) {
                        Tensor w = variant % 2 == 0 ? Inputs.randn(rng, dtype, ns) : null;
                        Tensor b = variant / 2 == 0 ? Inputs.randn(rng, dtype, ns) : null;
                        double eps = variant == 3 ? 1e-3 : 1e-5;
                        List<Object> args = new ArrayList<>(List.of(x, ns));
                        String call = "torch.layer_norm(a, b, " + arg(w, args) + ", " + arg(b, args) + ", " + eps + ", False)";
                        var expected = Torch.call(m, call, args.toArray());
                        for (Inputs.Layout in : Inputs.layouts(x)) {
                            Tensor wIn = w == null ? null : Inputs.nonContiguous(w);
                            assertClose(LAYER_NORM.callTensor(in.tensor(), ns, wIn, b, eps), expected,
                                    "layer_norm " + dtype + " normalized " + java.util.Arrays.toString(ns) + " weight=" + (w != null) + " bias=" + (b != null) + " " + in);
                        }
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ errors

    private static void fails(Class<? extends RuntimeException> type, Executable ember, String words, String torchExpr, Object... args) {
        RuntimeException e = assertThrows(type, ember);
        assertTrue(e.getMessage().contains(words), "Ember said: " + e.getMessage() + "\nexpected: " + words);
        Exception t = assertThrows(Exception.class, () -> Torch.call(torchExpr, args));
        assertTrue(t.getMessage().contains(words) || String.valueOf(t.getCause()).contains(words), "libtorch said: " + t + " / " + t.getCause() + "\nexpected: " + words);
    }

    @Test
    void batchNormErrors() {
        Tensor x = Tensor.randn(4, 3, 2), c3 = Tensor.ones(3), c4 = Tensor.ones(4);
        fails(IndexOutOfBoundsException.class, () -> BATCH_NORM.callTensor(Tensor.randn(3), null, null, null, null, true, 0.1, 1e-5),
                "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
                "torch.batch_norm(a, None, None, None, None, True, 0.1, 1e-5, False)", Tensor.randn(3));
        Tensor ints = Tensor.of(new int[] {1, 2, 3, 4}, 2, 2);
        fails(IllegalArgumentException.class, () -> BATCH_NORM.callTensor(ints, null, null, null, null, true, 0.1, 1e-5),
                "\"batch_norm\" not implemented for 'Int'", "torch.batch_norm(a, None, None, None, None, True, 0.1, 1e-5, False)", ints);
        fails(IllegalArgumentException.class, () -> BATCH_NORM.callTensor(x, null, null, c4, c3, true, 0.1, 1e-5),
                "running_mean should contain 3 elements not 4", "torch.batch_norm(a, None, None, b, c, True, 0.1, 1e-5, False)", x, c4, c3);
        fails(IllegalArgumentException.class, () -> BATCH_NORM.callTensor(x, null, null, c3, c4, false, 0.1, 1e-5),
                "running_var should contain 3 elements not 4", "torch.batch_norm(a, None, None, b, c, False, 0.1, 1e-5, False)", x, c3, c4);
        fails(IllegalArgumentException.class, () -> BATCH_NORM.callTensor(x, c4, null, null, null, true, 0.1, 1e-5),
                "weight should contain 3 elements not 4", "torch.batch_norm(a, b, None, None, None, True, 0.1, 1e-5, False)", x, c4);
        fails(IllegalArgumentException.class, () -> BATCH_NORM.callTensor(x, c3, c4, null, null, true, 0.1, 1e-5),
                "bias should contain 3 elements not 4", "torch.batch_norm(a, b, c, None, None, True, 0.1, 1e-5, False)", x, c3, c4);
        fails(IllegalArgumentException.class, () -> BATCH_NORM.callTensor(x, null, null, null, c3, false, 0.1, 1e-5),
                "running_mean must be defined in evaluation mode", "torch.batch_norm(a, None, None, None, b, False, 0.1, 1e-5, False)", x, c3);
        fails(IllegalArgumentException.class, () -> BATCH_NORM.callTensor(x, null, null, c3, null, false, 0.1, 1e-5),
                "running_var must be defined in evaluation mode", "torch.batch_norm(a, None, None, b, None, False, 0.1, 1e-5, False)", x, c3);
        Tensor d3 = Tensor.ones(DType.FLOAT64, 3);
        fails(IllegalArgumentException.class, () -> BATCH_NORM.callTensor(x, d3, null, null, null, true, 0.1, 1e-5),
                "mixed dtype (CPU): expect parameter to have scalar type of Float", "torch.batch_norm(a, b, None, None, None, True, 0.1, 1e-5, False)", x, d3);
    }

    @Test
    void aFailedBatchNormLeavesTheRunningStatisticsUntouched() {
        Tensor x = Tensor.randn(4, 3), rm = Tensor.of(1f, 2f, 3f), rv = Tensor.of(4f, 5f, 6f);
        assertThrows(IllegalArgumentException.class, () -> BATCH_NORM.callTensor(x, Tensor.ones(3), Tensor.ones(2), rm, rv, true, 0.1, 1e-5));
        assertArrayEquals(new float[] {1, 2, 3}, rm.toFloatArray());
        assertArrayEquals(new float[] {4, 5, 6}, rv.toFloatArray());
        assertEquals(0, rm.version());
        assertEquals(0, rv.version());
    }

    @Test
    void layerNormErrors() {
        Tensor x = Tensor.randn(2, 3);
        fails(IllegalArgumentException.class, () -> LAYER_NORM.callTensor(x, new int[] {5}),
                "Given normalized_shape=[5], expected input with shape [*, 5], but got input of size[2, 3]", "torch.layer_norm(a, [5])", x);
        fails(IllegalArgumentException.class, () -> LAYER_NORM.callTensor(x, new int[] {4, 2, 3}),
                "Given normalized_shape=[4, 2, 3], expected input with shape [*, 4, 2, 3], but got input of size[2, 3]", "torch.layer_norm(a, [4, 2, 3])", x);
        fails(IllegalArgumentException.class, () -> LAYER_NORM.callTensor(x, new int[0]),
                "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []",
                "torch.layer_norm(a, [])", x);
        Tensor w2 = Tensor.ones(2);
        fails(IllegalArgumentException.class, () -> LAYER_NORM.callTensor(x, new int[] {3}, w2),
                "Expected weight to be of same shape as normalized_shape, but got weight of shape [2] and normalized_shape = [3]", "torch.layer_norm(a, [3], b)", x, w2);
        fails(IllegalArgumentException.class, () -> LAYER_NORM.callTensor(x, new int[] {3}, null, w2),
                "Expected bias to be of same shape as normalized_shape, but got bias of shape [2] and normalized_shape = [3]", "torch.layer_norm(a, [3], None, b)", x, w2);
        Tensor ints = Tensor.of(new int[] {1, 2, 3, 4}, 2, 2);
        fails(IllegalArgumentException.class, () -> LAYER_NORM.callTensor(ints, new int[] {2}),
                "\"LayerNormKernelImpl\" not implemented for 'Int'", "torch.layer_norm(a, [2])", ints);
        Tensor d3 = Tensor.ones(DType.FLOAT64, 3);
        fails(IllegalArgumentException.class, () -> LAYER_NORM.callTensor(x, new int[] {3}, d3),
                "mixed dtype (CPU): expect parameter to have scalar type of Float", "torch.layer_norm(a, [3], b)", x, d3);
    }
}
