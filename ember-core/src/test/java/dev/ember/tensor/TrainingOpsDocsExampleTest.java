package dev.ember.tensor;

import dev.ember.nn.F;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The example of docs/tensors.md, "Training ops: losses, indexed writes, sorting", as written there. */
class TrainingOpsDocsExampleTest {

    @Test
    void theExampleComputesWhatItsCommentsSay() {
        Tensor logits = Tensor.randn(4, 10), labels = Tensor.ofLongs(3, 0, 9, 3);
        Tensor loss = F.crossEntropy(logits, labels);                         // log_softmax + nll_loss, mean
        Tensor smoothed = F.crossEntropy(logits, labels, null, "mean", -100, 0.1);   // weight, reduction, ignore_index, label_smoothing
        Tensor mse = F.mseLoss(logits.softmax(1), F.oneHot(labels, 10).to(DType.FLOAT32));
        List<Tensor> best = logits.topk(3, 1, true);                         // values, int64 positions
        Tensor counts = Tensor.zeros(DType.INT64, 10).indexAdd(0, labels, Tensor.ones(DType.INT64, 4));  // 2 at 3
        Tensor wrapped = Tensor.arange(-3, 4, 1).remainder(3L);               // [0, 1, 2, 0, 1, 2, 0]: Python's %
        Tensor truncated = Tensor.arange(-3, 4, 1).fmod(3L);                  // [0, -2, -1, 0, 1, 2, 0]: C's fmod

        double expected = 0;
        Tensor logProbs = logits.logSoftmax(1);
        for (int i = 0; i < 4; i++) expected -= logProbs.get(i, (int) labels.toLongArray()[i]) / 4;
        assertEquals(expected, loss.item(), 1e-5);
        assertEquals(0, smoothed.dim());
        assertEquals(0, mse.dim());
        assertEquals(List.of(DType.FLOAT32, DType.INT64), best.stream().map(Tensor::dtype).toList());
        assertArrayEquals(new int[] {4, 3}, best.get(0).shape());
        assertArrayEquals(new long[] {1, 0, 0, 2, 0, 0, 0, 0, 0, 1}, counts.toLongArray());
        assertArrayEquals(new long[] {0, 1, 2, 0, 1, 2, 0}, wrapped.toLongArray());
        assertArrayEquals(new long[] {0, -2, -1, 0, 1, 2, 0}, truncated.toLongArray());
        assertEquals("ZeroDivisionError", assertThrows(ArithmeticException.class, () -> Tensor.ofLongs(1, 2).remainder(0L)).getMessage());
    }
}
