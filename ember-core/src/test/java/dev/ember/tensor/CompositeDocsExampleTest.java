package dev.ember.tensor;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The example of docs/tensors.md, "Composites: ops defined by their decomposition", as written there. */
class CompositeDocsExampleTest {

    @Test
    void theExampleComputesWhatItsCommentsSay() {
        Tensor x = Tensor.randn(4, 6), a = Tensor.randn(4, 6), b = Tensor.randn(6), target = Tensor.zeros(4, 6);
        Tensor m = Tensor.randn(3, 3), u = Tensor.randn(3), v = Tensor.randn(3);
        Tensor y = x.addcmul(a, b, 0.5).lerp(target, 0.1);            // x + 0.5·a·b, then a tenth of the way to target
        Tensor lower = m.tril(-1), flipped = m.flip(0, 1), rolled = m.roll(2, -1);
        Tensor tiled = m.repeat(2, 1), spread = m.repeatInterleave(3, 0), d = m.diag(), tr = m.trace();
        Tensor moved = x.movedim(0, -1), swapped = x.swapaxes(0, 1), split = x.unflatten(1, 2, -1);  // views of x
        List<Tensor> rows = m.unbind(0);                                                    // views of m
        Tensor ok = x.gt(0.0).all(), hit = x.gt(0.0).any(1), n = x.countNonzero(1);          // bool, bool [4], int64 [4]
        Tensor lse = x.logsumexp(1), l2 = x.norm(), linf = x.norm(Double.POSITIVE_INFINITY, new int[] {1}, false);
        Tensor p = Tensor.einsum("ij,jk->ik", x, x.t()), o = u.outer(v), s = u.dot(v), mv = m.mv(v);

        Tensor want = x.add(a.mul(b).mul(0.5));
        want = want.add(target.sub(want).mul(0.1));
        assertArrayEquals(want.toDoubleArray(), y.toDoubleArray(), 1e-5);
        assertEquals(0.0, lower.get(0, 0));
        assertEquals(m.get(1, 0), lower.get(1, 0));
        assertEquals(m.get(0, 0), flipped.get(2, 2));
        assertEquals(m.get(0, 0), rolled.get(0, 2));
        assertArrayEquals(new int[] {6, 3}, tiled.shape());
        assertArrayEquals(new int[] {9, 3}, spread.shape());
        assertEquals(m.get(1, 1), d.get(1));
        assertEquals(m.get(0, 0) + m.get(1, 1) + m.get(2, 2), tr.item(), 1e-5);
        for (Tensor view : List.of(moved, swapped, split)) assertSame(x.storage(), view.storage());
        assertArrayEquals(new int[] {4, 2, 3}, split.shape());
        for (Tensor row : rows) assertSame(m.storage(), row.storage());
        assertEquals(List.of(DType.BOOL, DType.BOOL, DType.INT64), List.of(ok.dtype(), hit.dtype(), n.dtype()));
        assertArrayEquals(new int[] {4}, hit.shape());
        assertArrayEquals(new int[] {4}, n.shape());
        assertArrayEquals(x.exp().sum(1).log().toDoubleArray(), lse.toDoubleArray(), 1e-5);
        assertEquals(Math.sqrt(x.mul(x).sum().item()), l2.item(), 1e-5);
        assertArrayEquals(x.abs().amax(1).toDoubleArray(), linf.toDoubleArray(), 0);
        assertArrayEquals(x.matmul(x.t()).toDoubleArray(), p.toDoubleArray(), 1e-5);
        assertEquals(u.get(2) * v.get(1), o.get(2, 1), 1e-6);
        assertEquals(u.mul(v).sum().item(), s.item(), 1e-5);
        assertArrayEquals(m.matmul(v).toDoubleArray(), mv.toDoubleArray(), 1e-5);
    }
}
