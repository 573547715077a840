package dev.ember.inductor.ir;

import dev.ember.tensor.DType;
import dev.ember.tensor.SymInt;

import java.util.function.Function;

/**
 * What a graph value is during lowering: memory with a strided layout ({@link Stored}), or a
 * pointwise computation not stored anywhere yet ({@link Computed}), which consumers inline. Sizes,
 * strides and offsets are {@link SymInt}s: constants in a static graph, polynomials over the size
 * symbols in a graph generic in some input sizes.
 */
public sealed interface Value {
    DType dtype();

    SymInt[] shape();

    /** The element at {@code index} (one affine index per dim) as an expression. */
    Expr load(Affine[] index);

    default SymInt numel() { return Sizes.numel(shape()); }

    /** A buffer seen through a strided view: element {@code i} at {@code offset + Σ strides[d]·i[d]}. */
    record Stored(Buffer buffer, DType dtype, SymInt[] shape, SymInt[] strides, SymInt offset) implements Value {
        @Override
        public Expr load(Affine[] index) {
            Affine a = Affine.constant(offset);
            for (int d = 0; d < index.length; d++) a = a.plus(index[d].times(strides[d]));
            return new Expr.Load(buffer, a, dtype);
        }

        /** Whether the elements lie in row-major order from offset 0, for every value of the symbols. */
        public boolean isContiguous() { return Sizes.is(offset, 0) && Sizes.isContiguous(shape, strides); }
    }

    /** A pointwise value: {@code fn} builds the expression of one element from its index. */
    record Computed(DType dtype, SymInt[] shape, Function<Affine[], Expr> fn) implements Value {
        @Override
        public Expr load(Affine[] index) { return fn.apply(index); }
    }
}
