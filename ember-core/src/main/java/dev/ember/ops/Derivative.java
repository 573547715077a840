package dev.ember.ops;

/**
 * How an op's inputs' gradients follow from its outputs' gradients: the op's entry in PyTorch's
 * {@code derivatives.yaml}, defined once in the op's own entry ({@link OpOverload.Builder#derivative}).
 * It is written against a {@link Grad}, whose ops go through an {@link OpEmitter}: the same formula
 * runs eagerly in {@code backward()} and builds the backward half of an AOT joint graph.
 *
 * <p>Returns one gradient per argument position (shorter arrays leave the rest without one):
 * a tensor value, a {@code List} of them for a {@code Tensor[]} argument, or {@code null} where the
 * argument gets none (a scalar, an integer tensor, or an input that {@link Grad#needs} says nobody
 * wants). A gradient may have the output's shape where its input was broadcast and the output's
 * dtype where its input was promoted: {@link Grad#conform} brings it to the input's, once, for every op.
 */
@FunctionalInterface
public interface Derivative {
    Object[] apply(Grad g);

    /**
     * For ops whose result is piecewise constant in their inputs (rounding, comparisons' float
     * inputs, floor_divide): every input's gradient is zero, as ATen's formulas say.
     */
    Derivative ZERO = g -> {
        Object[] out = new Object[g.argCount()];
        for (int i = 0; i < out.length; i++) if (g.isTensorArg(i) && g.needs(i)) out[i] = g.zeros(g.argMeta(i));
        return out;
    };
}
