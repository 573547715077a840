package dev.ember.nn;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** Module structure: field discovery and naming, traversal, train/eval, buffers, dtype conversion, parameters. */
class ModuleTest {

    /** A base class whose fields come first, with camelCase names. */
    static class Base extends Module {
        Parameter inProjWeight = new Parameter(Tensor.ones(2, 2));
        Tensor runningMean = Tensor.zeros(2);
    }

    static class Block extends Base {
        Linear outProj = new Linear(2, 3);
        Parameter scale = new Parameter(Tensor.ones(3));
        Parameter absent = null;
        Tensor stepCount = Tensor.scalar(0L);
        final int notState = 7;
        static Tensor ignoredStatic = Tensor.ones(1);
    }

    @Test
    void fieldsBecomeSnakeCaseStateSuperclassFirst() {
        Block b = new Block();
        // PyTorch's order: a module's parameters, then its buffers, then its submodules'
        assertEquals(List.of("in_proj_weight", "scale", "running_mean", "step_count", "out_proj.weight", "out_proj.bias"),
                List.copyOf(b.stateDict().keySet()));
        assertEquals(List.of("in_proj_weight", "scale", "out_proj.weight", "out_proj.bias"), List.copyOf(b.namedParameters().keySet()));
        assertEquals(List.of("running_mean", "step_count"), List.copyOf(b.namedBuffers().keySet()));
        assertSame(b.inProjWeight, b.stateDict().get("in_proj_weight"));
        assertEquals(List.of("", "out_proj"), List.copyOf(b.namedModules().keySet()));
        assertEquals(List.of(b.outProj), b.children());
    }

    @Test
    void snakeCaseMatchesPyTorchNames() {
        assertEquals("in_proj_weight", ModuleFields.snakeCase("inProjWeight"));
        assertEquals("num_batches_tracked", ModuleFields.snakeCase("numBatchesTracked"));
        assertEquals("linear1", ModuleFields.snakeCase("linear1"));
        assertEquals("already_snake", ModuleFields.snakeCase("already_snake"));
    }

    @Test
    void containersNameChildrenByPosition() {
        Sequential s = new Sequential(new Linear(4, 8), new ReLU(), new Sequential(new Linear(8, 2), new Dropout(0.1)));
        assertEquals(List.of("0.weight", "0.bias", "2.0.weight", "2.0.bias"), List.copyOf(s.stateDict().keySet()));
        assertEquals(List.of("", "0", "1", "2", "2.0", "2.1"), List.copyOf(s.namedModules().keySet()));
        ModuleList<Linear> list = new ModuleList<>(new Linear(1, 2), new Linear(2, 3, false));
        assertEquals(List.of("0.weight", "0.bias", "1.weight"), List.copyOf(list.stateDict().keySet()));
        assertEquals(2, list.size());
        assertEquals(3, list.get(1).outFeatures);
    }

    @Test
    void pyTorchStateDictKeysForEveryLayer() {
        assertEquals(List.of("weight", "bias", "running_mean", "running_var", "num_batches_tracked"), List.copyOf(new BatchNorm2d(3).stateDict().keySet()));
        assertEquals(List.of(), List.copyOf(new BatchNorm2d(3, 1e-5, 0.1, false, false).stateDict().keySet()));
        assertEquals(List.of("weight", "bias"), List.copyOf(new Conv2d(3, 4, 3).stateDict().keySet()));
        assertEquals(List.of("weight"), List.copyOf(new Embedding(5, 2).stateDict().keySet()));
        assertEquals(List.of("weight", "bias"), List.copyOf(new LayerNorm(5).stateDict().keySet()));
        assertEquals(List.of("in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"),
                List.copyOf(new MultiheadAttention(8, 2).stateDict().keySet()));
        assertEquals(List.of("self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight", "self_attn.out_proj.bias",
                        "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"),
                List.copyOf(new TransformerEncoderLayer(8, 2, 16, 0.1).stateDict().keySet()));
    }

