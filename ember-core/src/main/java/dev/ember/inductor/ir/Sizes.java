package dev.ember.inductor.ir;

import dev.ember.tensor.SymInt;

/**
 * Shape arithmetic on {@link SymInt} sizes, for a graph generic in some input sizes (a static
 * graph's sizes are constants). What the compiler decides from a size must hold for every value in
 * the symbols' range, so comparisons here answer "provably, for all values", never "at the hint";
 * a symbol is always at least 2 (0 and 1 are specialized).
 */
public final class Sizes {
    private Sizes() {}

    public static final SymInt ZERO = SymInt.of(0), ONE = SymInt.of(1);

    public static SymInt numel(SymInt[] shape) {
        SymInt n = ONE;
        for (SymInt s : shape) n = times(n, s);
        return n;
    }

    /** Row-major strides of {@code shape} (a size-1 dim takes its neighbour's, as {@code Shapes.contiguousStrides}). */
    public static SymInt[] contiguousStrides(SymInt[] shape) {
        SymInt[] st = new SymInt[shape.length];
        SymInt s = ONE;
        for (int d = shape.length - 1; d >= 0; d--) {
            st[d] = s;
            s = times(s, max1(shape[d]));
        }
        return st;
    }

    /** Row-major with no gaps for every value of the symbols (size-1 dims may have any stride). */
    public static boolean isContiguous(SymInt[] shape, SymInt[] strides) {
        SymInt[] cs = contiguousStrides(shape);
        for (int d = 0; d < shape.length; d++) if (!is(shape[d], 1) && !strides[d].equals(cs[d])) return false;
        return true;
    }

    /** {@code max(1, size)}: the size itself when it is symbolic (a symbol is at least 2). */
    public static SymInt max1(SymInt size) { return size.isConstant() && size.constant() < 1 ? ONE : size; }

    public static boolean is(SymInt s, long c) { return s.isConstant() && s.constant() == c; }

    /** Whether the size is above 1 for every value of the symbols (a symbol always is). */
    public static boolean above1(SymInt s) { return !s.isConstant() || s.constant() > 1; }

    /**
     * {@code a / b} when it divides exactly for every value of the symbols ({@code 4096 / 512},
     * {@code 512*s0 / 512}, {@code s0*64 / s0*64}), else null.
     */
    public static SymInt quotient(SymInt a, SymInt b) {
        if (a.equals(b)) return ONE;
        if (!b.isConstant()) return null;
        if (a.isConstant()) return a.constant() % b.constant() == 0 ? SymInt.of(a.constant() / b.constant()) : null;
        return a.exactDiv(b.constant());
    }

    /** Whether {@code a >= b} for every value of the symbols: their difference is a constant >= 0. */
    public static boolean provablyAtLeast(SymInt a, SymInt b) {
        SymInt d = minus(a, b);
        return d.isConstant() && d.constant() >= 0;
    }

    public static boolean isStatic(SymInt[] shape) {
        for (SymInt s : shape) if (!s.isConstant()) return false;
        return true;
    }

    /** The constant sizes of a static shape. */
    public static int[] constants(SymInt[] shape) {
        int[] out = new int[shape.length];
        for (int i = 0; i < shape.length; i++) out[i] = Math.toIntExact(shape[i].constant());
        return out;
    }

    // Constant fast paths: a static graph's compile does this arithmetic on every index.

    public static SymInt plus(SymInt a, SymInt b) {
        return a.isConstant() && b.isConstant() ? SymInt.of(Math.addExact(a.constant(), b.constant())) : a.plus(b);
    }

    public static SymInt minus(SymInt a, SymInt b) {
        return a.isConstant() && b.isConstant() ? SymInt.of(Math.subtractExact(a.constant(), b.constant())) : a.minus(b);
    }

    public static SymInt times(SymInt a, SymInt b) {
        return a.isConstant() && b.isConstant() ? SymInt.of(Math.multiplyExact(a.constant(), b.constant())) : a.times(b);
    }
}
