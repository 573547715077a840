package dev.ember.ops;

import dev.ember.ops.eager.AdvancedIndex;
import dev.ember.ops.eager.Copy;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Writes at the positions ATen's advanced indexing names: index_put ({@code x[i, :, j] = v}, the op
 * Python's setitem with tensor indices becomes) and put (positions in the flattened tensor). Indices
 * are optional per dim (null: the whole dim), int64/int32 (negative from the end) or bool masks;
 * values broadcast to the indexed shape. {@code accumulate} adds, a repeated position summing every
 * write; without it the last write to a position wins, as ATen's CPU kernels.
 */
public final class IndexPutOps {
    private IndexPutOps() {}

    public static final OpOverload INDEX_PUT = indexPut("index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor");

    public static final OpOverload INDEX_PUT_ = indexPut("index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)");

    private static OpOverload indexPut(String schema) {
        boolean inPlace = Schema.parse(schema).kind() == Schema.Kind.INPLACE;
        return OpOverload.define(schema)
                .tags(inPlace ? new Tag[] {Tag.INPLACE} : new Tag[0])
                .meta(a -> {
                    Tensor self = a.tensor(0), values = a.tensor(2);
                    List<Tensor> indices = indices(a, 1);
                    checkIndexPut(self, indices, values);
                    return inPlace ? self.meta() : TensorMeta.contiguous(self.dtype(), self.shape());
                })
                .kernel((a, m) -> {
                    Tensor self = a.tensor(0);
                    Tensor target = inPlace ? self : Tensor.allocateUninitialized((TensorMeta) m);
                    if (!inPlace) Copy.copy(self, target);
                    AdvancedIndex.Plan plan = AdvancedIndex.plan(target, indices(a, 1));
                    // values read into a tensor of their own first: they may share memory with self
                    Tensor values = Tensor.allocateUninitialized(TensorMeta.contiguous(self.dtype(), plan.shape()));
                    Copy.copy(a.tensor(2), values);
                    AdvancedIndex.write(target, plan, values, a.bool(3));
                    if (inPlace) target.bumpVersion();
                    return target;
                })
                .derivative(inPlace ? null : IndexPutOps::indexPutBackward)
                .register();
    }

    /**
     * derivatives.yaml's: self's gradient is grad where nothing was overwritten (all of it with
     * accumulate), values' the gradient at the indexed positions, summed down to values' shape.
     */
    private static Object[] indexPutBackward(Grad g) {
        Object indices = g.arg(1);
        boolean accumulate = (Boolean) g.value(3);
        Object self = null, values = null;
        if (g.needs(0)) {
            self = accumulate ? g.grad() : g.call(INDEX_PUT, g.grad(), indices, g.zeros(g.argMeta(2)), false);
        }
        if (g.needs(2)) values = g.call(IndexingOps.INDEX_TENSOR, g.grad(), indices);
        return new Object[] {self, null, values};
    }

    /** ATen's index_put_ checks, before anything is written. */
    static void checkIndexPut(Tensor self, List<Tensor> indices, Tensor values) {
        if (self.dtype() != values.dtype()) {
            throw new IllegalArgumentException("Index put requires the source and destination dtypes match, got " + self.dtype().scalarTypeName()
                    + " for the destination and " + values.dtype().scalarTypeName() + " for the source.");
        }
        AdvancedIndex.checkTypes(indices);
        AdvancedIndex.consumedDims(self.dim(), indices);
        for (Tensor t : indices) {
            if (t != null && t.dtype() == DType.BOOL && t.isFake()) return;   // the indexed shape depends on the mask's values
        }
        int[] indexed = AdvancedIndex.resultShape(self.shape(), indices);
        if (!broadcastsTo(values.shape(), indexed)) {
            throw new IllegalArgumentException("shape mismatch: value tensor of shape " + Shapes.format(values.shape())
                    + " cannot be broadcast to indexing result of shape " + Shapes.format(indexed));
        }
    }

