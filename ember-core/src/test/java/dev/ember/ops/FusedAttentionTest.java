package dev.ember.ops;

import dev.ember.Ember;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.*;

/**
 * scaled_dot_product_attention's fused kernel (what the op runs with no gradient to record and no
 * dropout) against its decomposition, ATen's math attention, in float64, and against libtorch in
 * float32: sequence lengths across the kernel's key and query blocks, L ≠ S, odd sizes, masks of
 * every kind and broadcast, causality, fully masked rows, empty sizes, views of every layout.
 */
class FusedAttentionTest {
    private static final Tolerance F64 = Tolerance.of(1e-12, 1e-12);

    private static Tensor fused(Object... args) { return NnOps.SCALED_DOT_PRODUCT_ATTENTION.callTensor(args); }

    private static Tensor math(Object... args) { return (Tensor) NnOps.SCALED_DOT_PRODUCT_ATTENTION.decompose(args); }

    @Test
    void matchesTheDecompositionAcrossBlocksAndOddSizes() {
        Random rng = new Random(41);
        int[][] sizes = {{1, 1, 1, 1}, {5, 7, 3, 2}, {64, 128, 16, 16}, {65, 129, 17, 9}, {130, 300, 64, 33}, {7, 260, 8, 64}, {200, 3, 5, 12},
                         {70, 1100, 16, 24}, {1030, 1100, 8, 8}, {1100, 530, 4, 3}};   // three and two key blocks of 512, causal cut inside a block
        for (int[] z : sizes) {
            int l = z[0], s = z[1], e = z[2], ev = z[3];
            Tensor q = Inputs.randn(rng, DType.FLOAT64, 2, l, e), k = Inputs.randn(rng, DType.FLOAT64, 2, s, e), v = Inputs.randn(rng, DType.FLOAT64, 2, s, ev);
            String what = "L " + l + " S " + s + " E " + e + " Ev " + ev;
            assertClose(fused(q, k, v), math(q, k, v), what, F64);
            assertClose(fused(q, k, v, null, 0.0, true), math(q, k, v, null, 0.0, true), "causal " + what, F64);
            assertClose(fused(q, k, v, null, 0.0, false, -0.37), math(q, k, v, null, 0.0, false, -0.37), "scale -0.37 " + what, F64);
        }
    }

    @Test
    void masksOfEveryKindAndBroadcast() {
        Random rng = new Random(42);
        int l = 70, s = 150;
        Tensor q = Inputs.randn(rng, DType.FLOAT64, 2, 3, l, 8), k = Inputs.randn(rng, DType.FLOAT64, 2, 3, s, 8), v = Inputs.randn(rng, DType.FLOAT64, 2, 3, s, 5);
        for (int[] shape : new int[][] {{l, s}, {2, 1, l, s}, {1, s}, {3, l, 1}, {2, 3, l, s}}) {
            Tensor bool = Inputs.randint(rng, DType.BOOL, 0, 2, shape);
            assertClose(fused(q, k, v, bool), math(q, k, v, bool), "bool mask " + java.util.Arrays.toString(shape), F64);
            assertClose(fused(q, k, v, Inputs.nonContiguous(bool)), math(q, k, v, bool), "strided bool mask " + java.util.Arrays.toString(shape), F64);
            Tensor bias = Inputs.randn(rng, DType.FLOAT64, shape);
            assertClose(fused(q, k, v, bias), math(q, k, v, bias), "additive mask " + java.util.Arrays.toString(shape), F64);
            Tensor withInf = bias.maskedFill(bool, Double.NEGATIVE_INFINITY);
            assertClose(fused(q, k, v, withInf), math(q, k, v, withInf), "additive mask with -inf " + java.util.Arrays.toString(shape), F64);
        }
    }

