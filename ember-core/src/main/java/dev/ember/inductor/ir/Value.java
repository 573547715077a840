package dev.ember.inductor.ir;

import dev.ember.tensor.DType;
import dev.ember.tensor.Shapes;

import java.util.function.Function;

/**
 * What a graph value is during lowering: memory with a strided layout ({@link Stored}), or a
 * pointwise computation not stored anywhere yet ({@link Computed}), which consumers inline.
 */
public sealed interface Value {
    DType dtype();

    int[] shape();

    /** The element at {@code index} (one affine index per dim) as an expression. */
    Expr load(Affine[] index);

    default int numel() { return Shapes.numel(shape()); }

    /** A buffer seen through a strided view: element {@code i} at {@code offset + Σ strides[d]·i[d]}. */
    record Stored(Buffer buffer, DType dtype, int[] shape, int[] strides, int offset) implements Value {
        @Override
        public Expr load(Affine[] index) {
            Affine a = Affine.constant(offset);
            for (int d = 0; d < index.length; d++) a = a.plus(index[d].times(strides[d]));
            return new Expr.Load(buffer, a, dtype);
        }

        public boolean isContiguous() { return offset == 0 && Shapes.isContiguous(shape, strides); }
    }

    /** A pointwise value: {@code fn} builds the expression of one element from its index. */
    record Computed(DType dtype, int[] shape, Function<Affine[], Expr> fn) implements Value {
        @Override
        public Expr load(Affine[] index) { return fn.apply(index); }
    }
}
