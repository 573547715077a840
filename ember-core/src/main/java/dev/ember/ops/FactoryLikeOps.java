package dev.ember.ops;

import dev.ember.tensor.DType;
import dev.ember.tensor.Defaults;
import dev.ember.tensor.Shapes;
import dev.ember.tensor.Storage;
import dev.ember.tensor.Tensor;
import dev.ember.tensor.TensorMeta;

/**
 * Factories that take their shape from a tensor or their layout from the caller: rand_like and
 * randint_like (draws from the generator as rand and randint of the tensor's shape draw, so one
 * seed gives the same numbers), scalar_tensor, and the layout-giving empty_strided,
 * new_empty_strided and empty_permuted (Ember's memory is zeroed, so "empty" reads as zeros).
 */
public final class FactoryLikeOps {
    private FactoryLikeOps() {}

    public static final OpOverload RAND_LIKE = ComposedOps.composed("rand_like(Tensor self, *, ScalarType? dtype=None) -> Tensor",
                    a -> {
                        DType dtype = dtypeOr(a.get(1), a.tensor(0).dtype());
                        if (!dtype.isFloatingPoint()) throw new IllegalArgumentException("\"check_uniform_bounds\" not implemented for '" + dtype.scalarTypeName() + "'");
                        return TensorMeta.contiguous(dtype, a.tensor(0).shape());
                    },
                    (e, a) -> e.call(CreationOps.RAND, e.meta(a[0]).shape(), null, dtypeOr(a[1], e.meta(a[0]).dtype())))
            .tags(Tag.NONDETERMINISTIC)
            .register();

    public static final OpOverload RANDINT_LIKE = ComposedOps.composed("randint_like(Tensor self, int high, *, ScalarType? dtype=None) -> Tensor",
                    a -> randintLike(a.tensor(0), 0, a.lng(1), a.get(2)),
                    (e, a) -> e.call(CreationOps.RANDINT, 0L, a[1], e.meta(a[0]).shape(), null, dtypeOr(a[2], e.meta(a[0]).dtype())))
            .tags(Tag.NONDETERMINISTIC)
            .register();

    public static final OpOverload RANDINT_LIKE_LOW = ComposedOps.composed("randint_like.low_dtype(Tensor self, int low, int high, *, ScalarType? dtype=None) -> Tensor",
                    a -> randintLike(a.tensor(0), a.lng(1), a.lng(2), a.get(3)),
                    (e, a) -> e.call(CreationOps.RANDINT, a[1], a[2], e.meta(a[0]).shape(), null, dtypeOr(a[3], e.meta(a[0]).dtype())))
            .tags(Tag.NONDETERMINISTIC)
            .register();

    /** A 0-d tensor holding {@code s}, in the default dtype unless one is given (whatever the number's type, as ATen's). */
    public static final OpOverload SCALAR_TENSOR = ComposedOps.define("scalar_tensor(Scalar s, *, ScalarType? dtype=None) -> Tensor",
            (e, a) -> e.call(CreationOps.FULL, new int[0], a[0], dtypeOr(a[1], Defaults.dtype())));

    public static final OpOverload EMPTY_STRIDED = OpOverload.define("empty_strided(int[] size, int[] stride, *, ScalarType? dtype=None) -> Tensor")
            .tags(Tag.FACTORY)
            .meta(a -> strided(a.ints(0), a.ints(1), dtypeOr(a.get(2), Defaults.dtype())))
            .kernel((a, m) -> allocate((TensorMeta) m))
            .register();

    public static final OpOverload NEW_EMPTY_STRIDED = OpOverload.define(
                    "new_empty_strided(Tensor self, int[] size, int[] stride, *, ScalarType? dtype=None) -> Tensor")
            .meta(a -> strided(a.ints(1), a.ints(2), dtypeOr(a.get(3), a.tensor(0).dtype())))
            .kernel((a, m) -> allocate((TensorMeta) m))
            .register();

    /** A tensor of {@code size} laid out in memory in the order {@code physical_layout} names (its last entry the innermost dim). */
    public static final OpOverload EMPTY_PERMUTED = OpOverload.define("empty_permuted(int[] size, int[] physical_layout, *, ScalarType? dtype=None) -> Tensor")
            .tags(Tag.FACTORY)
            .meta(a -> {
                int[] size = a.ints(0), layout = a.ints(1);
                int n = size.length;
                if (layout.length != n) {
                    throw new IllegalArgumentException("Number of dimensions in size does not match the length of the physical_layout; i.e. len(size) = " + n
                            + " is not equal to len(physical_layout) = " + layout.length);
                }
                boolean[] seen = new boolean[n];
                for (int i = 0; i < n; i++) {
                    if (layout[i] < 0 || layout[i] >= n) {
                        throw new IllegalArgumentException("Dimension out of range (expected to be between 0 and " + (n - 1) + ", but got " + layout[i] + " at index " + i
                                + ").  NB: negative dims not currently supported; file an issue if you want it.");
                    }
                    if (seen[layout[i]]) throw new IllegalArgumentException("Duplicate dim not allowed");
                    seen[layout[i]] = true;
                }
                checkSizes(size);
                int[] physical = new int[n], strides = new int[n];
                for (int i = 0; i < n; i++) physical[i] = size[layout[i]];
                int[] physicalStrides = Shapes.contiguousStrides(physical);
                for (int i = 0; i < n; i++) strides[layout[i]] = physicalStrides[i];
                return new TensorMeta(dtypeOr(a.get(2), Defaults.dtype()), size.clone(), strides, 0);
            })
            .kernel((a, m) -> allocate((TensorMeta) m))
            .register();

    private static TensorMeta randintLike(Tensor self, long low, long high, Object dtype) {
        if (low >= high) throw new IllegalArgumentException("random_ expects 'from' to be less than 'to', but got from=" + low + " >= to=" + high);
        return TensorMeta.contiguous(dtypeOr(dtype, self.dtype()), self.shape());
    }

    private static TensorMeta strided(int[] size, int[] stride, DType dtype) {
        if (size.length != stride.length) {
            throw new IllegalArgumentException("dimensionality of sizes (" + size.length + ") must match dimensionality of strides (" + stride.length + ")");
        }
        checkSizes(size);
        return new TensorMeta(dtype, size.clone(), stride.clone(), 0);
    }

    private static void checkSizes(int[] size) {
        for (int s : size) {
            if (s < 0) throw new IllegalArgumentException("Trying to create tensor with negative dimension " + s + ": " + Shapes.format(size));
        }
    }

    /** Zeros in a storage just long enough for the layout. */
    private static Tensor allocate(TensorMeta m) {
        long length = 0;
        if (m.numel() > 0) {
            length = 1;
            for (int i = 0; i < m.dim(); i++) length += (long) m.strides()[i] * (m.shape()[i] - 1);
        }
        return Tensor.wrap(new Storage(m.dtype(), Math.toIntExact(length)), m.shape(), m.strides(), 0);
    }

    private static DType dtypeOr(Object dtype, DType otherwise) { return dtype == null ? otherwise : (DType) dtype; }
}