    /** Whether a tensor of {@code from} expands to {@code to}. */
    static boolean broadcastsTo(int[] from, int[] to) {
        if (from.length > to.length) return false;
        for (int i = 0; i < from.length; i++) {
            int f = from[from.length - 1 - i], t = to[to.length - 1 - i];
            if (f != t && f != 1) return false;
        }
        return true;
    }

    /** A {@code Tensor?[]} argument: tensors and nulls. */
    @SuppressWarnings("unchecked")
    static List<Tensor> indices(Args a, int i) {
        Object v = a.get(i);
        if (v instanceof List<?> l) {
            for (Object x : l) {
                if (x != null && !(x instanceof Tensor)) {
                    throw new IllegalArgumentException(a.op().schema().name() + ": expected a list of optional tensors for '" + a.paramName(i) + "', got an element " + x);
                }
            }
            return (List<Tensor>) l;
        }
        if (v instanceof Tensor[] arr) return Arrays.asList(arr);
        throw new IllegalArgumentException(a.op().schema().name() + ": expected a list of optional tensors for '" + a.paramName(i) + "', got " + v);
    }

    // ------------------------------------------------------------------ put: positions in the flattened tensor

    /**
     * self with {@code source}'s elements written at {@code index}'s positions in the flattened
     * self (negative from the end), adding them with {@code accumulate}: index_put on the flattened
     * tensor, so its gradients are index_put's (derivatives.yaml's put formulas, the same thing).
     */
    public static final OpOverload PUT = ComposedOps.define("put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor",
            a -> checkPut(a.tensor(0), a.tensor(1), a.tensor(2)),
            (e, a) -> {
                int[] shape = e.meta(a[0]).shape();
                Object flat = e.call(ShapeOps.RESHAPE, a[0], new int[] {-1});
                List<Object> index = new ArrayList<>();
                index.add(e.call(ShapeOps.RESHAPE, a[1], new int[] {-1}));
                Object written = e.call(INDEX_PUT, flat, index, e.call(ShapeOps.RESHAPE, a[2], new int[] {-1}), a[3]);
                return e.call(ShapeOps.RESHAPE, written, shape);
            });

    public static final OpOverload PUT_ = OpOverload.define("put_(Tensor(a!) self, Tensor index, Tensor source, bool accumulate=False) -> Tensor(a!)")
            .tags(Tag.INPLACE)
            .meta(a -> {
                checkPut(a.tensor(0), a.tensor(1), a.tensor(2));
                return a.tensor(0).meta();
            })
            .kernel((a, m) -> {
                Tensor self = a.tensor(0);
                Copy.copy(ComposedOps.eagerly(PUT.decomposition(), a), self);
                self.bumpVersion();
                return self;
            })
            .register();

    /** ATen's put_ checks; the positions where the index holds data (eager calls). */
    private static void checkPut(Tensor self, Tensor index, Tensor source) {
        if (index.dtype() != DType.INT64) {
            throw new IndexOutOfBoundsException("put_(): Expected a long tensor for index, but got " + index.dtype().scalarTypeName());
        }
        if (self.dtype() != source.dtype()) {
            throw new IllegalArgumentException("put_(): self and source expected to have the same dtype, but got self.dtype = "
                    + self.dtype().scalarTypeName() + " and source.dtype = " + source.dtype().scalarTypeName());
        }
        if (source.numel() != index.numel()) {
            throw new IndexOutOfBoundsException("put_(): Expected source and index to have the same number of elements, but got source.numel() = "
                    + source.numel() + ", index.numel() = " + index.numel());
        }
        if (self.numel() == 0 && index.numel() != 0) throw new IndexOutOfBoundsException("put_(): Tried to put elements into an empty tensor");
        if (!index.isFake()) {
            long n = self.numel();
            for (long i : index.toLongArray()) {
                if (i < -n || i >= n) throw new IndexOutOfBoundsException("out of range: tried to access index " + i + " on a tensor of " + n + " elements.");
            }
        }
    }
}
