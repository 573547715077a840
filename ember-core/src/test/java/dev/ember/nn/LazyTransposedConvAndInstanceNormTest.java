package dev.ember.nn;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * nn.LazyConvTranspose1d/2d/3d and nn.LazyInstanceNorm1d/2d/3d (module_db's lazy transposed
 * convolutions; the lazy instance norms): sized by the first input or a loaded state dict, then the
 * layer they stand for, against libtorch. Values and gradients of materialized ones are in
 * {@link ModuleSamplesTest}.
 */
class LazyTransposedConvAndInstanceNormTest {

    @Test
    void aLazyTransposedConvolutionTakesInChannelsFromItsFirstInput() {
        LazyConvTranspose2d lazy = new LazyConvTranspose2d(4, 3, 2, 1, 1, 2, true, 1);
        assertFalse(lazy.isMaterialized());
        assertNull(lazy.weight);
        assertTrue(lazy.parameters().isEmpty());
        Tensor x = Tensor.randn(2, 6, 5, 5);
        Tensor y = lazy.forward(x);
        assertTrue(lazy.isMaterialized());
        assertEquals(6, lazy.inChannels);
        assertArrayEquals(new int[] {6, 2, 3, 3}, lazy.weight.shape());     // [in, out/groups, k, k]
        assertEquals(List.of("weight", "bias"), List.copyOf(lazy.stateDict().keySet()));
        assertClose(y, Torch.call("torch.conv_transpose2d(a, b, c, [2, 2], [1, 1], [1, 1], 2)", x, lazy.weight.detach(), lazy.bias.detach()), "forward");
        Fn1<Tensor, Tensor> compiled = Ember.compile(lazy);
        assertClose(compiled.apply(x), Torch.toNd(y.detach()), "compiled after materializing");

        LazyConvTranspose1d unbatched = new LazyConvTranspose1d(2, 3);
        Tensor x1 = Tensor.randn(3, 7);                                      // unbatched: the channels are dim 0
        assertClose(unbatched.forward(x1), Torch.call("torch.conv_transpose1d(a.unsqueeze(0), b, c).squeeze(0)", x1, unbatched.weight.detach(),
                unbatched.bias.detach()), "unbatched conv_transpose1d");
        assertEquals(3, unbatched.inChannels);
    }

    @Test
    void aLazyTransposedConvolutionMaterializesFromAStateDict() {
        ConvTranspose3d trained = new ConvTranspose3d(4, 6, 2, 1, 0, 0, 2, true, 1);
        LazyConvTranspose3d lazy = new LazyConvTranspose3d(6, 2, 1, 0, 0, 2, true, 1);
        lazy.loadStateDict(trained.stateDict());
        assertTrue(lazy.isMaterialized());
        assertEquals(4, lazy.inChannels);
        Tensor x = Tensor.randn(1, 4, 3, 3, 3);
        assertClose(lazy.forward(x), Torch.toNd(trained.forward(x).detach()), "the loaded layer computes the trained one's output");
    }

    @Test
    void badInputIsRefusedInTorchsWords() {
        var e = assertThrows(IllegalArgumentException.class, () -> new LazyConvTranspose3d(2, 2).forward(Tensor.randn(2, 3)));
        assertEquals("Expected 4D (unbatched) or 5D (batched) input to LazyConvTranspose3d, but got input of size: torch.Size([2, 3])", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new LazyConvTranspose2d(4, 3, 1, 0, 0, 2, true, 1).forward(Tensor.randn(1, 3, 5, 5)));
        assertTrue(e.getMessage().endsWith("in_channels must be divisible by groups"), e.getMessage());
        // torch's lazy norms size themselves from dim 1 even for unbatched input: [C, L] with an affine part is refused unless C == L
        e = assertThrows(IllegalArgumentException.class, () -> new LazyInstanceNorm1d().forward(Tensor.randn(3, 5)));
        assertEquals("expected input's size at dim=0 to match num_features (5), but got: 3.", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new LazyInstanceNorm2d().forward(Tensor.randn(3, 5)));
        assertEquals("LazyInstanceNorm2d: expected 3D or 4D input (got 2D input)", e.getMessage());
    }

    @Test
    void aLazyInstanceNormHasTorchsLazyDefaultsAndTracksStatistics() {
        LazyInstanceNorm1d norm = new LazyInstanceNorm1d();
        assertTrue(norm.affine && norm.trackRunningStats, "torch's _LazyNormBase defaults, not InstanceNorm's");
        assertTrue(norm.stateDict().isEmpty());
        Tensor x = Tensor.randn(4, 3, 6);
        Tensor y = norm.forward(x);
        assertEquals(3, norm.numFeatures);
        assertEquals(List.of("weight", "bias", "running_mean", "running_var", "num_batches_tracked"), List.copyOf(norm.stateDict().keySet()));
        try (NDManager m = Torch.scope()) {
            NDList want = Torch.callList(m, "rm = torch.zeros(3)\nrv = torch.ones(3)\ny = torch.instance_norm(a, torch.ones(3), torch.zeros(3), rm, rv, True, 0.1, 1e-5, False)\n"
                    + "return [y, rm, rv]", x);
            assertClose(y, want.get(0), "instance norm");
            assertClose(norm.runningMean, want.get(1), "running mean");
            assertClose(norm.runningVar, want.get(2), "running var");
        }
        LazyInstanceNorm3d loaded = new LazyInstanceNorm3d();
        loaded.loadStateDict(new InstanceNorm3d(5, 1e-5, 0.1, true, true).stateDict());
        assertEquals(5, loaded.numFeatures);
    }
}