    @Test
    void fullyMaskedRowsGiveZerosWhereverTheirLiveKeysWouldBe() {
        Random rng = new Random(43);
        int l = 9, s = 1300;                                        // three key blocks
        Tensor q = Inputs.randn(rng, DType.FLOAT64, l, 4), k = Inputs.randn(rng, DType.FLOAT64, s, 4), v = Inputs.randn(rng, DType.FLOAT64, s, 3);
        Tensor mask = Tensor.zeros(DType.BOOL, l, s);
        mask.select(0, 1).narrow(0, 1250, 10).fill_(1);            // row 1: live keys in the last block only
        mask.select(0, 2).narrow(0, 0, 1).fill_(1);                 // row 2: one live key, in the first block
        mask.select(0, 3).fill_(1);                                 // row 3: everything; the others nothing
        Tensor out = fused(q, k, v, mask);
        assertClose(out, math(q, k, v, mask), "bool", F64);
        for (int r : new int[] {0, 4, 5, 6, 7, 8}) assertArrayEquals(new double[3], out.select(0, r).toDoubleArray(), "row " + r);
        assertClose(out.select(0, 2), v.select(0, 0), "a single live key is that key's value", F64);
        Tensor additive = Tensor.zeros(DType.FLOAT64, l, s).maskedFill(mask.logicalNot(), Double.NEGATIVE_INFINITY);
        assertClose(fused(q, k, v, additive), out, "the same mask as -inf", Tolerance.EXACT);
    }

    @Test
    void emptySizes() {
        for (int[] z : new int[][] {{0, 5, 4, 3}, {5, 0, 4, 3}, {5, 6, 0, 3}, {5, 6, 4, 0}}) {
            Tensor q = Tensor.randn(2, z[0], z[2]).to(DType.FLOAT64), k = Tensor.randn(2, z[1], z[2]).to(DType.FLOAT64), v = Tensor.randn(2, z[1], z[3]).to(DType.FLOAT64);
            Tensor out = fused(q, k, v);
            assertArrayEquals(new int[] {2, z[0], z[3]}, out.shape());
            assertClose(out, math(q, k, v), "empty " + java.util.Arrays.toString(z), F64);
        }
        Tensor none = fused(Tensor.randn(0, 3, 4), Tensor.randn(0, 5, 4), Tensor.randn(0, 5, 2));
        assertArrayEquals(new int[] {0, 3, 2}, none.shape());
    }

    @Test
    void viewsAndBroadcastBatchesAreReadInPlace() {
        Random rng = new Random(44);
        // heads split from [B, L, H*E] the way MultiheadAttention does: [B, H, L, E] with strides (L*H*E, E, H*E, 1)
        Tensor packed = Inputs.randn(rng, DType.FLOAT64, 2, 90, 3 * 4 * 16);
        Tensor q = packed.narrow(2, 0, 64).reshape(2, 90, 4, 16).transpose(1, 2);
        Tensor k = packed.narrow(2, 64, 64).reshape(2, 90, 4, 16).transpose(1, 2);
        Tensor v = packed.narrow(2, 128, 64).reshape(2, 90, 4, 16).transpose(1, 2);
        assertClose(fused(q, k, v, null, 0.0, true), math(q.contiguous(), k.contiguous(), v.contiguous(), null, 0.0, true), "heads as views", F64);
        Tensor q4 = Inputs.randn(rng, DType.FLOAT64, 2, 3, 10, 8);
        for (Inputs.Layout lk : Inputs.layouts(Inputs.randn(rng, DType.FLOAT64, 3, 140, 8))) {
            Tensor vShared = Inputs.randn(rng, DType.FLOAT64, 1, 140, 6);
            assertClose(fused(q4, lk.tensor(), vShared), math(q4, lk.tensor(), vShared), "broadcast batch, key " + lk, F64);
        }
    }

    @Test
    void nanAndInfinityInScoresGiveNanRowsAsSoftmaxDoes() {
        Tensor q = Tensor.of(new double[] {1, 2, 3, 4}, 2, 2), k = Tensor.of(new double[] {1, 0, 0, 1, 1, 1}, 3, 2), v = Tensor.of(new double[] {1, 2, 3}, 3, 1);
        Tensor bias = Tensor.of(new double[] {0, Double.NaN, 0, Double.POSITIVE_INFINITY, 0, 0}, 2, 3);
        assertClose(fused(q, k, v, bias), math(q, k, v, bias), "NaN and +inf in the mask", Tolerance.EXACT);
        assertTrue(Double.isNaN(fused(q, k, v, bias).toDoubleArray()[0]));
    }

