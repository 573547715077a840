package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad reductions fail like ATen: each case checks that Ember throws the expected exception type
 * with ATen's words, and that libtorch, given the same call, says the same words.
 */
class ReductionErrorsTest {
    private static final OpOverload SUM = OpRegistry.get("aten.sum.dim_IntList");
    private static final OpOverload MEAN = OpRegistry.get("aten.mean.dim");
    private static final OpOverload SOFTMAX = OpRegistry.get("aten._softmax.default");

    private static void fails(Class<? extends RuntimeException> type, Executable ember, String words, String torchExpr, Object... args) {
        RuntimeException e = assertThrows(type, ember);
        assertTrue(e.getMessage().contains(words), "Ember said: " + e.getMessage() + "\nexpected: " + words);
        if (torchExpr != null) {
            Exception t = assertThrows(Exception.class, () -> Torch.call(torchExpr, args));
            assertTrue(t.getMessage().contains(words), "libtorch said: " + t.getMessage() + "\nexpected: " + words);
        }
    }

    private static final Tensor MATRIX = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
    private static final Tensor EMPTY_ROWS = Tensor.zeros(0, 3);

    @Test
    void duplicateAndOutOfRangeDims() {
        fails(IllegalArgumentException.class, () -> MATRIX.sum(new int[] {0, -2}, false),
                "dim 0 appears multiple times in the list of dims", "torch.sum(a, [0, -2])", MATRIX);
        fails(IllegalArgumentException.class, () -> MATRIX.mean(new int[] {1, 1}, true),
                "dim 1 appears multiple times in the list of dims", "torch.mean(a, [1, 1])", MATRIX);
        fails(IllegalArgumentException.class, () -> Tensor.scalar(1.0).amax(new int[] {0, -1}, false),
                "dim 0 appears multiple times in the list of dims", "torch.amax(a, [0, -1])", Tensor.scalar(1.0));
        fails(IndexOutOfBoundsException.class, () -> MATRIX.sum(2, false),
                "Dimension out of range (expected to be in range of [-2, 1], but got 2)", "torch.sum(a, [2])", MATRIX);
        fails(IndexOutOfBoundsException.class, () -> MATRIX.var(-3, false),
                "Dimension out of range (expected to be in range of [-2, 1], but got -3)", "torch.var(a, [-3])", MATRIX);
        fails(IndexOutOfBoundsException.class, () -> Tensor.scalar(1.0).sum(1, false),
                "Dimension out of range (expected to be in range of [-1, 0], but got 1)", "torch.sum(a, [1])", Tensor.scalar(1.0));
        fails(IndexOutOfBoundsException.class, () -> MATRIX.argmax(2, false),
                "Dimension out of range (expected to be in range of [-2, 1], but got 2)", "torch.argmax(a, 2)", MATRIX);
    }

    @Test
    void meanNeedsAFloatingDtype() {
        Tensor longs = Tensor.ofLongs(1, 2, 3);
        fails(IllegalArgumentException.class, longs::mean,
                "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long", "torch.mean(a)", longs);
        Tensor ints = Tensor.of(new int[] {1, 2}, 2);
        fails(IllegalArgumentException.class, () -> ints.mean(0, false),
                "Input dtype must be either a floating point or complex dtype. Got: Int", "torch.mean(a, [0])", ints);
        Tensor bools = Tensor.of(new boolean[] {true}, 1);
        fails(IllegalArgumentException.class, bools::mean, "Input dtype must be either a floating point or complex dtype. Got: Bool", "torch.mean(a)", bools);
        Tensor floats = Tensor.of(1f, 2f);
        fails(IllegalArgumentException.class, () -> MEAN.callTensor(floats, new int[] {0}, false, DType.INT64),
                "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: Long",
                "torch.mean(a, [0], dtype=torch.int64)", floats);
    }

    @Test
    void extremaOfNothingHaveNoValue() {
        fails(IndexOutOfBoundsException.class, () -> EMPTY_ROWS.amax(0, false),
                "amax(): Expected reduction dim 0 to have non-zero size.", "torch.amax(a, [0])", EMPTY_ROWS);
        fails(IndexOutOfBoundsException.class, () -> EMPTY_ROWS.amin(new int[] {1, -2}, true),
                "amin(): Expected reduction dim -2 to have non-zero size.", "torch.amin(a, [1, -2], True)", EMPTY_ROWS);
        fails(IllegalArgumentException.class, EMPTY_ROWS::amax,
                "amax(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.", "torch.amax(a)", EMPTY_ROWS);
        fails(IndexOutOfBoundsException.class, () -> EMPTY_ROWS.argmax(-2, false),
                "argmax(): Expected reduction dim 0 to have non-zero size.", "torch.argmax(a, -2)", EMPTY_ROWS);
        fails(IndexOutOfBoundsException.class, () -> EMPTY_ROWS.argmin(0, true),
                "argmin(): Expected reduction dim 0 to have non-zero size.", "torch.argmin(a, 0, True)", EMPTY_ROWS);
        fails(IndexOutOfBoundsException.class, EMPTY_ROWS::argmax,
                "argmax(): Expected reduction dim to be specified for input.numel() == 0.", "torch.argmax(a)", EMPTY_ROWS);
    }

    @Test
    void opsThatNeedFloatsOrNumbers() {
        Tensor bools = Tensor.of(new boolean[] {true, false}, 2);
        fails(IllegalArgumentException.class, () -> bools.argmax(), "\"argmax_cpu\" not implemented for 'Bool'", "torch.argmax(a)", bools);
        fails(IllegalArgumentException.class, () -> bools.argmin(0, false), "\"argmin_cpu\" not implemented for 'Bool'", "torch.argmin(a, 0)", bools);
        Tensor longs = Tensor.ofLongs(1, 2, 3);
        fails(IllegalArgumentException.class, longs::var, "std and var only support floating point and complex dtypes", "torch.var(a)", longs);
        fails(IllegalArgumentException.class, () -> longs.std(0, true), "std and var only support floating point and complex dtypes", "torch.std(a, [0], True)", longs);
        fails(IllegalArgumentException.class, () -> longs.softmax(0), "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'", "torch._softmax(a, 0, False)", longs);
        Tensor ints = Tensor.of(new int[] {1, 2, 3, 4}, 2, 2);
        fails(IllegalArgumentException.class, () -> ints.logSoftmax(0), "\"softmax_kernel_impl\" not implemented for 'Int'", "torch._log_softmax(a, 0, False)", ints);
        fails(IllegalArgumentException.class, () -> ints.logSoftmax(-1), "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Int'", "torch._log_softmax(a, -1, False)", ints);
        fails(IllegalArgumentException.class, () -> SOFTMAX.callTensor(MATRIX, 1L, true), "softmax with half to float conversion is not supported on CPU",
                "torch._softmax(a, 1, True)", MATRIX);
        fails(IndexOutOfBoundsException.class, () -> MATRIX.softmax(-3),
                "Dimension out of range (expected to be in range of [-2, 1], but got -3)", "torch.softmax(a, -3)", MATRIX);
    }

    @Test
    void sumTakesAnyDtypeAndEmptyReductionsHaveIdentities() {
        // the counterpart of the errors above: reductions with an identity accept empty inputs
        assertTrue(EMPTY_ROWS.sum().item() == 0);
        assertTrue(Double.isNaN(EMPTY_ROWS.mean().item()));
        assertTrue(Double.isNaN(EMPTY_ROWS.var(0, false).get(2)));
        assertTrue(SUM.callTensor(Tensor.zeros(DType.BOOL, 0, 2), new int[] {0}, false).dtype() == DType.INT64);
    }
}
