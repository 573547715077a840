package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code x.index(longTensor)}, torch's {@code x[idx]} with an integer tensor: rows by position,
 * negative ones from the end, any index shape (0-d too), int64 and int32; its gradient (repeats
 * add up) against libtorch; compiled in one graph equal to eager.
 */
class IntegerIndexTest {
    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    @Test
    void rowsByPositionMatchLibtorch() {
        Tensor.manualSeed(1);
        try (NDManager m = Torch.scope()) {
            for (Tensor x : List.of(Tensor.randn(5, 3), Tensor.randn(6), Tensor.randn(4, 2, 3), Tensor.randn(7, 4).t())) {
                for (Tensor idx : List.of(Tensor.ofLongs(0, 3, -1, 2, 2), Tensor.ofLongs(1, -2, 3, 0).reshape(2, 2), Tensor.scalar(-1L), Tensor.ofLongs())) {
                    String what = java.util.Arrays.toString(x.shape()) + " [" + java.util.Arrays.toString(idx.shape()) + "]";
                    assertClose(x.index(idx), Torch.call(m, "a[b]", x, idx), what);
                    assertClose(x.index(idx.to(DType.INT32)), Torch.call(m, "a[b]", x, idx), what + " int32");
                }
            }
            Tensor w = Tensor.randn(5, 3).to(DType.FLOAT64).requiresGrad(true);
            Tensor idx = Tensor.ofLongs(1, 1, -1, 0);
            Tensor go = Tensor.randn(4, 3).to(DType.FLOAT64);
            Tensor got = Autograd.grad(List.of(w.index(idx)), List.of(w), List.of(go), false, false, false).getFirst();
            var want = Torch.callListWithGrad(m, "a = a.detach().requires_grad_(True)\ny = a[b]\ngo: List[Optional[Tensor]] = [c]\nreturn torch.autograd.grad([y], [a], go)",
                    w.detach(), idx, go);
            assertClose(got, want.get(0), "gradient: repeated rows add up");
        }
        assertThrows(IllegalArgumentException.class, () -> Tensor.randn(3).index(Tensor.ones(2)));
        assertThrows(RuntimeException.class, () -> Tensor.randn(3).index(Tensor.ofLongs(5)));
    }

    static Tensor lookup(Tensor table, Tensor ids) { return table.index(ids).sum(-1).relu(); }

    @Test
    void compiledIsOneGraphEqualToEager() {
        Tensor table = Tensor.randn(10, 4), ids = Tensor.ofLongs(3, -1, 0, 3, 9, -10).reshape(2, 3);
        for (String backend : List.of("aot_eager", "inductor")) {
            Fn2<Tensor, Tensor, Tensor> f = Ember.compile(IntegerIndexTest::lookup, Options.backend(backend));
            assertClose(f.apply(table, ids), lookup(table, ids), backend);
        }
        var e = Ember.explain((Fn2<Tensor, Tensor, Tensor>) IntegerIndexTest::lookup).with(table, ids);
        assertEquals(0, e.graphBreakCount(), e.toString());
    }
}