    /**
     * The float32 kernel (its own exp, its own vector width) against float64 math attention: query
     * counts off the 8-row register tile and the 64-row task, key counts off the 32-key column tile
     * and across 512-key blocks, Ev off the tile, causal with L < S and L > S, a bool mask.
     */
    @Test
    void float32MatchesFloat64AcrossTilesAndBlocks() {
        Random rng = new Random(47);
        Tolerance f32 = Tolerance.of(2e-5, 2e-5);
        int[][] sizes = {{1, 1, 1, 1}, {9, 33, 5, 17}, {70, 1100, 16, 40}, {130, 600, 64, 64}, {600, 130, 32, 8}, {515, 1030, 8, 33}};
        for (int[] z : sizes) {
            int l = z[0], s = z[1], e = z[2], ev = z[3];
            Tensor q = Inputs.randn(rng, DType.FLOAT64, 2, l, e), k = Inputs.randn(rng, DType.FLOAT64, 2, s, e), v = Inputs.randn(rng, DType.FLOAT64, 2, s, ev);
            Tensor q32 = q.to(DType.FLOAT32), k32 = k.to(DType.FLOAT32), v32 = v.to(DType.FLOAT32);
            String what = "float32 L " + l + " S " + s + " E " + e + " Ev " + ev;
            assertClose(fused(q32, k32, v32).to(DType.FLOAT64), math(q32.to(DType.FLOAT64), k32.to(DType.FLOAT64), v32.to(DType.FLOAT64)), what, f32);
            assertClose(fused(q32, k32, v32, null, 0.0, true).to(DType.FLOAT64),
                    math(q32.to(DType.FLOAT64), k32.to(DType.FLOAT64), v32.to(DType.FLOAT64), null, 0.0, true), "causal " + what, f32);
            Tensor bool = Inputs.randint(rng, DType.BOOL, 0, 2, l, s);
            assertClose(fused(q32, k32, v32, bool).to(DType.FLOAT64),
                    math(q32.to(DType.FLOAT64), k32.to(DType.FLOAT64), v32.to(DType.FLOAT64), bool), "bool mask " + what, f32);
        }
    }

    /** Scores far apart (weights under e^-86, which the float32 kernel's exp takes as 0) and -inf from a mask, against float64. */
    @Test
    void float32WithScoresFarApartAndMinusInfinity() {
        Random rng = new Random(48);
        int l = 40, s = 700;
        Tensor q = Inputs.randn(rng, DType.FLOAT64, l, 16).mul(12.0), k = Inputs.randn(rng, DType.FLOAT64, s, 16), v = Inputs.randn(rng, DType.FLOAT64, s, 20);
        Tensor bias = Inputs.randn(rng, DType.FLOAT64, l, s).mul(40.0).maskedFill(Inputs.randint(rng, DType.BOOL, 0, 2, l, s), Double.NEGATIVE_INFINITY);
        Tensor q32 = q.to(DType.FLOAT32), k32 = k.to(DType.FLOAT32), v32 = v.to(DType.FLOAT32), bias32 = bias.to(DType.FLOAT32);
        Tolerance f32 = Tolerance.of(1e-4, 1e-4);
        assertClose(fused(q32, k32, v32).to(DType.FLOAT64), math(q32.to(DType.FLOAT64), k32.to(DType.FLOAT64), v32.to(DType.FLOAT64)), "far apart", f32);
        assertClose(fused(q32, k32, v32, bias32).to(DType.FLOAT64),
                math(q32.to(DType.FLOAT64), k32.to(DType.FLOAT64), v32.to(DType.FLOAT64), bias32.to(DType.FLOAT64)), "far apart, -inf mask", f32);
    }

