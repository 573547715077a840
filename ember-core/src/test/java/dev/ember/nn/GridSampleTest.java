package dev.ember.nn;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn2;
import dev.ember.Options;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * F.affineGrid and F.gridSample against libtorch's affine_grid_generator and grid_sampler (every
 * mode Ember has, every padding mode, corners aligned or not, 4-d and 5-d), values and the
 * gradients of the input, the grid and theta; compiled against eager; ATen's refusals.
 */
class GridSampleTest {
    private static final Random RNG = new Random(21);

    @Test
    void affineGridMatchesLibtorch() {
        for (boolean align : new boolean[] {false, true}) {
            for (int[] size : new int[][] {{2, 3, 4, 5}, {1, 1, 1, 3}, {2, 1, 2, 3, 4}}) {
                boolean volume = size.length == 5;
                Tensor theta = Inputs.randn(RNG, DType.FLOAT64, size[0], volume ? 3 : 2, volume ? 4 : 3).requiresGrad(true);
                Tensor grid = F.affineGrid(theta, size, align);
                Tensor g = Inputs.randn(RNG, DType.FLOAT64, grid.shape());
                Tensor grad = Autograd.grad(List.of(grid), List.of(theta), List.of(g), false, false, false).getFirst();
                try (NDManager m = Torch.scope()) {
                    NDList want = Torch.callListWithGrad(m, """
                            t = a.detach().requires_grad_(True)
                            o = torch.affine_grid_generator(t, b, %s)
                            go: List[Optional[Tensor]] = [c]
                            res = [o]
                            for x in torch.autograd.grad([o], [t], go):
                                if x is not None:
                                    res.append(x)
                            return res""".formatted(align ? "True" : "False"), theta.detach(), size, g);
                    String context = "affine_grid " + java.util.Arrays.toString(size) + " align_corners=" + align;
                    assertClose(grid, want.get(0), context);
                    assertClose(grad, want.get(1), context + " gradient");
                }
            }
        }
    }

    @Test
    void gridSampleMatchesLibtorchValuesAndGradients() {
        for (boolean volume : new boolean[] {false, true}) {
            for (String mode : volume ? List.of("bilinear", "nearest") : List.of("bilinear", "nearest", "bicubic")) {
                for (String padding : List.of("zeros", "border", "reflection")) {
                    for (boolean align : new boolean[] {false, true}) {
                        Tensor input = Inputs.randn(RNG, DType.FLOAT64, volume ? new int[] {2, 3, 3, 4, 5} : new int[] {2, 3, 4, 5}).requiresGrad(true);
                        // positions spread past [-1, 1], so the padding modes matter
                        Tensor grid = Inputs.uniform(RNG, DType.FLOAT64, -1.4, 1.4, volume ? new int[] {2, 2, 3, 4, 3} : new int[] {2, 3, 4, 2}).requiresGrad(true);
                        Tensor out = F.gridSample(input, grid, mode, padding, align);
                        Tensor g = Inputs.randn(RNG, DType.FLOAT64, out.shape());
                        List<Tensor> grads = Autograd.grad(List.of(out), List.of(input, grid), List.of(g), false, false, true);
                        int modeCode = List.of("bilinear", "nearest", "bicubic").indexOf(mode), paddingCode = List.of("zeros", "border", "reflection").indexOf(padding);
                        try (NDManager m = Torch.scope()) {
                            NDList want = Torch.callListWithGrad(m, """
                                    x = a.detach().requires_grad_(True)
                                    gr = b.detach().requires_grad_(True)
                                    o = torch.grid_sampler(x, gr, %d, %d, %s)
                                    go: List[Optional[Tensor]] = [c]
                                    res = [o]
                                    for t in torch.autograd.grad([o], [x, gr], go, allow_unused=True):
                                        if t is not None:
                                            res.append(t)
                                        else:
                                            res.append(torch.zeros_like(gr))
                                    return res""".formatted(modeCode, paddingCode, align ? "True" : "False"), input.detach(), grid.detach(), g);
                            String context = "grid_sample " + (volume ? "5-d " : "4-d ") + mode + " " + padding + " align_corners=" + align;
                            assertClose(out, want.get(0), context);
                            assertClose(grads.get(0), want.get(1), context + " input gradient");
                            Tensor gridGrad = grads.get(1) == null ? Tensor.zerosLike(grid) : grads.get(1);
                            assertClose(gridGrad, want.get(2), context + " grid gradient", Tolerance.of(1e-9, 1e-9));
                        }
                    }
                }
            }
        }
    }

