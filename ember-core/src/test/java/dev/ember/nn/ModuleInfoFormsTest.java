package dev.ember.nn;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Constructor forms PyTorch's ModuleInfo samples use that Ember lacked before session 42:
 * batch norm's {@code momentum=None} (a cumulative moving average over the batches seen) and
 * adaptive pooling's {@code output_size} with None entries. Values and gradients of single calls
 * are in {@link ModuleSamplesTest}; here, what several calls and the printout do.
 */
class ModuleInfoFormsTest {

    @Test
    void momentumNoneAveragesEveryBatchSeenAsTorchs() {
        Random rng = new Random(11);
        for (BatchNorm bn : List.<BatchNorm>of(new BatchNorm1d(4, 1e-3, null, true, true), new BatchNorm2d(4, 1e-3, null, false, true),
                new SyncBatchNorm(4, 1e-3, (Double) null, true, true))) {
            assertTrue(bn.cumulativeMovingAverage);
            assertNull(bn.momentumOrNone());
            assertTrue(bn.toString().contains("momentum=None"), bn.toString());
            int[] shape = bn instanceof BatchNorm2d ? new int[] {3, 4, 2, 2} : new int[] {5, 4};
            Tensor mean = Tensor.zeros(4), var = Tensor.ones(4);
            try (NDManager m = Torch.scope()) {
                for (int batch = 1; batch <= 3; batch++) {
                    Tensor x = Inputs.randn(rng, DType.FLOAT32, shape);
                    Tensor y = bn.forward(x);
                    // torch: exponential_average_factor = 1 / num_batches_tracked
                    NDList want = Torch.callList(m, "y = torch.batch_norm(a, None, None, b, c, True, " + (1.0 / batch) + ", 1e-3, False)\nreturn (y, b, c)", x, mean, var);
                    mean = Torch.fromNd(want.get(1));
                    var = Torch.fromNd(want.get(2));
                    if (!bn.affine) assertClose(y, want.get(0), bn.getClass().getSimpleName() + " batch " + batch);
                    assertClose(bn.runningMean, want.get(1), bn.getClass().getSimpleName() + " running mean after batch " + batch);
                    assertClose(bn.runningVar, want.get(2), bn.getClass().getSimpleName() + " running var after batch " + batch);
                }
            }
            assertEquals(3L, bn.numBatchesTracked.toLongArray()[0]);
        }
        BatchNorm2d converted = new BatchNorm2d(2, 1e-5, null, true, true);
        assertTrue(((SyncBatchNorm) SyncBatchNorm.convertSyncBatchnorm(converted)).cumulativeMovingAverage, "convert_sync_batchnorm keeps momentum=None");
        assertEquals("BatchNorm1d(4, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)", new BatchNorm1d(4).toString());
    }

    @Test
    void adaptivePoolingNoneKeepsTheInputsSizeAndPrintsAsTorch() {
        AdaptiveAvgPool2d avg = new AdaptiveAvgPool2d(3, null);
        assertEquals("AdaptiveAvgPool2d(output_size=(3, None))", avg.toString());
        assertEquals("AdaptiveMaxPool3d(output_size=(3, None, 5), return_indices=False)", new AdaptiveMaxPool3d(3, null, 5).toString());
        assertEquals("AdaptiveAvgPool3d(output_size=(None, 4, 5))", new AdaptiveAvgPool3d(null, 4, 5).toString());
        assertEquals("AdaptiveAvgPool2d(output_size=(3, 4))", new AdaptiveAvgPool2d(3, 4).toString());
        Tensor x = Tensor.randn(2, 3, 5, 7);
        assertClose(avg.forward(x), Torch.call("torch.adaptive_avg_pool2d(a, [3, 7])", x), "None keeps W = 7");
        Tensor unbatched = Tensor.randn(3, 5, 9);
        assertClose(new AdaptiveMaxPool2d(null, 2).forward(unbatched), Torch.call("torch.adaptive_max_pool2d(a, [5, 2])[0]", unbatched), "unbatched: None keeps H = 5");
        List<Tensor> withIndices = new AdaptiveMaxPool2d(3, null).forwardWithIndices(x);
        assertClose(withIndices.get(1), Torch.call("torch.adaptive_max_pool2d(a, [3, 7])[1]", x), "indices");
    }
}
