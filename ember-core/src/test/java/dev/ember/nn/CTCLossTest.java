package dev.ember.nn;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.ember.autograd.Autograd;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * CTCLoss / F.ctcLoss against libtorch's ctc_loss: padded and concatenated targets, repeated
 * labels, another blank, every reduction, zero_infinity with a sample no alignment fits, unbatched
 * input; the gradient of the logits through log_softmax (where ATen's and the exact one agree);
 * ATen's refusals.
 */
class CTCLossTest {
    private static final Random RNG = new Random(31);

    private record Case(String name, Tensor targets, long[] inputLengths, long[] targetLengths, int blank, String reduction, boolean zeroInfinity) {}

    @Test
    void matchesLibtorchValuesAndLogitGradients() {
        Tensor padded = Tensor.ofLongs(1, 2, 2, 3, 3, 1, 0, 0, 2, 0, 0, 0).reshape(3, 4);
        Tensor concatenated = Tensor.ofLongs(1, 2, 2, 3, 3, 1, 2);
        for (Case c : List.of(
                new Case("padded mean", padded, new long[] {7, 6, 4}, new long[] {4, 2, 1}, 0, "mean", false),
                new Case("padded sum", padded, new long[] {7, 7, 7}, new long[] {4, 2, 1}, 0, "sum", false),
                new Case("concatenated none", concatenated, new long[] {7, 5, 3}, new long[] {4, 2, 1}, 0, "none", false),
                new Case("blank=4 empty target", Tensor.ofLongs(1, 2, 0, 3, 3, 3, 2, 0, 0).reshape(3, 3), new long[] {6, 7, 2}, new long[] {3, 3, 0}, 4, "mean", false),
                new Case("zero_infinity", padded, new long[] {7, 1, 4}, new long[] {4, 2, 1}, 0, "sum", true))) {
            Tensor logits = Inputs.randn(RNG, DType.FLOAT64, 7, 3, 5).requiresGrad(true);
            Tensor targets = c.name().startsWith("blank") ? c.targets().add(1L).remainder(4L) : c.targets();   // labels 1..3 and 0 with blank 4
            Tensor loss = F.ctcLoss(logits.logSoftmax(2), targets, c.inputLengths(), c.targetLengths(), c.blank(), c.reduction(), c.zeroInfinity());
            Tensor g = Inputs.randn(RNG, DType.FLOAT64, loss.shape());
            Tensor grad = Autograd.grad(List.of(loss), List.of(logits), List.of(g), false, false, false).getFirst();
            int reduction = List.of("none", "mean", "sum").indexOf(c.reduction());
            try (NDManager m = Torch.scope()) {
                NDList want = Torch.callListWithGrad(m, """
                        x = a.detach().requires_grad_(True)
                        o = torch.ctc_loss(torch.log_softmax(x, 2), b, c, d, %d, %d, %s)
                        go: List[Optional[Tensor]] = [e]
                        res = [o]
                        for t in torch.autograd.grad([o], [x], go):
                            if t is not None:
                                res.append(t)
                        return res""".formatted(c.blank(), reduction, c.zeroInfinity() ? "True" : "False"), logits.detach(), targets, c.inputLengths(), c.targetLengths(), g);
                assertClose(loss, want.get(0), "ctc_loss " + c.name());
                assertClose(grad, want.get(1), "ctc_loss " + c.name() + " logits gradient");
            }
        }
    }

    @Test
    void moduleUnbatchedAndImpossibleAlignments() {
        Tensor logProbs = Inputs.randn(RNG, DType.FLOAT32, 6, 4).logSoftmax(1);
        Tensor target = Tensor.ofLongs(1, 1, 2);
        CTCLoss ctc = new CTCLoss();
        assertClose(ctc.forward(logProbs, target, Tensor.scalar(6L), Tensor.scalar(3L)), Torch.call("torch.ctc_loss(a, b, [6], [3])", logProbs, target), "unbatched");
        // three labels with a repeat need four steps: three are not enough
        Tensor batch = Inputs.randn(RNG, DType.FLOAT32, 3, 2, 4).logSoftmax(2);
        Tensor targets = Tensor.ofLongs(1, 1, 2, 1, 0, 0).reshape(2, 3);
        assertClose(F.ctcLoss(batch, targets, new long[] {3, 3}, new long[] {3, 1}, 0, "none", false),
                Torch.call("torch.ctc_loss(a, b, [3, 3], [3, 1], 0, 0, False)", batch, targets), "an impossible alignment costs +inf");
        assertEquals(Double.POSITIVE_INFINITY, F.ctcLoss(batch, targets, new long[] {3, 3}, new long[] {3, 1}, 0, "none", false).toDoubleArray()[0]);
    }

    @Test
    void refusalsUseAtensWords() {
        Tensor lp = Inputs.randn(RNG, DType.FLOAT32, 5, 2, 4).logSoftmax(2);
        Tensor targets = Tensor.ofLongs(1, 2, 3, 1).reshape(2, 2);
        try (NDManager m = Torch.scope()) {
            AtenRefusal.refused(m, "blank", () -> F.ctcLoss(lp, targets, new long[] {5, 5}, new long[] {2, 2}, 4, "mean", false),
                    "torch.ctc_loss(a, b, [5, 5], [2, 2], 4)", lp, targets);
            AtenRefusal.refused(m, "input lengths count", () -> F.ctcLoss(lp, targets, new long[] {5}, new long[] {2, 2}), "torch.ctc_loss(a, b, [5], [2, 2])", lp, targets);
            AtenRefusal.refused(m, "target lengths count", () -> F.ctcLoss(lp, targets, new long[] {5, 5}, new long[] {2}), "torch.ctc_loss(a, b, [5, 5], [2])", lp, targets);
            AtenRefusal.refused(m, "input length", () -> F.ctcLoss(lp, targets, new long[] {6, 5}, new long[] {2, 2}), "torch.ctc_loss(a, b, [6, 5], [2, 2])", lp, targets);
            AtenRefusal.refused(m, "target length", () -> F.ctcLoss(lp, targets, new long[] {5, 5}, new long[] {3, 2}), "torch.ctc_loss(a, b, [5, 5], [3, 2])", lp, targets);
        }
        assertEquals("ctc_loss: max is not a valid value for reduction",
                assertThrows(IllegalArgumentException.class, () -> F.ctcLoss(lp, targets, new long[] {5, 5}, new long[] {2, 2}, 0, "max", false)).getMessage());
    }
}
