package dev.ember.nn;

import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * F.gumbelSoftmax: its draws are Ember's, so it is checked by what it promises — soft samples on
 * the simplex, hard ones one-hot at the soft sample's largest entry with the soft sample's
 * gradient (straight-through), and the Gumbel-max property that a category wins as often as
 * libtorch's softmax of the logits says.
 */
class GumbelSoftmaxTest {

    @Test
    void hardSamplesFollowTheSoftmaxOfTheLogits() {
        Tensor.manualSeed(11);
        Tensor logits = Tensor.of(new double[] {1.0, 0.0, -1.0, 0.5}, 1, 4).to(DType.FLOAT32);
        int draws = 20000;
        Tensor samples = F.gumbelSoftmax(logits.expand(draws, 4), 0.5, true, -1);
        Tensor frequency = samples.mean(0);
        assertClose(frequency, Torch.call("torch.softmax(a[0], 0)", logits), "how often each category wins", dev.ember.testing.TorchAssert.Tolerance.of(0, 0.012));
        double[] rows = samples.sum(1).toDoubleArray();
        for (double r : rows) assertEquals(1.0, r, 1e-6, "one-hot rows");
    }

    @Test
    void softSamplesLieOnTheSimplexAndHardOnesPassTheSoftGradient() {
        Tensor.manualSeed(12);
        Tensor logits = Tensor.randn(6, 5).to(DType.FLOAT64).requiresGrad(true);
        Tensor soft = F.gumbelSoftmax(logits, 2.0, false, 1);
        assertClose(soft.sum(1), Torch.call("torch.ones(6, dtype=torch.float64)"), "rows sum to 1");
        assertTrue(soft.min().item() > 0, "positive");

        Tensor.manualSeed(13);
        Tensor hard = F.gumbelSoftmax(logits, 2.0, true, 1);
        Tensor.manualSeed(13);
        Tensor sameSoft = F.gumbelSoftmax(logits, 2.0, false, 1);
        assertClose(hard.detach(), Torch.call("torch.zeros_like(a).scatter(1, a.argmax(1, keepdim=True), 1.0)", sameSoft.detach()), "one-hot at the soft argmax");
        Tensor g = Tensor.randn(6, 5).to(DType.FLOAT64);
        Tensor hardGrad = Autograd.grad(List.of(hard), List.of(logits), List.of(g), false, false, false).getFirst();
        Tensor softGrad = Autograd.grad(List.of(sameSoft), List.of(logits), List.of(g), false, false, false).getFirst();
        assertClose(hardGrad, Torch.toNd(softGrad), "straight-through gradient");
    }
}
