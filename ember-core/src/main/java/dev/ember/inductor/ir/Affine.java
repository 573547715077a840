package dev.ember.inductor.ir;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.IntFunction;

/**
 * An index into a buffer: {@code constant + Σ coeff·var}, vars being a kernel's loop variables
 * (numbered). Every view Ember folds (permute, expand, slice, select, …) keeps indices affine, so
 * loads need no division and the innermost loop walks memory at a constant stride.
 */
public record Affine(long constant, SortedMap<Integer, Long> terms) {

    public Affine {
        TreeMap<Integer, Long> t = new TreeMap<>();
        terms.forEach((v, c) -> { if (c != 0) t.put(v, c); });
        terms = Collections.unmodifiableSortedMap(t);
    }

    public static Affine constant(long c) { return new Affine(c, new TreeMap<>()); }

    public static Affine var(int v) { return new Affine(0, new TreeMap<>(Map.of(v, 1L))); }

    /** {@code Σ contiguousStride[d]·var(first+d)}: where element (vars…) of a contiguous {@code shape} is stored. */
    public static Affine contiguous(int[] shape, int first) {
        Affine a = constant(0);
        long stride = 1;
        for (int d = shape.length - 1; d >= 0; d--) {
            if (shape[d] != 1) a = a.plus(var(first + d).times(stride));
            stride *= shape[d];
        }
        return a;
    }

    public Affine plus(Affine o) {
        TreeMap<Integer, Long> t = new TreeMap<>(terms);
        o.terms.forEach((v, c) -> t.merge(v, c, Long::sum));
        return new Affine(constant + o.constant, t);
    }

    public Affine plus(long c) { return new Affine(constant + c, terms); }

    public Affine times(long k) {
        TreeMap<Integer, Long> t = new TreeMap<>();
        terms.forEach((v, c) -> t.put(v, c * k));
        return new Affine(constant * k, t);
    }

    public long coeff(int var) { return terms.getOrDefault(var, 0L); }

    public boolean dependsOn(int var) { return terms.containsKey(var); }

    /** This index with {@code var} replaced by {@code by}. */
    public Affine substitute(int var, Affine by) {
        long c = coeff(var);
        if (c == 0) return this;
        TreeMap<Integer, Long> t = new TreeMap<>(terms);
        t.remove(var);
        return new Affine(constant, t).plus(by.times(c));
    }

    /** {@code 4096*x0 + x1 + 3}, vars named by {@code name}. */
    public String render(IntFunction<String> name) {
        StringBuilder sb = new StringBuilder();
        terms.forEach((v, c) -> {
            if (!sb.isEmpty()) sb.append(" + ");
            sb.append(c == 1 ? "" : c + "*").append(name.apply(v));
        });
        if (constant != 0 || sb.isEmpty()) {
            if (!sb.isEmpty()) sb.append(constant < 0 ? " - " : " + ").append(Math.abs(constant));
            else sb.append(constant);
        }
        return sb.toString();
    }

    @Override
    public String toString() { return render(v -> "v" + v); }
}
