package dev.ember.ops;

import dev.ember.autograd.GradCheck;
import dev.ember.tensor.DType;
import dev.ember.tensor.Tensor;
import dev.ember.testing.Inputs;
import dev.ember.testing.Torch;
import dev.ember.testing.TorchAssert.Tolerance;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.ember.ops.CompositeShapeOpsTest.refused;
import static dev.ember.ops.CompositeShapeOpsTest.sample;
import static dev.ember.testing.TorchAssert.assertClose;

/**
 * outer, dot, mv, addmv, baddbmm and einsum against libtorch (float references in float64, since
 * libtorch's BLAS sums in another order), integer dtypes where ATen takes them, non-contiguous
 * operands; gradients against finite differences; ATen's errors, and einsum's for a bad equation.
 */
class CompositeLinalgOpsTest {
    private static final Tolerance SUMMED = Tolerance.of(1e-5, 1e-5);

    /** A float64 reference computed from the operands in float64, for a float32 result. */
    private static ai.djl.ndarray.NDArray reference(String expr, DType d, Object... args) {
        Object[] doubled = new Object[args.length];
        for (int i = 0; i < args.length; i++) doubled[i] = args[i] instanceof Tensor t && d == DType.FLOAT32 ? t.to(DType.FLOAT64) : args[i];
        ai.djl.ndarray.NDArray r = Torch.call(expr, doubled);
        return d == DType.FLOAT32 ? r.toType(ai.djl.ndarray.types.DataType.FLOAT32, false) : r;
    }

