package dev.ember.ops;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.ember.ops.LinalgOpsTest.assertSameError;
import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * conv3d and 3-d convolution / convolution_backward against libtorch: strides, padding (past the
 * depth of the kernel too), dilation, groups, bias, non-contiguous inputs, unbatched and empty
 * inputs, integer dtypes, and libtorch's messages for bad input.
 */
class Conv3dConformanceTest {
    private static final OpOverload CONV3D = OpRegistry.get("aten.conv3d.default");
    private static final OpOverload CONVOLUTION = OpRegistry.get("aten.convolution.default");
    private static final OpOverload BACKWARD = OpRegistry.get("aten.convolution_backward.default");

    record Case(int[] input, int[] weight, int[] stride, int[] padding, int[] dilation, int groups) {
        @Override
        public String toString() {
            return "input " + Arrays.toString(input) + " weight " + Arrays.toString(weight) + " stride " + Arrays.toString(stride)
                    + " padding " + Arrays.toString(padding) + " dilation " + Arrays.toString(dilation) + " groups " + groups;
        }
    }

    private static int[] v(int... values) { return values; }

    private static final List<Case> CASES = List.of(
            new Case(v(2, 3, 5, 6, 7), v(4, 3, 3, 3, 3), v(1, 1, 1), v(0, 0, 0), v(1, 1, 1), 1),
            new Case(v(2, 3, 5, 6, 7), v(4, 3, 3, 3, 3), v(1, 1, 1), v(1, 1, 1), v(1, 1, 1), 1),     // stride 1, padded: gradients as a convolution
            new Case(v(1, 2, 7, 6, 5), v(3, 2, 3, 2, 2), v(2, 1, 2), v(1, 2, 0), v(1, 1, 1), 1),
            new Case(v(2, 4, 6, 5, 6), v(6, 2, 2, 3, 3), v(1, 2, 1), v(2, 1, 1), v(2, 1, 2), 2),     // depth padding past the kernel, dilation, groups
            new Case(v(1, 4, 4, 5, 5), v(8, 1, 3, 3, 3), v(1, 1, 1), v(1, 1, 1), v(1, 1, 1), 4),     // depthwise, multiplier 2
            new Case(v(3, 5, 3, 4, 4), v(2, 5, 1, 1, 1), v(1, 1, 1), v(0, 0, 0), v(1, 1, 1), 1),     // 1x1x1
            new Case(v(2, 3, 8, 4, 4), v(2, 3, 3, 1, 1), v(3, 1, 1), v(2, 0, 0), v(3, 1, 1), 1),     // taps that read no input at some depths
            new Case(v(1, 2, 3, 3, 3), v(2, 2, 3, 3, 3), v(1, 1, 1), v(0, 0, 0), v(1, 1, 1), 1));    // one voxel out

    private static final String LIBTORCH_GRADIENTS = """
            x = b.double().detach().requires_grad_(True)
            w = c.double().detach().requires_grad_(True)
            bias = d.double().detach().requires_grad_(True)
            y = torch.conv3d(x, w, bias, e, f, g, h)
            go: List[Optional[Tensor]] = [a.double()]
            return torch.autograd.grad([y], [x, w, bias], go)""";

    @Test
    void forwardAndEveryGradientMatchLibtorch() {
        Random rng = new Random(3031);
        try (NDManager m = Torch.scope()) {
            for (DType dtype : new DType[] {DType.FLOAT32, DType.FLOAT64}) {
                Tolerance tol = dtype == DType.FLOAT32 ? new Tolerance(1e-4, 1e-4, false) : Tolerance.of(1e-10, 1e-10);
                for (Case k : CASES) {
                    Tensor x = Inputs.randn(rng, dtype, k.input()), w = Inputs.randn(rng, dtype, k.weight()), b = Inputs.randn(rng, dtype, k.weight()[0]);
                    String ctx = dtype + " " + k;
                    for (Inputs.Layout lx : Inputs.layouts(x).subList(0, 2)) {
                        Tensor y = CONV3D.callTensor(lx.tensor(), w, b, k.stride(), k.padding(), k.dilation(), k.groups());
                        assertClose(y, Torch.call(m, "torch.conv3d(a.double(), b.double(), c.double(), d, e, f, g)", lx.tensor(), w, b,
                                k.stride(), k.padding(), k.dilation(), k.groups()), "forward " + ctx + " x " + lx, tol);
                    }
                    assertClose(CONV3D.callTensor(x, w, null, k.stride(), k.padding(), k.dilation(), k.groups()),
                            Torch.call(m, "torch.conv3d(a.double(), b.double(), None, c, d, e, f)", x, w, k.stride(), k.padding(), k.dilation(), k.groups()),
                            "forward without bias " + ctx, tol);
                    int[] outShape = CONV3D.callTensor(x, w, b, k.stride(), k.padding(), k.dilation(), k.groups()).shape();
                    Tensor gy = Inputs.randn(rng, dtype, outShape);
                    NDList expected = Torch.callListWithGrad(m, LIBTORCH_GRADIENTS, gy, x, w, b, k.stride(), k.padding(), k.dilation(), k.groups());
                    for (Inputs.Layout lg : Inputs.layouts(gy).subList(0, 2)) {
                        List<Tensor> grads = BACKWARD.callList(lg.tensor(), x, w, v(k.weight()[0]), k.stride(), k.padding(), k.dilation(),
                                false, v(0, 0, 0), k.groups(), new boolean[] {true, true, true});
                        for (Tensor grad : grads) assertEquals(dtype, grad.dtype(), ctx);
                        assertClose(grads, expected, "backward " + ctx + " grad " + lg, tol);
                    }
                    // through autograd: conv3d's gradients are convolution's
                    Tensor xl = x.detach().requiresGrad(true), wl = w.detach().requiresGrad(true), bl = b.detach().requiresGrad(true);
                    CONV3D.callTensor(xl, wl, bl, k.stride(), k.padding(), k.dilation(), k.groups()).mul(gy).sum().backward();
                    assertClose(List.of(xl.grad(), wl.grad(), bl.grad()), expected, "autograd " + ctx, tol);
                }
            }
        }
    }

