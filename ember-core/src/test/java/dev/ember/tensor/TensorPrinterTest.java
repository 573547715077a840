package dev.ember.tensor;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Expected strings are what PyTorch 2.x prints for the same tensors. */
class TensorPrinterTest {

    @Test
    void floatsWithFourDecimalsAlignedBySign() {
        assertEquals("tensor([ 1.5000, -2.2500])", Tensor.of(1.5f, -2.25f).toString());
    }

    @Test
    void wholeFloatsPrintWithATrailingDot() {
        assertEquals("tensor([1., 2., 3.])", Tensor.of(1f, 2f, 3f).toString());
        assertEquals("tensor([-1.,  2.])", Tensor.of(-1f, 2f).toString());
    }

    @Test
    void nonDefaultDtypesAreNamed() {
        assertEquals("tensor([[1, 2],\n        [3, 4]], dtype=torch.int32)", Tensor.tensor(new int[][] {{1, 2}, {3, 4}}).toString());
        assertEquals("tensor([1., 2.], dtype=torch.float64)", Tensor.of(1.0, 2.0).toString());
        assertEquals("tensor([1, 2])", Tensor.ofLongs(1, 2).toString());
    }

    @Test
    void booleansAndScalars() {
        assertEquals("tensor([ True, False])", Tensor.tensor(new boolean[] {true, false}).toString());
        assertEquals("tensor(3.5000)", Tensor.scalar(3.5).toString());
    }

    @Test
    void threeDimensionsSeparateBlocksWithABlankLine() {
        assertEquals("tensor([[[0., 0.],\n         [0., 0.]],\n\n        [[0., 0.],\n         [0., 0.]]])", Tensor.zeros(2, 2, 2).toString());
    }

    @Test
    void wideRangesUseScientificNotation() {
        assertEquals("tensor([1.0000e-05, 1.0000e+00])", Tensor.of(1e-5f, 1f).toString());
    }

    @Test
    void emptyAndLargeTensors() {
        assertEquals("tensor([])", Tensor.zeros(0).toString());
        assertEquals("tensor([], size=(2, 0))", Tensor.zeros(2, 0).toString());
        String big = Tensor.arange(2000).toString();
        assertEquals("tensor([   0,    1,    2,  ..., 1997, 1998, 1999])", big);
    }
}
