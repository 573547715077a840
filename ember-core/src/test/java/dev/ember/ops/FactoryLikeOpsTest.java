package dev.ember.ops;

import dev.ember.Ember;
import dev.ember.Fn1;
import dev.ember.Options;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Torch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static dev.ember.testing.TorchAssert.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** rand_like, randint_like, scalar_tensor, empty_strided, new_empty_strided, empty_permuted, kaiser_window: against libtorch where it is deterministic. */
class FactoryLikeOpsTest {

    @BeforeAll
    static void register() throws java.io.IOException {
        dev.ember.testing.InductorTesting.registerWithFreshCache();
    }

    @Test
    void randLikeDrawsWhatRandOfTheShapeDraws() {
        Tensor x = Tensor.zeros(3, 4).to(DType.FLOAT64);
        Tensor.manualSeed(5);
        Tensor like = Tensor.randLike(x);
        Tensor.manualSeed(5);
        Tensor plain = Tensor.rand(3, 4).to(DType.FLOAT64);
        assertEquals(DType.FLOAT64, like.dtype());
        assertArrayEquals(new int[] {3, 4}, like.shape());
        Tensor.manualSeed(5);
        assertClose(Tensor.randLike(x.to(DType.FLOAT32)), plain.to(DType.FLOAT32), "the same draws");
        assertTrue(like.ge(0.0).all().item() != 0 && like.lt(1.0).all().item() != 0, "in [0, 1)");
        refused(() -> Tensor.randLike(Tensor.zeros(2).to(DType.INT64)), "torch.rand_like(a)", Tensor.zeros(2).to(DType.INT64));
    }

    @Test
    void randintLikeDrawsInItsRangeInTheTensorsDtype() {
        Tensor x = Tensor.zeros(50).to(DType.INT32);
        Tensor r = Tensor.randintLike(x, -3, 4);
        assertEquals(DType.INT32, r.dtype());
        assertTrue(r.ge(-3L).all().item() != 0 && r.lt(4L).all().item() != 0);
        Tensor f = Tensor.randintLike(Tensor.zeros(40), 6);
        assertEquals(DType.FLOAT32, f.dtype());
        assertClose(f, f.floor(), "whole numbers");
        refused(() -> Tensor.randintLike(x, 4, 4), "torch.randint_like(a, 4, 4)", x);
    }

    @Test
    void scalarTensorIsZeroDimensionalInTheDefaultDtype() {
        assertClose(Tensor.scalarTensor(3), Torch.call("torch.scalar_tensor(3)"), "int scalar, default dtype");
        assertClose(Tensor.scalarTensor(-2.5, DType.FLOAT64), Torch.call("torch.scalar_tensor(-2.5, dtype=torch.float64)"), "float64");
        assertClose(Tensor.scalarTensor(7, DType.INT64), Torch.call("torch.scalar_tensor(7, dtype=torch.int64)"), "int64");
    }

    @Test
    void stridedAndPermutedEmptiesHaveTheirLayoutAndAreZero() {
        Tensor s = Tensor.emptyStrided(new int[] {2, 3}, new int[] {1, 2}, DType.FLOAT32);
        assertArrayEquals(new int[] {1, 2}, s.strides());
        assertClose(s, Torch.call("torch.zeros([2, 3])"), "zeros");
        Tensor spread = Tensor.emptyStrided(new int[] {2, 2}, new int[] {5, 0}, DType.FLOAT64);
        assertArrayEquals(new int[] {5, 0}, spread.strides());
        Tensor n = Tensor.randn(2).newEmptyStrided(new int[] {3, 2}, new int[] {1, 3});
        assertArrayEquals(new int[] {1, 3}, n.strides());
        assertEquals(DType.FLOAT32, n.dtype());
        Tensor p = Tensor.emptyPermuted(new int[] {2, 3, 4}, new int[] {0, 2, 1}, DType.FLOAT32);
        assertArrayEquals(new int[] {12, 1, 3}, p.strides());
        assertArrayEquals(new int[] {2, 3, 4}, p.shape());
        refused(() -> Tensor.emptyPermuted(new int[] {2, 3}, new int[] {0}, DType.FLOAT32), "torch.empty_permuted([2, 3], [0])");
        refused(() -> Tensor.emptyPermuted(new int[] {2, 3}, new int[] {0, 2}, DType.FLOAT32), "torch.empty_permuted([2, 3], [0, 2])");
        refused(() -> Tensor.emptyPermuted(new int[] {2, 3}, new int[] {1, 1}, DType.FLOAT32), "torch.empty_permuted([2, 3], [1, 1])");
        refused(() -> Tensor.emptyStrided(new int[] {2, 3}, new int[] {1}, DType.FLOAT32), "torch.empty_strided([2, 3], [1])");
        refused(() -> Tensor.emptyStrided(new int[] {-1, 3}, new int[] {1, 1}, DType.FLOAT32), "torch.empty_strided([-1, 3], [1, 1])");
    }

    @Test
    void kaiserWindowMatchesLibtorch() {
        for (int n : new int[] {0, 1, 2, 5, 16}) {
            for (boolean periodic : new boolean[] {true, false}) {
                for (double beta : new double[] {12.0, 0.5, 5.0}) {
                    String call = "torch.kaiser_window(" + n + ", " + (periodic ? "True" : "False") + ", " + beta;
                    assertClose(Tensor.kaiserWindow(n, periodic, beta), Torch.call(call + ")"), call);
                    assertClose(Tensor.kaiserWindow(n, periodic, beta, DType.FLOAT64), Torch.call(call + ", dtype=torch.float64)"), call + " float64");
                }
            }
        }
        assertClose(WindowOps.KAISER_WINDOW.callTensor(9L, null), Torch.call("torch.kaiser_window(9)"), "defaults");
        refused(() -> WindowOps.KAISER_WINDOW.callTensor(-1L, null), "torch.kaiser_window(-1)");
    }

    static Tensor factoriesInAGraph(Tensor x) {
        return x.add(Tensor.scalarTensor(2.0)).mul(Tensor.kaiserWindow(5, true, 3.0)).add(Tensor.emptyPermuted(new int[] {4, 5}, new int[] {1, 0}, DType.FLOAT32));
    }

    @Test
    void compiledFactoriesAreEagers() {
        Tensor x = Tensor.randn(4, 5);
        Fn1<Tensor, Tensor> f = Ember.compile(FactoryLikeOpsTest::factoriesInAGraph, Options.backend("inductor").fullgraph(true));
        assertClose(f.apply(x), factoriesInAGraph(x), "inductor");
    }

    private static void refused(Runnable ember, String torch, Object... args) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, ember::run, torch);
        RuntimeException t = assertThrows(RuntimeException.class, () -> Torch.call(torch, args), torch);
        String aten = Torch.refusalText(t);
        assertTrue(aten.contains(e.getMessage().replaceFirst("^[a-z_]+: ", "")), "ember: " + e.getMessage() + "\nlibtorch: " + aten);
    }
}
