package dev.ember.nn;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** stateDict / loadStateDict: round trips, and every error, after which nothing has been loaded. */
class StateDictTest {

    private static Sequential model() {
        return new Sequential(new Conv2d(2, 4, 3), new BatchNorm2d(4), new Flatten(), new Linear(4, 3));
    }

    private static Map<String, double[]> snapshot(Module m) {
        Map<String, double[]> out = new LinkedHashMap<>();
        m.stateDict().forEach((k, v) -> out.put(k, v.toDoubleArray()));
        return out;
    }

    private static void assertUnchanged(Map<String, double[]> before, Module m) {
        Map<String, double[]> after = snapshot(m);
        assertEquals(before.keySet(), after.keySet());
        before.forEach((k, v) -> assertArrayEquals(v, after.get(k), k));
    }

    @Test
    void roundTripCopiesValuesIntoTheOwnTensors() {
        Sequential a = model(), b = model();
        ((BatchNorm2d) a.get(1)).runningMean.copy_(Tensor.of(1f, 2f, 3f, 4f));
        ((BatchNorm2d) a.get(1)).numBatchesTracked.copy_(Tensor.scalar(5L));
        Tensor bWeight = ((Conv2d) b.get(0)).weight;
        LoadResult r = b.loadStateDict(a.stateDict());
        assertEquals(List.of(), r.missingKeys());
        assertEquals(List.of(), r.unexpectedKeys());
        a.stateDict().forEach((k, v) -> {
            assertTrue(v.sameData(b.stateDict().get(k)), k);
            assertNotSame(v, b.stateDict().get(k), k);
        });
        assertSame(bWeight, ((Conv2d) b.get(0)).weight, "loading copies into the existing parameter");
        assertEquals(1, bWeight.version());
        assertEquals(5, ((BatchNorm2d) b.get(1)).numBatchesTracked.longItem());
    }

    @Test
    void missingAndUnexpectedKeysFailStrictLoadsAndLoadNothing() {
        Sequential b = model();
        Map<String, double[]> before = snapshot(b);
        Map<String, Tensor> sd = model().stateDict();
        sd.remove("3.bias");
        sd.remove("1.num_batches_tracked");
        sd.put("3.scale", Tensor.ones(3));
        var e = assertThrows(IllegalArgumentException.class, () -> b.loadStateDict(sd));
        assertEquals("Error(s) in loading state_dict for Sequential:\n"
                + "\tMissing key(s) in state_dict: \"1.num_batches_tracked\", \"3.bias\". \n"
                + "\tUnexpected key(s) in state_dict: \"3.scale\". ", e.getMessage());
        assertUnchanged(before, b);
        LoadResult r = b.loadStateDict(sd, false);
        assertEquals(List.of("1.num_batches_tracked", "3.bias"), r.missingKeys());
        assertEquals(List.of("3.scale"), r.unexpectedKeys());
        assertTrue(sd.get("0.weight").sameData(b.stateDict().get("0.weight")));
    }

    @Test
    void shapeMismatchNamesKeyAndBothShapesEvenWhenNotStrict() {
        Sequential b = model();
        Map<String, double[]> before = snapshot(b);
        Map<String, Tensor> sd = model().stateDict();
        sd.put("3.weight", Tensor.ones(3, 5));
        var e = assertThrows(IllegalArgumentException.class, () -> b.loadStateDict(sd, false));
        assertEquals("Error(s) in loading state_dict for Sequential:\n\tsize mismatch for 3.weight: copying a param with shape torch.Size([3, 5]) "
                + "from checkpoint, the shape in current model is torch.Size([3, 4]).", e.getMessage());
        assertUnchanged(before, b);
    }

    @Test
    void dtypeMismatchIsAnError() {
        Linear b = new Linear(4, 3);
        Map<String, double[]> before = snapshot(b);
        Map<String, Tensor> sd = new LinkedHashMap<>(new Linear(4, 3).stateDict());
        sd.put("bias", Tensor.zeros(DType.FLOAT64, 3));
        var e = assertThrows(IllegalArgumentException.class, () -> b.loadStateDict(sd));
        assertEquals("Error(s) in loading state_dict for Linear:\n\tdtype mismatch for bias: copying a param with dtype torch.float64 "
                + "from checkpoint, the dtype in current model is torch.float32.", e.getMessage());
        assertUnchanged(before, b);
    }

    @Test
    void everyProblemIsListedTogether() {
        Sequential b = model();
        Map<String, Tensor> sd = model().stateDict();
        sd.remove("0.bias");
        sd.put("1.running_var", Tensor.ones(5));
        sd.put("3.bias", Tensor.ones(DType.FLOAT64, 3));
        var e = assertThrows(IllegalArgumentException.class, () -> b.loadStateDict(sd));
        String[] lines = e.getMessage().split("\n\t");
        assertEquals(4, lines.length, e.getMessage());
        assertTrue(lines[1].startsWith("Missing key(s) in state_dict: \"0.bias\""), lines[1]);
        assertTrue(lines[2].startsWith("size mismatch for 1.running_var"), lines[2]);
        assertTrue(lines[3].startsWith("dtype mismatch for 3.bias"), lines[3]);
    }

    @Test
    void transformerLayerLoadsAPyTorchShapedStateDict() {
        int d = 8, ff = 16;
        Map<String, Tensor> pytorch = new LinkedHashMap<>();
        pytorch.put("self_attn.in_proj_weight", Tensor.full(0.5, 3 * d, d));
        pytorch.put("self_attn.in_proj_bias", Tensor.full(0.25, 3 * d));
        pytorch.put("self_attn.out_proj.weight", Tensor.full(1.5, d, d));
        pytorch.put("self_attn.out_proj.bias", Tensor.full(2.5, d));
        pytorch.put("linear1.weight", Tensor.full(3.5, ff, d));
        pytorch.put("linear1.bias", Tensor.full(4.5, ff));
        pytorch.put("linear2.weight", Tensor.full(5.5, d, ff));
        pytorch.put("linear2.bias", Tensor.full(6.5, d));
        pytorch.put("norm1.weight", Tensor.full(7.5, d));
        pytorch.put("norm1.bias", Tensor.full(8.5, d));
        pytorch.put("norm2.weight", Tensor.full(9.5, d));
        pytorch.put("norm2.bias", Tensor.full(10.5, d));
        TransformerEncoderLayer layer = new TransformerEncoderLayer(d, 2, ff, 0.1);
        layer.loadStateDict(pytorch);
        assertEquals(0.5, layer.selfAttn.inProjWeight.get(3, 4));
        assertEquals(2.5, layer.selfAttn.outProj.bias.get(0));
        assertEquals(5.5, layer.linear2.weight.get(7, 15));
        assertEquals(10.5, layer.norm2.bias.get(1));
    }
}
