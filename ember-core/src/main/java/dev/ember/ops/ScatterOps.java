package dev.ember.ops;

import dev.ember.ops.eager.Copy;
import dev.ember.ops.eager.Pointwise;
import dev.ember.ops.eager.Scatter;
import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

import java.util.Arrays;

/**
 * Ops that write into a copy of self (or into self, in place) at positions an index tensor names:
 * scatter (a source tensor or a value; the last write to a position wins), scatter_add and
 * index_add (summing), with ATen's checks and messages. Every index is checked before anything is
 * written; an index out of range fails as in ATen ("index 5 is out of bounds for dimension 1 with
 * size 4"). An integer self takes a floating alpha truncated, as ATen does.
 */
public final class ScatterOps {
    private ScatterOps() {}

    /**
     * What a scatter-family op writes: a source tensor or a value (each also combined with what is
     * there, by a {@code reduce} argument of "add" or "multiply"), a sum of a source, or an index_add.
     */
    private enum Kind {
        SOURCE, VALUE, SOURCE_REDUCE, VALUE_REDUCE, ADD, INDEX_ADD;

        boolean hasValue() { return this == VALUE || this == VALUE_REDUCE; }
    }

    public static final OpOverload SCATTER_SRC = define("scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", Kind.SOURCE,
            g -> new Object[] {g.needs(0) ? unscattered(g) : null, null, null, g.needs(3) ? gathered(g) : null});
    public static final OpOverload SCATTER_VALUE = define("scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor", Kind.VALUE,
            g -> new Object[] {unscattered(g)});
    public static final OpOverload SCATTER_REDUCE = define("scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor", Kind.SOURCE_REDUCE,
            ScatterOps::reduceBackward);
    public static final OpOverload SCATTER_VALUE_REDUCE = define("scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str reduce) -> Tensor", Kind.VALUE_REDUCE,
            ScatterOps::reduceBackward);
    public static final OpOverload SCATTER_ADD = define("scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", Kind.ADD,
            g -> new Object[] {g.grad(), null, null, g.needs(3) ? gathered(g) : null});
    public static final OpOverload INDEX_ADD = define("index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor", Kind.INDEX_ADD,
            g -> new Object[] {g.grad(), null, null, g.needs(3) ? g.scaled(g.call(IndexingOps.INDEX_SELECT, g.grad(), g.value(1), g.arg(2)), g.value(4)) : null});
    public static final OpOverload SCATTER__SRC = define("scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)", Kind.SOURCE);
    public static final OpOverload SCATTER__VALUE = define("scatter_.value(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)", Kind.VALUE);
    public static final OpOverload SCATTER__REDUCE = define("scatter_.reduce(Tensor(a!) self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor(a!)", Kind.SOURCE_REDUCE);
    public static final OpOverload SCATTER__VALUE_REDUCE = define("scatter_.value_reduce(Tensor(a!) self, int dim, Tensor index, Scalar value, *, str reduce) -> Tensor(a!)", Kind.VALUE_REDUCE);
    public static final OpOverload SCATTER_ADD_ = define("scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)", Kind.ADD);
    public static final OpOverload INDEX_ADD_ = define("index_add_(Tensor(a!) self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor(a!)", Kind.INDEX_ADD);
    public static final OpOverload SCATTER_SRC_OUT = define("scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out) -> Tensor(a!)", Kind.SOURCE);
    public static final OpOverload SCATTER_VALUE_OUT = define("scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *, Tensor(a!) out) -> Tensor(a!)", Kind.VALUE);
    public static final OpOverload SCATTER_ADD_OUT = define("scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out) -> Tensor(a!)", Kind.ADD);
    public static final OpOverload INDEX_ADD_OUT = define("index_add.out(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", Kind.INDEX_ADD);

    private static OpOverload define(String schema, Kind kind) { return define(schema, kind, null); }

