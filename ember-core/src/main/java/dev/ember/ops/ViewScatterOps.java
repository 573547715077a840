package dev.ember.ops;

import dev.ember.ops.eager.Copy;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

/**
 * The functional inverses of the views select, slice and diagonal (ATen's select_scatter,
 * slice_scatter, diagonal_scatter): a copy of self with src written where the view would look.
 * src must have the view's shape (ATen's words when not) and is converted to self's dtype as
 * {@code copy_} converts. Gradients are derivatives.yaml's: self's is grad with the view zeroed,
 * src's the view of grad.
 */
public final class ViewScatterOps {
    private ViewScatterOps() {}

    /** Where a view of a tensor of {@code meta} looks, as a view of that metadata (shape, strides, offset). */
    @FunctionalInterface
    private interface View { TensorMeta of(TensorMeta self, Args a); }

    public static final OpOverload SELECT_SCATTER = define("select_scatter(Tensor self, Tensor src, int dim, int index) -> Tensor",
            (self, a) -> viewMeta(ShapeOps.SELECT, self, a.get(2), a.get(3)),
            g -> new Object[] {
                    g.needs(0) ? g.call(g.op(), g.grad(), g.zeros(g.argMeta(1)), g.value(2), g.value(3)) : null,
                    g.needs(1) ? g.call(ShapeOps.SELECT, g.grad(), g.value(2), g.value(3)) : null});

    public static final OpOverload SLICE_SCATTER = define("slice_scatter(Tensor self, Tensor src, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor",
            (self, a) -> viewMeta(ShapeOps.SLICE, self, a.get(2), a.get(3), a.get(4), a.get(5)),
            g -> new Object[] {
                    g.needs(0) ? g.call(g.op(), g.grad(), g.zeros(g.argMeta(1)), g.value(2), g.value(3), g.value(4), g.value(5)) : null,
                    g.needs(1) ? g.call(ShapeOps.SLICE, g.grad(), g.value(2), g.value(3), g.value(4), g.value(5)) : null});

    public static final OpOverload DIAGONAL_SCATTER = define("diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) -> Tensor",
            (self, a) -> diagonal(self, a.integer(2), a.integer(3), a.integer(4)),
            g -> new Object[] {
                    g.needs(0) ? g.call(g.op(), g.grad(), g.zeros(g.argMeta(1)), g.value(2), g.value(3), g.value(4)) : null,
                    g.needs(1) ? g.call(ShapeOps.DIAGONAL, g.grad(), g.value(2), g.value(3), g.value(4)) : null});

    private static OpOverload define(String schema, View view, Derivative derivative) {
        return OpOverload.define(schema)
                .meta(a -> {
                    Tensor self = a.tensor(0), src = a.tensor(1);
                    TensorMeta v = view.of(self.meta(), a);
                    if (!java.util.Arrays.equals(v.shape(), src.shape())) {
                        throw new IllegalArgumentException(a.op().schema().name() + ": expected src to have a size equal to the slice of self. src size = "
                                + Shapes.format(src.shape()) + ", slice size = " + Shapes.format(v.shape()));
                    }
                    return TensorMeta.contiguous(self.dtype(), self.shape());
                })
                .kernel((a, m) -> {
                    Tensor out = Tensor.allocateUninitialized((TensorMeta) m);
                    Copy.copy(a.tensor(0), out);
                    TensorMeta v = view.of(out.meta(), a);
                    Copy.copy(a.tensor(1), Tensor.wrap(out.storage(), v.shape(), v.strides(), v.storageOffset()));
                    return out;
                })
                .derivative(derivative)
                .register();
    }

    /** The view op's own metadata (its checks and messages) for a tensor of {@code self}'s layout. */
    private static TensorMeta viewMeta(OpOverload view, TensorMeta self, Object... args) {
        Object[] all = new Object[args.length + 1];
        all[0] = new dev.ember.tensor.FakeTensor(self);
        System.arraycopy(args, 0, all, 1, args.length);
        return (TensorMeta) view.inferMeta(view.bind(all));
    }

    /** ATen's diagonal as a view: dim1 and dim2 removed, the diagonal's length appended with stride their sum. */
    static TensorMeta diagonal(TensorMeta self, int offset, int dim1, int dim2) {
        int n = self.dim();
        int d1 = Shapes.wrapDim("diagonal", dim1, n), d2 = Shapes.wrapDim("diagonal", dim2, n);
        if (d1 == d2) throw new IllegalArgumentException("diagonal dimensions cannot be identical " + dim1 + ", " + dim2);
        int[] shape = self.shape(), strides = self.strides();
        int length, start = self.storageOffset();
        if (offset >= 0) {
            length = Math.max(Math.min(shape[d1], shape[d2] - offset), 0);
            if (length > 0) start += offset * strides[d2];
        } else {
            length = Math.max(Math.min(shape[d1] + offset, shape[d2]), 0);
            if (length > 0) start -= offset * strides[d1];
        }
        int[] outShape = new int[n - 1], outStrides = new int[n - 1];
        for (int i = 0, j = 0; i < n; i++) {
            if (i == d1 || i == d2) continue;
            outShape[j] = shape[i];
            outStrides[j++] = strides[i];
        }
        outShape[n - 2] = length;
        outStrides[n - 2] = strides[d1] + strides[d2];
        return new TensorMeta(self.dtype(), outShape, outStrides, start);
    }
}