    @Test
    void integerDtypesUnbatchedAndEmptyInputs() {
        Random rng = new Random(3032);
        try (NDManager m = Torch.scope()) {
            Tensor xi = Inputs.randint(rng, DType.INT64, -4, 5, 2, 3, 4, 5, 5), wi = Inputs.randint(rng, DType.INT64, -4, 5, 4, 3, 2, 3, 3);
            assertClose(CONV3D.callTensor(xi, wi, null, v(1, 2, 1), v(1, 0, 1), v(1, 1, 1), 1),
                    Torch.call(m, "torch.conv3d(a, b, None, [1, 2, 1], [1, 0, 1])", xi, wi), "int64");
            Tensor x32 = xi.to(DType.INT32), w32 = wi.to(DType.INT32);
            assertClose(CONV3D.callTensor(x32, w32, null, v(1, 2, 1), v(1, 0, 1), v(1, 1, 1), 1),
                    Torch.call(m, "torch.conv3d(a, b, None, [1, 2, 1], [1, 0, 1])", x32, w32), "int32");
            assertClose(CONV3D.callTensor(xi, wi, null, v(1, 1, 1), v(1, 0, 1), v(2, 1, 1), 1),
                    Torch.call(m, "torch.conv3d(a, b, None, [1, 1, 1], [1, 0, 1], [2, 1, 1])", xi, wi), "int64 dilated");
            Tensor x = Inputs.randn(rng, DType.FLOAT32, 3, 4, 5, 6), w = Inputs.randn(rng, DType.FLOAT32, 2, 3, 2, 2, 3), b = Inputs.randn(rng, DType.FLOAT32, 2);
            assertClose(CONV3D.callTensor(x, w, b, 1, 1, 1, 1), Torch.call(m, "torch.conv3d(a, b, c, 1, 1, 1, 1)", x, w, b), "unbatched");
            assertClose(CONV3D.callTensor(x, w), Torch.call(m, "torch.conv3d(a, b)", x, w), "defaults");
            Tensor empty = Inputs.randn(rng, DType.FLOAT32, 0, 3, 4, 5, 6);
            assertClose(CONV3D.callTensor(empty, w, b), Torch.call(m, "torch.conv3d(a, b, c)", empty, w, b), "empty batch");
            Tensor xc = Inputs.randn(rng, DType.FLOAT64, 2, 4, 5, 6, 5), wc = Inputs.randn(rng, DType.FLOAT64, 6, 2, 2, 3, 2), bc = Inputs.randn(rng, DType.FLOAT64, 6);
            assertClose(CONVOLUTION.callTensor(xc, wc, bc, v(2), v(1, 0, 1), v(1), false, v(0), 2),
                    Torch.call(m, "torch.convolution(a, b, c, [2], [1, 0, 1], [1], False, [0], 2)", xc, wc, bc), "convolution, one-value lists");
        }
    }

    @Test
    void badInputRaisesLibtorchsMessages() {
        String conv3d = "aten.conv3d.default";
        Tensor x = Tensor.ones(1, 3, 4, 4, 4), w = Tensor.ones(2, 3, 3, 3, 3);
        assertSameError("torch.conv3d(a, b)", conv3d, Tensor.ones(3, 4, 4), w);
        assertSameError("torch.conv3d(a, b)", conv3d, Tensor.ones(1, 4, 4, 4, 4), w);
        assertSameError("torch.conv3d(a, b)", conv3d, Tensor.ones(1, 3, 2, 4, 4), w);
        assertSameError("torch.conv3d(a, b)", conv3d, x, Tensor.ones(2, 3, 3, 3));
        assertSameError("torch.conv3d(a, b, c)", conv3d, x, w, Tensor.ones(3));
        assertSameError("torch.conv3d(a, b, None, 1, 0, 1, 2)", new Object[] {x, w}, conv3d, x, w, null, 1, 0, 1, 2);
        assertSameError("torch.conv3d(a, b, None, [1, 0, 1])", new Object[] {x, w}, conv3d, x, w, null, v(1, 0, 1));
        assertSameError("torch.conv3d(a, b, None, [1, 1])", new Object[] {x, w}, conv3d, x, w, null, v(1, 1));
        assertSameError("torch.conv3d(a, b, None, 1, -1)", new Object[] {x, w}, conv3d, x, w, null, 1, -1);
        assertSameError("torch.conv3d(a, b)", conv3d, x, Tensor.ones(DType.FLOAT64, 2, 3, 3, 3, 3));
        assertSameError("torch.conv3d(a, b)", conv3d, Tensor.ones(DType.BOOL, 1, 3, 4, 4, 4), Tensor.ones(DType.BOOL, 2, 3, 3, 3, 3));
        Tensor xi = Tensor.ones(DType.INT32, 1, 3, 6, 6, 6), wi = Tensor.ones(DType.INT32, 2, 3, 3, 3, 3);
        assertSameError("torch.conv3d(a, b, None, 1, 0, 2)", new Object[] {xi, wi}, conv3d, xi, wi, null, 1, 0, 2);
    }
}