    /** One op in the schema's {@link Schema.Kind}: into a copy of self, into self, or into out (self copied there first). */
    private static OpOverload define(String schema, Kind kind, Derivative derivative) {
        Schema.Kind form = Schema.parse(schema).kind();
        return OpOverload.define(schema)
                .derivative(derivative)
                .tags(form == Schema.Kind.INPLACE ? new Tag[] {Tag.INPLACE} : new Tag[0])
                .meta(a -> {
                    Tensor self = a.tensor(0);
                    if (kind == Kind.INDEX_ADD) checkIndexAdd(a);
                    else checkScatter(a, kind);
                    return switch (form) {
                        case FUNCTIONAL -> TensorMeta.contiguous(self.dtype(), self.shape());
                        case INPLACE -> self.meta();
                        case OUT -> checkOut(a);
                    };
                })
                .kernel((a, m) -> {
                    Tensor self = a.tensor(0);
                    Tensor out = switch (form) {
                        case FUNCTIONAL -> Tensor.allocate((TensorMeta) m);
                        case INPLACE -> self;
                        case OUT -> a.tensor(a.op().schema().outIndex());
                    };
                    int dim = dim(a);
                    Tensor index = a.tensor(2);
                    // the writes are checked against out's positions before out receives self
                    Tensor source = kind.hasValue() ? Pointwise.scalar(a.scalar(3), self.dtype()) : separate(a.tensor(3), out);
                    Scatter.Positions p = kind == Kind.INDEX_ADD
                            ? Scatter.indexed(out, dim, checkedIndices(index, dim, self.dim() == 0 ? 1 : self.size(dim)), source)
                            : Scatter.scatter(name(a), out, dim, index, source);
                    if (out != self) Copy.copy(self, out);
                    switch (kind) {
                        case SOURCE, VALUE -> Scatter.assign(out, source, p);
                        case ADD -> Scatter.add(out, source, p, 1L);
                        case SOURCE_REDUCE, VALUE_REDUCE -> {
                            if (a.str(4).equals("add")) Scatter.add(out, source, p, 1L);
                            else Scatter.multiply(out, source, p);
                        }
                        case INDEX_ADD -> Scatter.add(out, source, p, a.scalar(4));
                    }
                    if (form != Schema.Kind.FUNCTIONAL) out.bumpVersion();
                    return out;
                })
                .register();
    }

    private static String name(Args a) { return a.op().schema().name(); }

    // ------------------------------------------------------------------ derivatives

    /** self's gradient where a scatter overwrote it: zero at the written positions ({@code grad.scatter(dim, index, 0)}). */
    private static Object unscattered(Grad g) { return g.call(ScatterOps.SCATTER_VALUE, g.grad(), g.value(1), g.arg(2), 0.0); }

    /** src's gradient: the output's gradient at the positions each src element went to ({@code grad.gather(dim, index)}). */
    private static Object gathered(Grad g) { return g.call(IndexingOps.GATHER, g.grad(), g.value(1), g.arg(2)); }

    /**
     * scatter with reduce="add" is scatter_add; with "multiply", self's gradient is grad times the
     * product of what was multiplied into each position (a scatter of the same factors into ones).
     * src's gradient under "multiply" (the product of the other factors) is not implemented, as in PyTorch.
     */
    private static Object[] reduceBackward(Grad g) {
        boolean value = !g.isTensorArg(3);
        String reduce = (String) g.value(4);
        if (reduce.equals("add")) return new Object[] {g.grad(), null, null, !value && g.needs(3) ? gathered(g) : null};
        if (!value && g.needs(3)) {
            throw new UnsupportedOperationException("the derivative for '" + g.op() + "' with reduce='multiply' is not implemented for src "
                    + "(as in PyTorch); detach src (src.detach()) or use reduce='add'");
        }
        if (!g.needs(0)) return new Object[0];
        TensorMeta self = g.argMeta(0);
        Object ones = g.call(CreationOps.ONES, self.shape(), self.dtype());
        Object factors = g.call(g.op(), ones, g.value(1), g.arg(2), value ? g.value(3) : g.arg(3), reduce);
        return new Object[] {g.mul(g.grad(), factors)};
    }

    private static int dim(Args a) { return Shapes.wrapDim(name(a), a.integer(1), a.tensor(0).dim()); }

    /** ATen's scatter_gather_dtype_check and scatter_shape_check, in that order. */
    private static void checkScatter(Args a, Kind kind) {
        String op = kind == Kind.ADD ? "scatter_add" : "scatter";
        if ((kind == Kind.SOURCE_REDUCE || kind == Kind.VALUE_REDUCE) && !a.str(4).equals("add") && !a.str(4).equals("multiply")) {
            throw new IllegalArgumentException(op + ": reduce argument must be either add or multiply.");
        }
        checkScatter(op, a.tensor(0), dim(a), a.tensor(2), kind.hasValue() ? null : a.tensor(3));
    }

    /** The dtype and shape checks of every scatter-like op ({@code src} null for a value), named {@code op} in the messages. */
    static void checkScatter(String op, Tensor self, int dim, Tensor index, Tensor src) {
        // ATen names scatter in these two messages for scatter_add too
        if (index.numel() != 0 && index.dtype() != DType.INT64) throw new IllegalArgumentException(op + ": scatter(): Expected dtype int64 for index");
        if (src != null && src.dtype() != self.dtype()) throw new IllegalArgumentException(op + ": scatter(): Expected self.dtype to be equal to src.dtype");
        if (index.numel() == 0) return;
        int rank = Math.max(self.dim(), 1);
        if (rank != Math.max(index.dim(), 1)) throw new IllegalArgumentException(op + ": Index tensor must have the same number of dimensions as self tensor");
        boolean wrong = false;
        for (int d = 0; d < rank && !wrong; d++) wrong = d != dim && size(index, d) > size(self, d);
        // as in ATen, a src of fewer dims fails on its missing size ("Dimension out of range")
        if (src != null) for (int d = 0; d < rank && !wrong; d++) wrong = size(index, d) > size(src, d);
        if (wrong) {
            throw new IllegalArgumentException(op + ": Expected index " + Shapes.format(index.shape()) + " to be no larger than self " + Shapes.format(self.shape())
                    + " apart from dimension " + dim + (src == null ? "" : " and to be no larger size than src " + Shapes.format(src.shape())));
        }
    }