    @Test
    void parameterCountsMatchTheArchitecture() {
        assertEquals(4 * 8 + 8 + 8 * 2 + 2, count(new Sequential(new Linear(4, 8), new ReLU(), new Linear(8, 2))));
        assertEquals(16 * 3 / 1 * 3 * 3 + 16, count(new Conv2d(3, 16, 3)));
        assertEquals(8 * (4 / 2) * 3 * 3, count(new Conv2d(4, 8, new int[] {3, 3}, new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1}, 2, false)));
        int d = 16, ff = 32;
        int attention = 3 * d * d + 3 * d + d * d + d;
        assertEquals(attention + d * ff + ff + ff * d + d + 4 * d, count(new TransformerEncoderLayer(d, 4, ff, 0.1)));
        assertEquals(2 * 3, count(new BatchNorm2d(3)));
    }

    private static long count(Module m) {
        long n = 0;
        for (Parameter p : m.parameters()) n += p.numel();
        return n;
    }

    @Test
    void sharedParametersAndModulesAreListedOnce() {
        Linear shared = new Linear(3, 3);
        Sequential s = new Sequential(shared, new ReLU(), shared);
        assertEquals(2, s.parameters().size());
        assertEquals(List.of("0.weight", "0.bias"), List.copyOf(s.namedParameters().keySet()));
        assertEquals(List.of("0.weight", "0.bias", "2.weight", "2.bias"), List.copyOf(s.stateDict().keySet()));
    }

    @Test
    void trainAndEvalReachEverySubmodule() {
        TransformerEncoderLayer layer = new TransformerEncoderLayer(8, 2, 16, 0.1);
        assertTrue(layer.isTraining());
        assertSame(layer, layer.eval());
        for (Module m : layer.namedModules().values()) assertFalse(m.isTraining(), m.toString());
        layer.train();
        for (Module m : layer.namedModules().values()) assertTrue(m.isTraining(), m.toString());
    }

    @Test
    void registeredBuffersJoinTheStateDict() {
        Linear l = new Linear(2, 2);
        Tensor mask = Tensor.ones(DType.BOOL, 2, 2);
        l.registerBuffer("causal_mask", mask);
        assertSame(mask, l.buffer("causal_mask"));
        assertEquals(List.of("weight", "bias", "causal_mask"), List.copyOf(l.stateDict().keySet()));
        assertEquals(List.of(mask), l.buffers());
        var e = assertThrows(IllegalArgumentException.class, () -> l.registerBuffer("weight", Tensor.ones(1)));
        assertTrue(e.getMessage().contains("attribute 'weight' already exists"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> l.registerBuffer("a.b", Tensor.ones(1)));
        assertThrows(IllegalArgumentException.class, () -> l.registerBuffer("", Tensor.ones(1)));
        e = assertThrows(IllegalArgumentException.class, () -> l.buffer("nope"));
        assertTrue(e.getMessage().contains("no registered buffer 'nope'") && e.getMessage().contains("causal_mask"), e.getMessage());
    }

    @Test
    void toConvertsFloatingStateAndKeepsTiedWeightsTied() {
        Linear encoder = new Linear(3, 3), decoder = new Linear(3, 3);
        decoder.weight = encoder.weight;
        Sequential s = new Sequential(encoder, new BatchNorm2d(3), decoder);
        s.get(1).registerBuffer("extra", Tensor.ones(2));
        Tensor before = encoder.weight;
        assertSame(s, s.to(DType.FLOAT64));
        assertEquals(DType.FLOAT64, encoder.weight.dtype());
        assertTrue(encoder.weight.requiresGrad());
        assertArrayEquals(before.toDoubleArray(), encoder.weight.toDoubleArray());
        assertSame(encoder.weight, decoder.weight);
        assertEquals(DType.FLOAT64, decoder.bias.dtype());
        BatchNorm2d bn = (BatchNorm2d) s.get(1);
        assertEquals(DType.FLOAT64, bn.runningVar.dtype());
        assertEquals(DType.FLOAT64, bn.weight.dtype());
        assertEquals(DType.FLOAT64, bn.buffer("extra").dtype());
        assertEquals(DType.INT64, bn.numBatchesTracked.dtype());
        var e = assertThrows(IllegalArgumentException.class, () -> s.to(DType.INT64));
        assertTrue(e.getMessage().contains("only accepts floating point dtypes"), e.getMessage());
    }

    @Test
    void forwardWithoutSingleInputSaysWhatToCall() {
        var e = assertThrows(UnsupportedOperationException.class, () -> new ModuleList<Linear>().forward(Tensor.ones(1)));
        assertTrue(e.getMessage().startsWith("ModuleList has no single-input forward(Tensor)"), e.getMessage());
        var m = new MultiheadAttention(4, 2);
        e = assertThrows(UnsupportedOperationException.class, () -> m.forward(Tensor.ones(1, 2, 4)));
        assertTrue(e.getMessage().contains("MultiheadAttention"), e.getMessage());
    }

    static class FinalParameter extends Module {
        final Parameter w = new Parameter(Tensor.ones(1));
    }

    static class Clash extends Module {
        Tensor fooBar = Tensor.ones(1);
        Tensor foo_bar = Tensor.ones(1);
    }

    @Test
    void badFieldDeclarationsAreRejectedClearly() {
        var e = assertThrows(IllegalStateException.class, () -> new FinalParameter().parameters());
        assertTrue(e.getMessage().contains("FinalParameter.w") && e.getMessage().contains("must not be final"), e.getMessage());
        e = assertThrows(IllegalStateException.class, () -> new Clash().stateDict());
        assertTrue(e.getMessage().contains("'foo_bar'"), e.getMessage());
    }

    @Test
    void parameterSharesStorageAndRequiresGrad() {
        Tensor t = Tensor.ones(2);
        Parameter p = new Parameter(t);
        assertSame(t.storage(), p.storage());
        assertTrue(p.requiresGrad());
        assertFalse(new Parameter(t, false).requiresGrad());
        assertTrue(p.toString().startsWith("Parameter containing:\ntensor([1., 1.]"), p.toString());
        assertThrows(IllegalArgumentException.class, () -> new Parameter(Tensor.ones(DType.INT64, 2)));
    }

    @Test
    void defaultInitialisationFollowsPyTorchBounds() {
        Linear l = new Linear(25, 40);
        assertWithin(l.weight, 1 / 5.0);
        assertWithin(l.bias, 1 / 5.0);
        Conv2d c = new Conv2d(4, 6, new int[] {3, 2}, new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1}, 2, true);
        assertWithin(c.weight, 1 / Math.sqrt(2 * 3 * 2));
        MultiheadAttention mha = new MultiheadAttention(8, 2);
        assertWithin(mha.inProjWeight, Math.sqrt(6.0 / (8 + 24)));
        assertArrayEquals(new double[24], mha.inProjBias.toDoubleArray());
        assertArrayEquals(new double[8], mha.outProj.bias.toDoubleArray());
        assertWithin(mha.outProj.weight, 1 / Math.sqrt(8));
        Embedding emb = new Embedding(6, 4, -2);
        assertEquals(4, emb.paddingIdx);
        assertArrayEquals(new double[4], emb.weight.select(0, 4).toDoubleArray());
        assertTrue(emb.weight.select(0, 3).toDoubleArray()[0] != 0);
    }

    /** Every value in [-bound, bound], spread over most of the range (not a constant). */
    private static void assertWithin(Tensor t, double bound) {
        double lo = Double.MAX_VALUE, hi = -Double.MAX_VALUE;
        for (double v : t.toDoubleArray()) {
            assertTrue(Math.abs(v) <= bound, v + " outside ±" + bound);
            lo = Math.min(lo, v);
            hi = Math.max(hi, v);
        }
        assertTrue(hi - lo > bound, "values span only [" + lo + ", " + hi + "] of ±" + bound);
    }

    @Test
    void layerArgumentsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> new Conv2d(3, 4, new int[] {3, 3}, new int[] {1, 1}, new int[] {0, 0}, new int[] {1, 1}, 2, true));
        assertThrows(IllegalArgumentException.class, () -> new MultiheadAttention(10, 3));
        assertThrows(IllegalArgumentException.class, () -> new Dropout(1.5));
        assertThrows(IllegalArgumentException.class, () -> new Embedding(3, 2, 3));
        assertThrows(IllegalArgumentException.class, () -> new GELU("fast"));
        var e = assertThrows(IllegalArgumentException.class, () -> new TransformerEncoderLayer(8, 2, 16, 0.1, "tanh", 1e-5, false, true));
        assertTrue(e.getMessage().contains("activation should be relu/gelu"), e.getMessage());
    }

    @Test
    void stateDictIsAFreshMutableMap() {
        Linear l = new Linear(2, 2);
        Map<String, Tensor> sd = l.stateDict();
        sd.remove("bias");
        assertEquals(2, l.stateDict().size());
        assertInstanceOf(LinkedHashMap.class, sd);
    }
}