    @Test
    void spatialTransformerCompilesToOneGraph() {
        Fn2<Tensor, Tensor, Tensor> transform = (images, theta) -> F.gridSample(images, F.affineGrid(theta, images.shape(), false), "bilinear", "border", false);
        Tensor images = Tensor.randn(2, 3, 6, 7), theta = Tensor.randn(2, 2, 3).mul(0.5);
        assertEquals(0, Ember.explain(transform).with(images, theta).graphBreakCount());
        Tensor eager = transform.apply(images, theta);
        assertClose(Ember.compile(transform, Options.defaults().fullgraph(true)).apply(images, theta), Torch.toNd(eager), "compiled spatial transformer",
                Tolerance.of(1e-5, 1e-5));
        Fn2<Tensor, Tensor, Tensor> bicubic = (im, th) -> F.gridSample(im, F.affineGrid(th, im.shape(), true), "bicubic", "reflection", true);
        assertClose(Ember.compile(bicubic, Options.defaults().fullgraph(true)).apply(images, theta), Torch.toNd(bicubic.apply(images, theta)), "compiled bicubic",
                Tolerance.of(1e-5, 1e-5));
    }

    @Test
    void refusalsUseAtensWords() {
        Tensor input = Tensor.randn(2, 3, 4, 5), grid = Tensor.rand(2, 3, 4, 2);
        try (NDManager m = Torch.scope()) {
            Tensor grid64 = grid.to(DType.FLOAT64);
            AtenRefusal.refused(m, "dtypes", () -> F.gridSample(input, grid64), "torch.grid_sampler(a, b, 0, 0, False)", input, grid64);
            Tensor oneSample = Tensor.rand(1, 3, 4, 2);
            AtenRefusal.refused(m, "batch", () -> F.gridSample(input, oneSample), "torch.grid_sampler(a, b, 0, 0, False)", input, oneSample);
            Tensor threeCoordinates = Tensor.rand(2, 3, 4, 3);
            AtenRefusal.refused(m, "last dim", () -> F.gridSample(input, threeCoordinates), "torch.grid_sampler(a, b, 0, 0, False)", input, threeCoordinates);
            Tensor flat = Tensor.randn(2, 3, 4);
            AtenRefusal.refused(m, "rank", () -> F.gridSample(flat, grid), "torch.grid_sampler(a, b, 0, 0, False)", flat, grid);
            Tensor volume = Tensor.randn(1, 1, 2, 2, 2), volumeGrid = Tensor.rand(1, 2, 2, 2, 3);
            AtenRefusal.refused(m, "bicubic 5-d", () -> F.gridSample(volume, volumeGrid, "bicubic", "zeros", false), "torch.grid_sampler(a, b, 2, 0, False)", volume, volumeGrid);
            Tensor empty = Tensor.randn(2, 3, 0, 5);
            AtenRefusal.refused(m, "empty input", () -> F.gridSample(empty, grid), "torch.grid_sampler(a, b, 0, 0, False)", empty, grid);
        }
        // PyTorch's Python layer's checks
        assertEquals("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'linear'",
                assertThrows(IllegalArgumentException.class, () -> F.gridSample(input, grid, "linear", "zeros", false)).getMessage());
        assertEquals("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: 'edge'",
                assertThrows(IllegalArgumentException.class, () -> F.gridSample(input, grid, "bilinear", "edge", false)).getMessage());
        assertEquals("Expected a batch of 2D affine matrices of shape Nx2x3 for size [2, 3, 4, 5]. Got [2, 3, 4].",
                assertThrows(IllegalArgumentException.class, () -> F.affineGrid(Tensor.randn(2, 3, 4), new int[] {2, 3, 4, 5}, false)).getMessage());
        assertEquals("Expected non-zero, positive output size. Got [2, 3, 0, 5]",
                assertThrows(IllegalArgumentException.class, () -> F.affineGrid(Tensor.randn(2, 2, 3), new int[] {2, 3, 0, 5}, false)).getMessage());
        assertEquals("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size [2, 3, 5].",
                assertThrows(UnsupportedOperationException.class, () -> F.affineGrid(Tensor.randn(2, 2, 3), new int[] {2, 3, 5}, false)).getMessage());
        assertEquals("Expected theta to have floating point type, but got torch.int64",
                assertThrows(IllegalArgumentException.class, () -> F.affineGrid(Tensor.ofLongs(1, 2, 3, 4, 5, 6).reshape(1, 2, 3), new int[] {1, 1, 2, 2}, false)).getMessage());
    }
}
