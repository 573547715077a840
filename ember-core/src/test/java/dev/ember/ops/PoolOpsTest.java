package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.FakeTensor;
import dev.ember.tensor.Tensor;
import org.junit.jupiter.api.Test;

import static dev.ember.ops.LinalgOpsTest.assertSameError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** Bad inputs to the pooling ops raise libtorch's messages (before any work); fake tensors get the output shape. */
class PoolOpsTest {
    private static final String MAX = "aten.max_pool2d.default", AVG = "aten.avg_pool2d.default", ADAPTIVE = "aten.adaptive_avg_pool2d.default";
    private static final Tensor X = Tensor.ones(1, 3, 4, 4);

    private static int[] ints(int... v) { return v; }

    @Test
    void maxPoolErrors() {
        String expr = "torch.max_pool2d(a, b, c, d, e, f)";
        assertSameError(expr, MAX, X, ints(2, 2, 2), ints(), ints(0), ints(1), false);
        assertSameError(expr, MAX, X, ints(2, 2), ints(1, 1, 1), ints(0), ints(1), false);
        assertSameError(expr, MAX, X, ints(2, 2), ints(), ints(0, 0, 0), ints(1), false);
        assertSameError(expr, MAX, X, ints(2, 2), ints(), ints(0), ints(1, 1, 1), false);
        assertSameError(expr, MAX, Tensor.ones(4, 4), ints(2, 2), ints(), ints(0), ints(1), false);
        assertSameError(expr, MAX, Tensor.ones(1, 1, 3, 4, 4), ints(2, 2), ints(), ints(0), ints(1), false);
        assertSameError(expr, MAX, X, ints(2, 2), ints(0, 1), ints(0), ints(1), false);
        assertSameError(expr, MAX, X, ints(2, 2), ints(-1, 1), ints(0), ints(1), false);
        assertSameError(expr, MAX, X, ints(2, 2), ints(), ints(-1, 0), ints(1), false);
        assertSameError(expr, MAX, X, ints(2, 2), ints(), ints(2, 2), ints(1), false);
        assertSameError(expr, MAX, X, ints(3, 3), ints(), ints(2, 0), ints(2), false);
        assertSameError(expr, MAX, X, ints(2, 2), ints(), ints(0), ints(0, 1), false);
        assertSameError(expr, MAX, X, ints(0, 2), ints(1), ints(0), ints(1), false);
        assertSameError(expr, MAX, Tensor.ones(1, 3, 1, 1), ints(2, 2), ints(), ints(0), ints(1), false);
        assertSameError(expr, MAX, Tensor.ones(2, 0, 4, 4), ints(2, 2), ints(), ints(0), ints(1), false);
        assertSameError(expr, MAX, Tensor.ones(2, 3, 0, 4), ints(2, 2), ints(), ints(0), ints(1), false);
        assertSameError(expr, MAX, Tensor.ones(0, 4, 4), ints(2, 2), ints(), ints(0), ints(1), false);
        assertSameError(expr, MAX, Tensor.ones(DType.BOOL, 1, 3, 4, 4), ints(2, 2), ints(), ints(0), ints(1), false);
    }

    @Test
    void avgPoolErrors() {
        String expr = "torch.avg_pool2d(a, b, c, d, e, f, g)";
        assertSameError(expr, AVG, X, ints(2, 2, 2), ints(), ints(0), false, true, 1);
        assertSameError(expr, AVG, X, ints(2, 2), ints(1, 1, 1), ints(0), false, true, 1);
        assertSameError(expr, AVG, X, ints(2, 2), ints(), ints(0, 0, 0), false, true, 1);
        assertSameError(expr, AVG, X, ints(2, 2), ints(), ints(0), false, true, 0);
        assertSameError("torch.avg_pool2d(a, b)", AVG, Tensor.ones(4, 4), ints(2, 2));
        assertSameError("torch.avg_pool2d(a, b)", AVG, Tensor.ones(1, 1, 3, 4, 4), ints(2, 2));
        assertSameError("torch.avg_pool2d(a, b, c, d)", AVG, X, ints(2, 2), ints(), ints(2, 0));
        assertSameError("torch.avg_pool2d(a, b)", AVG, Tensor.ones(1, 3, 1, 4), ints(2, 2));
        assertSameError("torch.avg_pool2d(a, b)", AVG, Tensor.ones(1, 3, 0, 4), ints(2, 2));
        assertSameError("torch.avg_pool2d(a, b)", AVG, Tensor.ones(DType.INT32, 1, 3, 4, 4), ints(2, 2));
        assertSameError("torch.avg_pool2d(a, b)", AVG, Tensor.ones(DType.BOOL, 1, 3, 4, 4), ints(2, 2));
    }

    @Test
    void adaptiveAvgPoolErrors() {
        String expr = "torch.adaptive_avg_pool2d(a, b)";
        assertSameError(expr, ADAPTIVE, X, ints(2, 2, 2));
        assertSameError(expr, ADAPTIVE, X, ints(-1, 2));
        assertSameError(expr, ADAPTIVE, Tensor.ones(4, 4), ints(2, 2));
        assertSameError(expr, ADAPTIVE, Tensor.ones(1, 3, 4, 4, 4), ints(2, 2));
        assertSameError(expr, ADAPTIVE, Tensor.ones(1, 3, 0, 4), ints(2, 2));
        assertSameError(expr, ADAPTIVE, Tensor.ones(3, 4, 0), ints(2, 2));
        assertSameError(expr, ADAPTIVE, Tensor.ones(DType.INT64, 1, 3, 4, 4), ints(2, 2));
        assertSameError(expr, ADAPTIVE, Tensor.ones(DType.INT64, 1, 3, 4, 4), ints(1, 1));
        assertSameError(expr, ADAPTIVE, Tensor.ones(4), ints(1, 1));
    }

    @Test
    void fakeTensorsGetTheRealOutputShape() {
        Tensor real = Tensor.ones(2, 3, 9, 8), fake = FakeTensor.like(real);
        Object[][] calls = {{MAX, ints(3, 3), ints(2, 2), ints(1, 1), ints(1, 1), true}, {AVG, ints(2, 2)}, {ADAPTIVE, ints(1, 1)}, {ADAPTIVE, ints(4, 3)}};
        for (Object[] call : calls) {
            OpOverload op = OpRegistry.get((String) call[0]);
            Object[] args = call.clone();
            args[0] = real;
            int[] expected = op.callTensor(args).shape();
            args[0] = fake;
            assertArrayEquals(expected, op.callTensor(args).shape(), (String) call[0]);
        }
    }
}
