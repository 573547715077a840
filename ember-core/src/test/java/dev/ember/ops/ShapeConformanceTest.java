package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;

/** Views, joins, conversions and factories against libtorch, over every dtype and several layouts. */
class ShapeConformanceTest {
    private static final DType[] ALL = DType.values();

    @Test
    void viewsOverLayoutsAndDtypes() {
        Random rng = new Random(1);
        for (DType d : ALL) {
            Tensor base = Inputs.randint(rng, d, 0, 2, 2, 3, 4);
            if (d.isFloatingPoint()) base = Inputs.randn(rng, d, 2, 3, 4);
            for (Inputs.Layout in : Inputs.layouts(base)) {
                Tensor x = in.tensor();
                String ctx = d + " " + in;
                assertClose(x.permute(2, 0, 1), Torch.call("a.permute([2, 0, 1])", x), "permute " + ctx);
                assertClose(x.transpose(0, 2), Torch.call("a.transpose(0, 2)", x), "transpose " + ctx);
                assertClose(x.reshape(4, -1), Torch.call("a.reshape([4, -1])", x), "reshape " + ctx);
                assertClose(x.flatten(1, 2), Torch.call("a.flatten(1, 2)", x), "flatten " + ctx);
                assertClose(x.unsqueeze(1).expand(2, 5, 3, 4), Torch.call("a.unsqueeze(1).expand([2, 5, 3, 4])", x), "expand " + ctx);
                assertClose(x.slice(2, 1, 4, 2), Torch.call("a[:, :, 1:4:2]", x), "slice " + ctx);
                assertClose(x.select(1, -1), Torch.call("a.select(1, -1)", x), "select " + ctx);
                assertClose(x.narrow(2, 1, 2), Torch.call("a.narrow(2, 1, 2)", x), "narrow " + ctx);
                assertClose(x.clone(), Torch.call("a.clone()", x), "clone " + ctx);
                for (DType to : ALL) {
                    assertClose(x.to(to), Torch.call("a.to(" + to.torchName() + ")", x), "to " + to + " " + ctx);
                }
            }
        }
    }

    @Test
    void joinsAndSplits() {
        Random rng = new Random(2);
        Tensor a = Inputs.randn(rng, DType.FLOAT32, 2, 3);
        Tensor b = Inputs.randint(rng, DType.INT64, -5, 5, 4, 3);
        Tensor c = Inputs.randn(rng, DType.FLOAT64, 0, 3);
        assertClose(Tensor.cat(List.of(a, b, c), 0), Torch.call("torch.cat(a, 0)", List.of(a, b, c)), "cat promotes");
        assertClose(Tensor.cat(List.of(a, a.t().contiguous().t()), 1), Torch.call("torch.cat(a, 1)", List.of(a, a)), "cat dim 1");
        assertClose(Tensor.stack(List.of(a, a, a), 2), Torch.call("torch.stack(a, 2)", List.of(a, a, a)), "stack");
        Tensor x = Inputs.randn(rng, DType.FLOAT32, 7, 5);
        assertClose(x.split(3, 0), Torch.callList("torch.split(a, 3, 0)", x), "split");
        assertClose(x.split(new int[] {1, 4}, 1), Torch.callList("torch.split(a, [1, 4], 1)", x), "split sizes");
        assertClose(x.chunk(3, 1), Torch.callList("torch.chunk(a, 3, 1)", x), "chunk");
        assertClose(x.chunk(4, 0), Torch.callList("torch.chunk(a, 4, 0)", x), "chunk uneven");
        Tensor none = Tensor.randn(0, 3);
        assertClose(none.chunk(3, 0), Torch.callList("torch.chunk(a, 3, 0)", none), "chunk of an empty dim: as many empty pieces as asked");
    }

    @Test
    void factories() {
        assertClose(Tensor.arange(7), Torch.call("torch.arange(7)"), "arange int");
        assertClose(Tensor.arange(-1.0, 2.0, 0.3), Torch.call("torch.arange(-1.0, 2.0, 0.3)"), "arange float");
        assertClose(Tensor.linspace(-2, 3, 11), Torch.call("torch.linspace(-2, 3, 11)"), "linspace");
        assertClose(Tensor.eye(4), Torch.call("torch.eye(4)"), "eye");
        assertClose(Tensor.full(DType.INT32, 3, 2, 2), Torch.call("torch.full([2, 2], 3, dtype=torch.int32)"), "full int32");
        assertClose(Tensor.full(2.5, 3), Torch.call("torch.full([3], 2.5)"), "full float");
        assertClose(Tensor.zeros(DType.BOOL, 0, 2), Torch.call("torch.zeros([0, 2], dtype=torch.bool)"), "zeros empty bool");
    }
}