    private static void checkIndexAdd(Args a) { checkIndexed("index_add_", a.tensor(0), dim(a), a.tensor(2), a.tensor(3)); }

    /** ATen's index_func_meta_impl checks (index_add, index_reduce), named {@code op} in the messages. */
    static void checkIndexed(String op, Tensor self, int dim, Tensor index, Tensor source) {
        if (index.dim() > 1) {
            throw new IndexOutOfBoundsException(op + "(): Index is supposed to be a vector, but got dim: " + index.dim() + " with type: "
                    + index.dtype().scalarTypeName() + " and size: " + Shapes.format(index.shape()));
        }
        if (index.dtype() != DType.INT64 && index.dtype() != DType.INT32) {
            throw new IllegalArgumentException(op + "(): Expected dtype int32/int64 for index but got: " + index.dtype().scalarTypeName());
        }
        if (self.dtype() != source.dtype()) {
            throw new IllegalArgumentException(op + "(): self (" + self.dtype().scalarTypeName() + ") and source ("
                    + source.dtype().scalarTypeName() + ") must have the same scalar type");
        }
        if (dim != 0 && dim >= source.dim()) {
            throw new IllegalArgumentException(op + "(): Indexing dim " + dim + " is out of bounds of the source tensor with dim " + source.dim());
        }
        int count = source.dim() == 0 ? 1 : source.size(dim);
        if (index.numel() != count) {
            throw new IllegalArgumentException(op + "(): Number of indices (" + index.numel() + ") should be equal to source.size(dim): (" + count + "), for dim: " + dim);
        }
        int[] selfSizes = self.shape(), sourceSizes = source.shape();
        if (self.dim() != 0 && source.dim() != 0) {
            selfSizes = without(selfSizes, dim);
            sourceSizes = without(sourceSizes, dim);
        }
        if (!Arrays.equals(selfSizes, sourceSizes)) {
            throw new IllegalArgumentException("source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = "
                    + Shapes.format(self.shape()) + " source.shape = " + Shapes.format(source.shape()));
        }
    }

    /** The out= form writes self's copy into out: out must have self's shape and dtype, and no element twice. */
    private static TensorMeta checkOut(Args a) {
        Tensor self = a.tensor(0), out = a.tensor(a.op().schema().outIndex());
        String op = name(a);
        if (out.dtype() != self.dtype()) {
            throw new IllegalArgumentException(op + ": Expected out tensor to have dtype " + out.dtype() + ", but got " + self.dtype() + " instead");
        }
        if (!Arrays.equals(out.shape(), self.shape())) {
            throw new IllegalArgumentException(op + ": the out tensor has shape " + Shapes.format(out.shape()) + " but the result has shape "
                    + Shapes.format(self.shape()) + "; Ember does not resize out (ATen would, with a warning): pass an out of shape " + Shapes.format(self.shape()));
        }
        return out.meta();
    }

    /** The index values, each within [0, size), before anything is written. */
    private static long[] checkedIndices(Tensor index, int dim, int size) { return checkedIndices("index_add_(): index ", index, dim, size); }

    /** The index values, each within [0, size), before anything is written; a bad one's message begins with {@code prefix}. */
    static long[] checkedIndices(String prefix, Tensor index, int dim, int size) {
        long[] idx = index.toLongArray();
        for (long v : idx) {
            if (v < 0 || v >= size) throw new IndexOutOfBoundsException(prefix + v + " is out of bounds for dimension " + dim + " with size " + size);
        }
        return idx;
    }

    /** The source itself, or a copy when it shares memory with what is written (self in place, or out). */
    static Tensor separate(Tensor source, Tensor written) {
        if (source.storage() != written.storage()) return source;
        Tensor c = Tensor.allocate(source.dtype(), source.shape());
        Copy.copy(source, c);
        return c;
    }

    static int size(Tensor t, int d) { return t.dim() == 0 ? 1 : t.size(d); }

    private static int[] without(int[] a, int d) {
        int[] out = new int[a.length - 1];
        for (int i = 0, j = 0; i < a.length; i++) if (i != d) out[j++] = a[i];
        return out;
    }
}
