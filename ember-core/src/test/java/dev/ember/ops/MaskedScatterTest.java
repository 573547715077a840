package dev.ember.ops;

import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn3;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** masked_scatter against libtorch: broadcast masks, a larger source, dtypes, gradients, refusals, compiled in one graph. */
class MaskedScatterTest {
    private final Random rng = new Random(43);

    @AfterEach
    void reset() { Ember.reset(); }

    @Test
    void valuesAndGradientsMatchLibtorch() {
        Tensor self = Inputs.randn(rng, DType.FLOAT64, 3, 4), source = Inputs.randn(rng, DType.FLOAT64, 20);
        Tensor mask = Inputs.randn(rng, DType.FLOAT64, 3, 4).gt(0.2), rowMask = Tensor.of(new boolean[] {true, false, true, true}, 4);
        assertClose(self.maskedScatter(mask, source), Torch.call("torch.masked_scatter(a, b, c)", self, mask, source), "a mask of self's shape");
        assertClose(self.maskedScatter(rowMask, source.reshape(4, 5)), Torch.call("torch.masked_scatter(a, b, c)", self, rowMask, source.reshape(4, 5)),
                "a broadcast mask, a 2-d source");
        Tensor ints = Tensor.ofLongs(1, 2, 3, 4), intSource = Tensor.ofLongs(10, 20, 30);
        Tensor some = Tensor.of(new boolean[] {false, true, false, true}, 4);
        assertClose(ints.maskedScatter(some, intSource), Torch.call("torch.masked_scatter(a, b, c)", ints, some, intSource), "int64");
        assertClose(self.maskedScatter(self.gt(100.0), Tensor.zeros(DType.FLOAT64, 0)), self, "nothing true, an empty source");

        Tensor s = self.detach().requiresGrad(true), src = source.detach().requiresGrad(true);
        Tensor y = s.maskedScatter(mask, src).sin().sum();
        List<Tensor> got = Autograd.grad(List.of(y), List.of(s, src), null, false, false, false);
        String body = "a = a.detach().requires_grad_(True)\nc = c.detach().requires_grad_(True)\n"
                + "y = torch.masked_scatter(a, b, c).sin().sum()\nreturn torch.autograd.grad([y], [a, c])";
        try (NDManager m = Torch.scope()) {
            var want = Torch.callListWithGrad(m, body, self, mask, source);
            assertClose(got.get(0), want.get(0), "gradient of self");
            assertClose(got.get(1), want.get(1), "gradient of source (0 past the used elements)");
        }
    }

    @Test
    void badInputIsRefused() {
        Tensor self = Tensor.zeros(DType.FLOAT32, 4), mask = Tensor.of(new boolean[] {true, true, true, false}, 4);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> self.maskedScatter(mask, Tensor.zeros(DType.FLOAT32, 2)));
        assertEquals("masked_scatter_: Number of elements of source < number of ones in mask", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> self.maskedScatter(Tensor.ones(DType.FLOAT32, 4), Tensor.zeros(DType.FLOAT32, 4)));
        assertEquals("masked_scatter_ only supports boolean masks, but got mask with dtype Float", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> self.maskedScatter(mask, Tensor.zeros(DType.FLOAT64, 4)));
        // ATen's words (its message lacks the space after "got")
        assertEquals("masked_scatter: expected self and source to have same dtypes but got Float and Double", e.getMessage());
        Object[][] cases = {{mask, Tensor.zeros(DType.FLOAT32, 2), "Number of elements of source < number of ones in mask"},
                {Tensor.ones(DType.FLOAT32, 4), Tensor.zeros(DType.FLOAT32, 4), "masked_scatter_ only supports boolean masks, but got mask with dtype Float"},
                {mask, Tensor.zeros(DType.FLOAT64, 4), "masked_scatter: expected self and source to have same dtypes but got"}};
        for (Object[] bad : cases) {
            RuntimeException torch = assertThrows(RuntimeException.class, () -> Torch.call("torch.masked_scatter(a, b, c)", self, bad[0], bad[1]));
            String words = Torch.refusalText(torch);
            org.junit.jupiter.api.Assertions.assertTrue(words.contains((String) bad[2]), "libtorch's words: " + words);
        }
    }

    static Tensor fill(Tensor x, Tensor mask, Tensor source) { return x.maskedScatter(mask, source.mul(2.0)).add(1.0); }

    @Test
    void compiledInOneGraphGivesEagersResult() {
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 5, 6), mask = Inputs.randn(rng, DType.FLOAT32, 5, 6).gt(0), source = Inputs.randn(rng, DType.FLOAT32, 30);
        Fn3<Tensor, Tensor, Tensor, Tensor> compiled = Ember.compile((Fn3<Tensor, Tensor, Tensor, Tensor>) MaskedScatterTest::fill,
                Options.backend("inductor").fullgraph(true));
        assertClose(compiled.apply(x, mask, source), fill(x, mask, source), "compiled", dev.ember.testing.TorchAssert.Tolerance.of(0, 0));
    }
}
