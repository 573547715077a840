package dev.ember.ops;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.function.Function;

import static dev.ember.ops.PointwiseBinaryTest.atenMessage;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The out= forms of gather, index_select, argmax and argmin against libtorch's: into an
 * out of every dtype and layout, libtorch decides whether the call succeeds (then the values must
 * agree, out returned, one write counted) or with which message it fails (then nothing is written).
 */
class OutFormsTest {

    record Case(String name, Function<Tensor, Tensor> ember, String torch, int[] shape) {}

    @Test
    void everyOutFormWritesWhatLibtorchsWrites() {
        Random rng = new Random(161);
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 4, 5);
        Tensor index = Inputs.randint(rng, DType.INT64, 0, 5, 4, 3), rows = Tensor.ofLongs(3, 0, 3);
        List<Case> cases = List.of(
                new Case("gather", o -> x.gatherOut(1, index, o), "torch.gather(a, 1, b, out=c)\nreturn c", new int[] {4, 3}),
                new Case("index_select", o -> x.indexSelectOut(0, rows, o), "torch.index_select(a, 0, d, out=c)\nreturn c", new int[] {3, 5}),
                new Case("argmax", o -> x.argmaxOut(1, true, o), "torch.argmax(a, 1, True, out=c)\nreturn c", new int[] {4, 1}),
                new Case("argmin", o -> x.argminOut(0, false, o), "torch.argmin(a, 0, False, out=c)\nreturn c", new int[] {5}));
        try (NDManager m = Torch.scope()) {
            for (Case c : cases) {
                for (DType outType : DType.values()) {
                    for (Inputs.Layout layout : Inputs.layouts(Tensor.zeros(outType, c.shape()))) {
                        Tensor out = layout.tensor();
                        String context = c.name() + " into " + outType + " " + layout;
                        int version = out.version();
                        NDArray expected;
                        try {
                            expected = Torch.call(m, c.torch(), x, index, Tensor.zeros(outType, c.shape()), rows);
                        } catch (IllegalStateException torchError) {
                            String aten = atenMessage(torchError);
                            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.ember().apply(out), context + ": ATen says " + aten);
                            assertTrue(e.getMessage().contains(aten), context + ": Ember says '" + e.getMessage() + "', ATen '" + aten + "'");
                            assertEquals(version, out.version(), context + ": nothing written");
                            continue;
                        }
                        assertSame(out, c.ember().apply(out), context);
                        assertEquals(version + 1, out.version(), context + ": one write");
                        assertClose(out, expected, context);
                    }
                }
            }
        }
    }
}
