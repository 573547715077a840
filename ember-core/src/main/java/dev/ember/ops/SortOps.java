package dev.ember.ops;

import dev.ember.ops.eager.Sort;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.List;

/**
 * sort, argsort and topk along one dimension: values and their int64 positions, NaN sorting above
 * every number as in ATen. Ember's sort is always stable, so {@code stable=True} and the default
 * agree, and topk's ties come out in their original order (ATen leaves that order unspecified).
 */
public final class SortOps {
    private SortOps() {}

    public static final OpOverload SORT = OpOverload.define("sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)")
            .meta(a -> sortedMeta(a.tensor(0), dim(a, 1), sliceSize(a.tensor(0), dim(a, 1))))
            .kernel((a, m) -> sorted(a.tensor(0), dim(a, 1), a.bool(2), sliceSize(a.tensor(0), dim(a, 1))))
            .derivative(g -> selectedBackward(g, 1))
            .register();

    public static final OpOverload SORT_STABLE = OpOverload.define(
                    "sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)")
            .meta(a -> sortedMeta(a.tensor(0), dim(a, 2), sliceSize(a.tensor(0), dim(a, 2))))
            .kernel((a, m) -> sorted(a.tensor(0), dim(a, 2), a.bool(3), sliceSize(a.tensor(0), dim(a, 2))))
            .derivative(g -> selectedBackward(g, 2))
            .register();

    public static final OpOverload ARGSORT = OpOverload.define("argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor")
            .meta(a -> sortedMeta(a.tensor(0), dim(a, 1), sliceSize(a.tensor(0), dim(a, 1))).get(1))
            .kernel((a, m) -> positions(a.tensor(0), dim(a, 1), a.bool(2), sliceSize(a.tensor(0), dim(a, 1))))
            .register();

    public static final OpOverload TOPK = OpOverload.define(
                    "topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)")
            .meta(a -> {
                Tensor self = a.tensor(0);
                int dim = dim(a, 2);
                long k = a.lng(1);
                if (k < 0 || k > sliceSize(self, dim)) throw new IllegalArgumentException("topk: selected index k out of range");
                if (self.dtype() == DType.BOOL) throw new IllegalArgumentException("topk: \"topk_cpu\" not implemented for 'Bool'");
                return sortedMeta(self, dim, (int) k);
            })
            .kernel((a, m) -> sorted(a.tensor(0), dim(a, 2), a.bool(3), a.integer(1)))
            .derivative(g -> selectedBackward(g, 2))
            .register();

    /**
     * sort's and topk's values came from self at the positions output 1 names: their gradient goes
     * back there, zero elsewhere (ATen's value_selecting_reduction_backward).
     */
    private static Object[] selectedBackward(Grad g, int dimArg) {
        TensorMeta self = g.argMeta(0);
        if (self.dim() == 0) return new Object[] {g.grad(0)};
        return new Object[] {g.call(ScatterOps.SCATTER_SRC, g.zeros(self), g.value(dimArg), g.result(1), g.grad(0))};
    }

    private static int dim(Args a, int i) { return Shapes.wrapDim(a.op().schema().name(), a.integer(i), a.tensor(0).dim()); }

    private static int sliceSize(Tensor t, int dim) { return t.dim() == 0 ? 1 : t.size(dim); }

    private static List<TensorMeta> sortedMeta(Tensor self, int dim, int k) {
        int[] shape = self.shape();
        if (shape.length > 0) shape[dim] = k;
        return List.of(TensorMeta.contiguous(self.dtype(), shape), TensorMeta.contiguous(DType.INT64, shape));
    }

    /** The first {@code k} of each sorted slice: its values (gathered from self) and their positions. */
    private static List<Tensor> sorted(Tensor self, int dim, boolean descending, int k) {
        Tensor indices = positions(self, dim, descending, k);
        return List.of(self.gather(dim, indices), indices);
    }

    private static Tensor positions(Tensor self, int dim, boolean descending, int k) {
        int[] shape = self.shape();
        if (shape.length > 0) shape[dim] = k;
        return Tensor.of(Sort.order(self, dim, descending, k), shape);
    }
}