    @Test
    void vectorAndMatrixProductsMatchLibtorch() {
        Random rng = new Random(31);
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64, DType.INT32)) {
            Tensor u = sample(rng, d, 4), v = sample(rng, d, 4), w = sample(rng, d, 3), m = sample(rng, d, 3, 4), self = sample(rng, d, 3);
            for (Inputs.Layout in : Inputs.layouts(m)) {
                String what = d + " " + in;
                Tensor mat = in.tensor(), vec = Inputs.nonContiguous(v);
                assertClose(u.outer(w), reference("torch.outer(a, b)", d, u, w), "outer " + what, SUMMED);
                assertClose(vec.dot(u), reference("torch.dot(a, b)", d, vec, u), "dot " + what, SUMMED);
                assertClose(mat.mv(vec), reference("torch.mv(a, b)", d, mat, vec), "mv " + what, SUMMED);
                assertClose(self.addmv(mat, vec), reference("torch.addmv(a, b, c)", d, self, mat, vec), "addmv " + what, SUMMED);
                if (d.isFloatingPoint()) {
                    assertClose(self.addmv(mat, vec, 0.5, -2.0), reference("torch.addmv(a, b, c, beta=0.5, alpha=-2.0)", d, self, mat, vec), "addmv scaled " + what, SUMMED);
                    Tensor one = sample(rng, d, 1);
                    assertClose(one.addmv(mat, vec, 2.0, 1.0), reference("torch.addmv(a, b, c, beta=2.0)", d, one, mat, vec), "addmv broadcast self " + what, SUMMED);
                }
            }
            Tensor b1 = sample(rng, d, 2, 3, 4), b2 = sample(rng, d, 2, 4, 5);
            for (int[] s : List.of(new int[] {2, 3, 5}, new int[] {3, 1}, new int[] {5}, new int[] {})) {
                Tensor bias = sample(rng, d, s);
                assertClose(bias.baddbmm(b1, Inputs.nonContiguous(b2)), reference("torch.baddbmm(a, b, c)", d, bias, b1, Inputs.nonContiguous(b2)), "baddbmm " + d, SUMMED);
                if (d.isFloatingPoint()) {
                    assertClose(bias.baddbmm(b1, b2, -1.0, 0.5), reference("torch.baddbmm(a, b, c, beta=-1.0, alpha=0.5)", d, bias, b1, b2), "baddbmm scaled " + d, SUMMED);
                }
            }
        }
        // outer promotes, as mul does
        Tensor f = Tensor.randn(3), i = Tensor.ofLongs(1, 2);
        assertClose(f.outer(i), Torch.call("torch.outer(a, b)", f, i), "outer float by long");
        // beta 0: self is not read, its NaN does not propagate
        Tensor nan = Tensor.full(Double.NaN, 3), m = Tensor.randn(3, 4), v = Tensor.randn(4);
        assertClose(nan.addmv(m, v, 0.0, 1.0), reference("torch.addmv(a, b, c, beta=0.0)", DType.FLOAT32, nan, m, v), "addmv beta 0", SUMMED);
        Tensor nans = Tensor.full(Double.NaN, 2, 3, 5);
        Tensor b1 = Tensor.randn(2, 3, 4), b2 = Tensor.randn(2, 4, 5);
        assertClose(nans.baddbmm(b1, b2, 0.0, 1.0), reference("torch.baddbmm(a, b, c, beta=0.0)", DType.FLOAT32, nans, b1, b2), "baddbmm beta 0", SUMMED);
    }

    @Test
    void einsumMatchesLibtorch() {
        Random rng = new Random(32);
        record Case(String equation, int[]... shapes) {}
        List<Case> cases = List.of(
                new Case("ij,jk->ik", new int[] {3, 4}, new int[] {4, 5}),
                new Case("ij,jk", new int[] {3, 4}, new int[] {4, 5}),
                new Case("bij,bjk->bik", new int[] {2, 3, 4}, new int[] {2, 4, 5}),
                new Case("ij->ji", new int[] {3, 4}),
                new Case("ij->", new int[] {3, 4}),
                new Case("ijk->j", new int[] {2, 3, 4}),
                new Case("i,i->", new int[] {5}, new int[] {5}),
                new Case("i,j->ij", new int[] {3}, new int[] {4}),
                new Case("i,j", new int[] {3}, new int[] {4}),
                new Case("ba,ca->bc", new int[] {3, 4}, new int[] {5, 4}),
                new Case("bhqd,bhkd->bhqk", new int[] {2, 3, 4, 5}, new int[] {2, 3, 6, 5}),
                new Case("ij,jk,kl->il", new int[] {2, 3}, new int[] {3, 4}, new int[] {4, 5}),
                new Case("abc,cd,a->bd", new int[] {2, 3, 4}, new int[] {4, 5}, new int[] {2}),
                new Case("ij,ij->ij", new int[] {3, 4}, new int[] {3, 4}),
                new Case("ij,ik->", new int[] {3, 4}, new int[] {3, 5}),
                new Case("ij,kj->jki", new int[] {3, 4}, new int[] {5, 4}),
                new Case("ij,j->i", new int[] {3, 1}, new int[] {4}),
                new Case("Ab,bC->CA", new int[] {3, 4}, new int[] {4, 2}),
                new Case("...ij,...jk", new int[] {2, 1, 3, 4}, new int[] {5, 4, 2}),
                new Case("...ij,...jk->...ik", new int[] {3, 4}, new int[] {2, 4, 5}),
                new Case("i...->i", new int[] {2, 3, 4}),
                new Case("...i->...", new int[] {2, 3, 4}),
                new Case("b...,b...->b", new int[] {2, 3, 4}, new int[] {2, 3, 4}),
                new Case(" i j , j k -> i k ", new int[] {3, 4}, new int[] {4, 5}),
                new Case("ij,jk->ik", new int[] {0, 4}, new int[] {4, 5}),
                new Case("ij,jk->ik", new int[] {3, 0}, new int[] {0, 5}));
        for (DType d : List.of(DType.FLOAT32, DType.FLOAT64, DType.INT64)) {
            for (Case c : cases) {
                List<Tensor> ops = new ArrayList<>();
                for (int[] s : c.shapes()) ops.add(Inputs.nonContiguous(sample(rng, d, s)));
                ai.djl.ndarray.NDArray want = d == DType.FLOAT32
                        ? Torch.call("torch.einsum(a, b).float()", c.equation(), ops.stream().map(t -> t.to(DType.FLOAT64)).toList())
                        : Torch.call("torch.einsum(a, b)", c.equation(), ops);
                assertClose(Tensor.einsum(c.equation(), ops.toArray(Tensor[]::new)), want, "einsum '" + c.equation() + "' " + d, SUMMED);
            }
        }
    }

    @Test
    void gradientsMatchFiniteDifferences() {
        Tensor a = Tensor.randn(3, 4).to(DType.FLOAT64).requiresGrad(true);
        Tensor v = Tensor.randn(4).to(DType.FLOAT64).requiresGrad(true);
        Tensor u = Tensor.randn(3).to(DType.FLOAT64).requiresGrad(true);
        Tensor b1 = Tensor.randn(2, 3, 4).to(DType.FLOAT64).requiresGrad(true), b2 = Tensor.randn(2, 4, 5).to(DType.FLOAT64).requiresGrad(true);
        Tensor bias = Tensor.randn(3, 1).to(DType.FLOAT64).requiresGrad(true);
        GradCheck.check(in -> in.get(0).outer(in.get(1)), u, v);
        GradCheck.check(in -> in.get(0).dot(in.get(1)), v, v.detach().mul(2.0).requiresGrad(true));
        GradCheck.check(in -> in.get(0).mv(in.get(1)), a, v);
        GradCheck.check(in -> in.get(0).addmv(in.get(1), in.get(2), 0.5, 2.0), u, a, v);
        GradCheck.check(in -> in.get(0).baddbmm(in.get(1), in.get(2), 0.5, -1.0), bias, b1, b2);
        GradCheck.check(in -> Tensor.einsum("bij,bjk->bik", in.get(0), in.get(1)), b1, b2);
        GradCheck.check(in -> Tensor.einsum("bij,i,bjk->kj", in.get(0), in.get(1), in.get(2)), b1, u, b2);
        GradCheck.check(in -> Tensor.einsum("...j->j...", in.get(0)), b1);
    }

    @Test
    void badInputIsRefusedNamingTheOp() {
        Tensor m = Tensor.randn(3, 4), v = Tensor.randn(4), w = Tensor.randn(3);
        refused(IllegalArgumentException.class, "outer", () -> m.outer(v));
        refused(IllegalArgumentException.class, "dot", () -> m.dot(v));
        refused(IllegalArgumentException.class, "dot", () -> v.dot(w));
        refused(IllegalArgumentException.class, "dot", () -> v.dot(v.to(DType.FLOAT64)));
        refused(IllegalArgumentException.class, "dot", () -> Tensor.zeros(DType.BOOL, 2).dot(Tensor.zeros(DType.BOOL, 2)));
        refused(IllegalArgumentException.class, "mv", () -> m.mv(w));
        refused(IllegalArgumentException.class, "mv", () -> v.mv(v));
        refused(IllegalArgumentException.class, "mv", () -> m.mv(v.to(DType.FLOAT64)));
        refused(IllegalArgumentException.class, "addmv", () -> v.addmv(m, v));
        refused(IllegalArgumentException.class, "baddbmm", () -> Tensor.randn(4).baddbmm(Tensor.randn(2, 3, 4), Tensor.randn(2, 4, 2)));
        refused(IllegalArgumentException.class, "baddbmm", () -> Tensor.randn(1).baddbmm(Tensor.randn(2, 3, 4), Tensor.randn(2, 5, 2)));
        refused(IllegalArgumentException.class, "baddbmm", () -> Tensor.randn(1).baddbmm(Tensor.randn(3, 4), Tensor.randn(2, 4, 2)));
        for (String bad : List.of("ii->i", "ij,jk", "ij->ik", "i1->i", "ijk->i", "ij->jj", "i..j->i", "......->")) {
            refused(IllegalArgumentException.class, "einsum", () -> Tensor.einsum(bad, m));
        }
        refused(IllegalArgumentException.class, "einsum", () -> Tensor.einsum("ij,jk->ik", m, Tensor.randn(3, 2)));
        refused(IllegalArgumentException.class, "einsum", () -> Tensor.einsum("ij,jk->ik", m, Tensor.randn(4, 2).to(DType.FLOAT64)));
        refused(IllegalArgumentException.class, "einsum", () -> Tensor.einsum("i"));
        refused(IllegalArgumentException.class, "einsum", () -> Tensor.einsum("ij", m, m));
        IllegalArgumentException diagonal = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Tensor.einsum("ii->i", Tensor.randn(3, 3)));
        org.junit.jupiter.api.Assertions.assertTrue(diagonal.getMessage().contains("'ii->i'"), diagonal.getMessage());
    }
}
