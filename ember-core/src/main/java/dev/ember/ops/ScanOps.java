package dev.ember.ops;

import dev.ember.ops.eager.Copy;
import dev.ember.ops.eager.Scan;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;

/**
 * cumsum and its out= form, with ATen's dtype rule: the input is converted to the result dtype
 * first, which is {@code dtype} when given, else int64 for integer and bool inputs and the input's
 * own dtype for floating ones — and, for the out= form, out's dtype when no dtype is given.
 */
public final class ScanOps {
    private ScanOps() {}

    public static final OpOverload CUMSUM = OpOverload.define("cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor")
            .meta(a -> {
                Tensor self = a.tensor(0);
                Shapes.wrapDim("cumsum", a.integer(1), self.dim());
                DType d = a.optDtype(2) != null ? a.optDtype(2) : self.dtype().isFloatingPoint() ? self.dtype() : DType.INT64;
                return TensorMeta.contiguous(d, self.shape());
            })
            .kernel((a, m) -> cumsum(a.tensor(0), a.integer(1), Tensor.allocate((TensorMeta) m)))
            .derivative(ScanOps::cumsumBackward)
            .register();

    public static final OpOverload CUMSUM_OUT = OpOverload.define("cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)")
            .meta(a -> {
                Tensor self = a.tensor(0), out = a.tensor(3);
                Shapes.wrapDim("cumsum", a.integer(1), self.dim());
                DType d = a.optDtype(2);
                if (d != null && d != out.dtype()) {
                    throw new IllegalArgumentException("cumsum: Expected out tensor to have dtype " + PointwiseOps.typeMetaName(d) + ", but got "
                            + PointwiseOps.typeMetaName(out.dtype()) + " instead");
                }
                if (!Arrays.equals(out.shape(), self.shape())) {
                    throw new IllegalArgumentException("cumsum: the out tensor has shape " + Shapes.format(out.shape()) + " but the result has shape "
                            + Shapes.format(self.shape()) + "; Ember does not resize out (ATen would, with a warning): pass an out of shape " + Shapes.format(self.shape()));
                }
                return out.meta();
            })
            .kernel((a, m) -> {
                Tensor out = a.tensor(3);
                if (out.isContiguous() && out.storageOffset() == 0 && out.storage() != a.tensor(0).storage()) cumsum(a.tensor(0), a.integer(1), out);
                else Copy.copy(cumsum(a.tensor(0), a.integer(1), Tensor.allocate(out.dtype(), out.shape())), out);
                out.storage().bumpVersion();
                return out;
            })
            .register();

    /** Sums {@code self}, converted to {@code out}'s dtype, into {@code out} (contiguous, offset 0). */
    private static Tensor cumsum(Tensor self, int dim, Tensor out) {
        int w = Shapes.wrapDim("cumsum", dim, self.dim());
        Tensor x = self;
        if (self.dtype() != out.dtype() || !self.isContiguous()) {
            x = Tensor.allocate(out.dtype(), self.shape());
            Copy.copy(self, x);
        }
        Scan.cumsum(x, out, w);
        return out;
    }

    /** x_i feeds every y_j with j ≥ i: the reversed cumulative sum, as total − cumsum + grad. */
    private static Object[] cumsumBackward(Grad g) {
        TensorMeta x = g.argMeta(0);
        if (x.dim() == 0) return new Object[] {g.grad()};
        int d = Shapes.wrapDim("cumsum", g.intValue(1), x.dim());
        Object grad = g.grad();
        Object total = g.sumDims(grad, new int[] {d}, true);
        return new Object[] {g.add(g.sub(total, g.call(CUMSUM, grad, d)), grad)};
    }
}
