package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;

/** index_select, gather and embedding against libtorch over every dtype, layouts of self and index, int32/int64 indices (gather: int64, as libtorch). */
class IndexingConformanceTest {

    private static Tensor values(Random rng, DType d, int... shape) {
        return d.isFloatingPoint() ? Inputs.randn(rng, d, shape) : Inputs.randint(rng, d, d.isBool() ? 0 : -50, d.isBool() ? 2 : 50, shape);
    }

    @Test
    void indexSelect() {
        Random rng = new Random(11);
        for (DType d : DType.values()) {
            Tensor self = values(rng, d, 4, 5, 6);
            for (DType id : new DType[] {DType.INT64, DType.INT32}) {
                Tensor index = Inputs.randint(rng, id, 0, 4, 7);
                for (Inputs.Layout in : Inputs.layouts(self)) {
                    for (int dim : new int[] {0, 1, -1}) {
                        String ctx = "index_select " + d + " dim " + dim + " index " + id + " " + in;
                        assertClose(in.tensor().indexSelect(dim, index), Torch.call("torch.index_select(a, " + dim + ", b)", in.tensor(), index), ctx);
                    }
                }
                Tensor stridedIndex = Inputs.strided(index, 2, 1);
                assertClose(self.indexSelect(1, stridedIndex), Torch.call("torch.index_select(a, 1, b)", self, index), "strided index " + id);
            }
            Tensor scalar = values(rng, d);
            assertClose(scalar.indexSelect(0, Tensor.ofLongs(0)), Torch.call("torch.index_select(a, 0, b)", scalar, Tensor.ofLongs(0)), "0-d self " + d);
            Tensor empty = Tensor.zeros(DType.INT64, 0);
            assertClose(self.indexSelect(2, empty), Torch.call("torch.index_select(a, 2, b)", self, empty), "empty index " + d);
            assertClose(self.indexSelect(0, Tensor.scalar(3L)), Torch.call("torch.index_select(a, 0, b)", self, Tensor.scalar(3L)), "0-d index " + d);
        }
    }

    @Test
    void gather() {
        Random rng = new Random(12);
        for (DType d : DType.values()) {
            Tensor self = values(rng, d, 4, 5, 6);
            for (Inputs.Layout in : Inputs.layouts(self)) {
                Tensor index = Inputs.randint(rng, DType.INT64, 0, 5, 3, 7, 6);
                String ctx = "gather " + d + " " + in;
                assertClose(in.tensor().gather(1, index), Torch.call("torch.gather(a, 1, b)", in.tensor(), index), ctx);
                Tensor last = Inputs.randint(rng, DType.INT64, 0, 6, 4, 5, 2);
                assertClose(in.tensor().gather(-1, Inputs.nonContiguous(last)), Torch.call("torch.gather(a, -1, b)", in.tensor(), last), ctx + " dim -1");
            }
            Tensor scalar = values(rng, d);
            assertClose(scalar.gather(0, Tensor.scalar(0L)), Torch.call("torch.gather(a, 0, b)", scalar, Tensor.scalar(0L)), "0-d " + d);
        }
    }

    @Test
    void embedding() {
        Random rng = new Random(13);
        OpOverload embedding = OpRegistry.get("aten.embedding.default");
        for (DType d : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
            Tensor weight = Inputs.randn(rng, d, 10, 4);
            for (DType id : new DType[] {DType.INT64, DType.INT32}) {
                Tensor indices = Inputs.randint(rng, id, 0, 10, 3, 5);
                for (Inputs.Layout in : Inputs.layouts(weight)) {
                    assertClose(embedding.callTensor(in.tensor(), indices), Torch.call("torch.embedding(a, b)", in.tensor(), indices), "embedding " + d + " " + id + " " + in);
                }
                assertClose(embedding.callTensor(weight, indices, 2L), Torch.call("torch.embedding(a, b, 2)", weight, indices), "padding_idx " + id);
            }
            Tensor scalarIndex = Tensor.scalar(7L);
            assertClose(embedding.callTensor(weight, scalarIndex), Torch.call("torch.embedding(a, b)", weight, scalarIndex), "0-d indices " + d);
        }
    }
}
