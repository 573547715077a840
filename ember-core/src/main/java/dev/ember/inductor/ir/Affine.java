package dev.ember.inductor.ir;

import dev.ember.tensor.SymInt;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.IntFunction;

/**
 * An index into a buffer: {@code constant + Σ coeff·var}, vars being a kernel's loop variables
 * (numbered). Every view Ember folds (permute, expand, slice, select, …) keeps indices affine, so
 * loads need no division and the innermost loop walks memory at a constant stride. In a graph
 * generic in some input sizes, coefficients and the constant may depend on the size symbols (the
 * row stride of a tensor whose inner dim is {@code s0}); they are still invariant in every loop.
 */
public record Affine(SymInt constant, SortedMap<Integer, SymInt> terms) {

    public Affine {
        TreeMap<Integer, SymInt> t = new TreeMap<>();
        terms.forEach((v, c) -> { if (!Sizes.is(c, 0)) t.put(v, c); });
        terms = Collections.unmodifiableSortedMap(t);
    }

    public static Affine constant(long c) { return constant(SymInt.of(c)); }

    public static Affine constant(SymInt c) { return new Affine(c, new TreeMap<>()); }

    public static Affine var(int v) { return new Affine(Sizes.ZERO, new TreeMap<>(Map.of(v, Sizes.ONE))); }

    /** {@code Σ contiguousStride[d]·var(first+d)}: where element (vars…) of a contiguous {@code shape} is stored. */
    public static Affine contiguous(SymInt[] shape, int first) {
        Affine a = constant(0);
        SymInt stride = Sizes.ONE;
        for (int d = shape.length - 1; d >= 0; d--) {
            if (!Sizes.is(shape[d], 1)) a = a.plus(var(first + d).times(stride));
            stride = Sizes.times(stride, shape[d]);
        }
        return a;
    }

    public Affine plus(Affine o) {
        TreeMap<Integer, SymInt> t = new TreeMap<>(terms);
        o.terms.forEach((v, c) -> t.merge(v, c, Sizes::plus));
        return new Affine(Sizes.plus(constant, o.constant), t);
    }

    public Affine plus(SymInt c) { return new Affine(Sizes.plus(constant, c), terms); }

    public Affine times(long k) { return times(SymInt.of(k)); }

    public Affine times(SymInt k) {
        TreeMap<Integer, SymInt> t = new TreeMap<>();
        terms.forEach((v, c) -> t.put(v, Sizes.times(c, k)));
        return new Affine(Sizes.times(constant, k), t);
    }

    public SymInt coeff(int var) { return terms.getOrDefault(var, Sizes.ZERO); }

    /** Whether {@code var} steps this index by exactly one element. */
    public boolean unitStride(int var) { return Sizes.is(coeff(var), 1); }

    public boolean dependsOn(int var) { return terms.containsKey(var); }

    /** This index with {@code var} replaced by {@code by}. */
    public Affine substitute(int var, Affine by) {
        SymInt c = coeff(var);
        if (Sizes.is(c, 0)) return this;
        TreeMap<Integer, SymInt> t = new TreeMap<>(terms);
        t.remove(var);
        return new Affine(constant, t).plus(by.times(c));
    }

    /** {@code 4096*x0 + x1 + 3} ({@code 512*s0*x0 + x1}), vars named by {@code name}. */
    public String render(IntFunction<String> name) {
        StringBuilder sb = new StringBuilder();
        terms.forEach((v, c) -> {
            if (!sb.isEmpty()) sb.append(" + ");
            String k = c.isConstant() ? String.valueOf(c.constant()) : c.terms().size() > 1 ? "(" + c + ")" : c.toString();
            sb.append(Sizes.is(c, 1) ? "" : k + "*").append(name.apply(v));
        });
        if (!Sizes.is(constant, 0) || sb.isEmpty()) {
            if (sb.isEmpty()) sb.append(constant);
            else if (constant.isConstant()) sb.append(constant.constant() < 0 ? " - " : " + ").append(Math.abs(constant.constant()));
            else sb.append(" + ").append(constant);
        }
        return sb.toString();
    }

    @Override
    public String toString() { return render(v -> "v" + v); }
}
