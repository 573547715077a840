package dev.ember.tensor;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The examples of docs/tensors.md, "Writing into an existing tensor (out=)", as written there. */
class OutDocsExampleTest {

    @Test
    void theLoopReusesOneBufferAndComputesWhatTheFunctionalOpsDo() {
        Tensor a = Tensor.randn(256, 512), b = Tensor.randn(512);
        Tensor out = Tensor.empty(256, 512);                            // allocated once
        Storage buffer = out.storage();
        for (int step = 0; step < 10; step++) {
            a.addOut(b, out);                                           // out = a + b, b broadcast; no new array
            out.tanhOut(out);                                           // out may be the input itself
        }
        Tensor sums = Tensor.zeros(DType.FLOAT64, 3);
        Tensor.of(new int[] {1, 2, 3}, 3).addOut(Tensor.of(new int[] {4, 5, 6}, 3), sums);   // int32 result, cast into float64

        assertSame(buffer, out.storage());
        assertEquals(20, out.version(), "two writes a step");
        // to an ulp or so, not bit for bit: float32 tanh is the JDK's lanewise op, whose code before and after C2 may differ in the last bit
        assertArrayEquals(a.add(b).tanh().toFloatArray(), out.toFloatArray(), 1e-6f);
        assertArrayEquals(new double[] {5, 7, 9}, sums.toDoubleArray());
        assertEquals(DType.FLOAT64, sums.dtype());
    }

    @Test
    void theRefusalsQuotedInTheDocs() {
        Tensor x = Tensor.randn(4, 4), y = Tensor.randn(4, 4);
        assertEquals("add: result type Float can't be cast to the desired output type Long",
                assertThrows(IllegalArgumentException.class, () -> x.addOut(y, Tensor.zeros(DType.INT64, 4, 4))).getMessage());
        assertEquals("neg: Found dtype Long but expected Float",
                assertThrows(IllegalArgumentException.class, () -> x.negOut(Tensor.zeros(DType.INT64, 4, 4))).getMessage());
        assertEquals("add: unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. "
                + "Please clone() the tensor before performing the operation.",
                assertThrows(IllegalArgumentException.class, () -> x.t().addOut(y, x)).getMessage());
        // interleaved views share no element, but their spans overlap: Ember refuses what ATen lets through
        Tensor v = Tensor.randn(8);
        assertThrows(IllegalArgumentException.class, () -> v.slice(0, 1, 8, 2).negOut(v.slice(0, 0, 8, 2)));
        assertEquals("add: the out tensor has shape [5] but the result has shape [3, 5]; Ember does not resize out (ATen would, with a warning): "
                + "pass an out of shape [3, 5]",
                assertThrows(IllegalArgumentException.class, () -> Tensor.ones(3, 5).addOut(Tensor.ones(5), Tensor.zeros(5))).getMessage());
    }
}