    /**
     * NaN and +inf scores in both kernels: a NaN among finite scores (the weight e^NaN), +inf (the
     * JDK's exp, not the one for s − max ≤ 0), a NaN among -inf only (no live score, yet NaN).
     */
    @Test
    void nanAndInfinityGiveNanRowsInBothPrecisions() {
        double inf = Double.POSITIVE_INFINITY, nan = Double.NaN;
        Tensor q = Tensor.of(new double[] {1, 2, 3, 4, 5, 6, 7, 8}, 4, 2), k = Tensor.of(new double[] {1, 0, 0, 1, 1, 1}, 3, 2), v = Tensor.of(new double[] {1, 2, 3}, 3, 1);
        Tensor bias = Tensor.of(new double[] {0, nan, 0, inf, 0, 0, 0, 0, -inf, -inf, nan, -inf}, 4, 3);
        for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            Tensor out = fused(q.to(dtype), k.to(dtype), v.to(dtype), bias.to(dtype));
            assertClose(out.to(DType.FLOAT64), math(q, k, v, bias), dtype + " NaN and +inf in the mask", Tolerance.of(1e-6, 1e-6));
            double[] o = out.toDoubleArray();
            assertTrue(Double.isNaN(o[0]) && Double.isNaN(o[1]) && !Double.isNaN(o[2]) && Double.isNaN(o[3]), dtype + " " + java.util.Arrays.toString(o));
        }
        // causal: a NaN key past a row's diagonal but inside its row tile is added -inf, and NaN + -inf is NaN, as in the decomposition
        Tensor qc = Tensor.randn(8, 4).to(DType.FLOAT64), kc = Tensor.randn(8, 4).to(DType.FLOAT64), vc = Tensor.randn(8, 2).to(DType.FLOAT64);
        kc.select(0, 5).fill_(nan);
        for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            Tensor out = fused(qc.to(dtype), kc.to(dtype), vc.to(dtype), null, 0.0, true);
            assertClose(out.to(DType.FLOAT64), math(qc, kc, vc, null, 0.0, true), dtype + " causal, a NaN key", Tolerance.of(1e-6, 1e-6));
        }
    }

    @Test
    void float32AgainstLibtorchAcrossBlocks() {
        Random rng = new Random(45);
        Tensor q = Inputs.randn(rng, DType.FLOAT32, 2, 2, 150, 32), k = Inputs.randn(rng, DType.FLOAT32, 2, 2, 270, 32), v = Inputs.randn(rng, DType.FLOAT32, 2, 2, 270, 24);
        assertClose(fused(q, k, v), Torch.call("torch.scaled_dot_product_attention(a, b, c)", q, k, v), "plain");
        assertClose(fused(q, k, v, null, 0.0, true), Torch.call("torch.scaled_dot_product_attention(a, b, c, is_causal=True)", q, k, v), "causal");
        Tensor mask = Inputs.randint(rng, DType.BOOL, 0, 2, 150, 270);
        assertClose(fused(q, k, v, mask, 0.0, false, 0.1), Torch.call("torch.scaled_dot_product_attention(a, b, c, attn_mask=d, scale=0.1)", q, k, v, mask), "bool mask, scale");
        Tensor bias = Inputs.randn(rng, DType.FLOAT32, 2, 1, 150, 270);
        assertClose(fused(q, k, v, bias), Torch.call("torch.scaled_dot_product_attention(a, b, c, attn_mask=d)", q, k, v, bias), "additive mask");
    }

    @Test
    void withGradientsOrDropoutTheDecompositionRuns() {
        Random rng = new Random(46);
        Tensor q = Inputs.randn(rng, DType.FLOAT64, 3, 4), k = Inputs.randn(rng, DType.FLOAT64, 5, 4), v = Inputs.randn(rng, DType.FLOAT64, 5, 2);
        q.requiresGrad(true);
        Tensor out = fused(q, k, v);
        assertNotNull(out.gradFn(), "a recorded call differentiates through the decomposition");
        out.sum().backward();
        assertNotNull(q.grad());
        try (var ignored = Ember.noGrad()) {
            assertNull(fused(q, k, v).gradFn());
            assertClose(fused(q, k, v), out.detach(), "no_grad: the fused kernel, the same values", F64);
        }
        Tensor.manualSeed(7);
        Tensor dropped = fused(q.detach(), k, v, null, 0.5, false);
        Tensor.manualSeed(7);
        assertClose(dropped, math(q.detach(), k, v, null, 0.5, false), "dropout: the decomposition's draws", Tolerance.EXACT);
    }
}
