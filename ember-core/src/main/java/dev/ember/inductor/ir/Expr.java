package dev.ember.inductor.ir;

import dev.ember.kernels.BinaryOp;
import dev.ember.kernels.UnaryOp;
import dev.ember.tensor.DType;

/**
 * The loop body of a kernel as an expression tree over loads: what one output element (or one
 * reduction term) is, given the loop variables. Records compare structurally, so equal subtrees
 * are computed once (common subexpressions).
 */
public sealed interface Expr {
    DType dtype();

    /** {@code buffer[base + index]}. */
    record Load(Buffer buffer, Affine index, DType dtype) implements Expr {}

    /** A constant; {@code value} is a Double, Long or Boolean. */
    record Const(Object value, DType dtype) implements Expr {}

    /** {@code op(x)}: the op table's scalar vocabulary, whose formulas the eager kernels share. */
    record Unary(UnaryOp op, Expr x, DType dtype) implements Expr {}

    /** Arithmetic in {@code dtype}; comparisons compare in their operands' dtype and yield bool. */
    record Binary(BinaryOp op, Expr a, Expr b, DType dtype) implements Expr {}

    record Where(Expr cond, Expr a, Expr b, DType dtype) implements Expr {}

    /**
     * {@code a * b + c} rounded once ({@code Math.fma}, a lane fma): add and sub with an alpha,
     * which the eager kernels compute as ATen's do, so the compiled result is eager's bit for bit.
     */
    record Fma(Expr a, Expr b, Expr c, DType dtype) implements Expr {}

    record Cast(Expr x, DType dtype) implements Expr {}

    /** Calls {@code f} on every load in the tree. */
    static void forEachLoad(Expr e, java.util.function.Consumer<Load> f) {
        switch (e) {
            case Load l -> f.accept(l);
            case Const c -> { }
            case Unary u -> forEachLoad(u.x(), f);
            case Binary b -> { forEachLoad(b.a(), f); forEachLoad(b.b(), f); }
            case Where w -> { forEachLoad(w.cond(), f); forEachLoad(w.a(), f); forEachLoad(w.b(), f); }
            case Fma m -> { forEachLoad(m.a(), f); forEachLoad(m.b(), f); forEachLoad(m.c(), f); }
            case Cast c -> forEachLoad(c.x(), f);
        }
    }

    /** The tree with every load's index rewritten by {@code f}. */
    static Expr mapIndices(Expr e, java.util.function.UnaryOperator<Affine> f) {
        return switch (e) {
            case Load l -> new Load(l.buffer(), f.apply(l.index()), l.dtype());
            case Const c -> c;
            case Unary u -> new Unary(u.op(), mapIndices(u.x(), f), u.dtype());
            case Binary b -> new Binary(b.op(), mapIndices(b.a(), f), mapIndices(b.b(), f), b.dtype());
            case Where w -> new Where(mapIndices(w.cond(), f), mapIndices(w.a(), f), mapIndices(w.b(), f), w.dtype());
            case Fma m -> new Fma(mapIndices(m.a(), f), mapIndices(m.b(), f), mapIndices(m.c(), f), m.dtype());
            case Cast c -> new Cast(mapIndices(c.x(), f), c.dtype());
        };
    }

    /** The tree with every occurrence of {@code target} replaced by {@code by}. */
    static Expr replace(Expr e, Expr target, Expr by) {
        if (e.equals(target)) return by;
        return switch (e) {
            case Load l -> l;
            case Const c -> c;
            case Unary u -> new Unary(u.op(), replace(u.x(), target, by), u.dtype());
            case Binary b -> new Binary(b.op(), replace(b.a(), target, by), replace(b.b(), target, by), b.dtype());
            case Where w -> new Where(replace(w.cond(), target, by), replace(w.a(), target, by), replace(w.b(), target, by), w.dtype());
            case Fma m -> new Fma(replace(m.a(), target, by), replace(m.b(), target, by), replace(m.c(), target, by), m.dtype());
            case Cast c -> new Cast(replace(c.x(), target, by), c.dtype());
        };
    }

    /** Whether {@code part} occurs in {@code e}. */
    static boolean contains(Expr e, Expr part) {
        if (e.equals(part)) return true;
        return switch (e) {
            case Load l -> false;
            case Const c -> false;
            case Unary u -> contains(u.x(), part);
            case Binary b -> contains(b.a(), part) || contains(b.b(), part);
            case Where w -> contains(w.cond(), part) || contains(w.a(), part) || contains(w.b(), part);
            case Fma m -> contains(m.a(), part) || contains(m.b(), part) || contains(m.c(), part);
            case Cast c -> contains(c.x(), part);
        };
    }

    /** Number of nodes: a rough cost, to decide when recomputing is cheaper than storing. */
    static int size(Expr e) {
        return switch (e) {
            case Load l -> 1;
            case Const c -> 1;
            case Unary u -> 1 + size(u.x());
            case Binary b -> 1 + size(b.a()) + size(b.b());
            case Where w -> 1 + size(w.cond()) + size(w.a()) + size(w.b());
            case Fma m -> 1 + size(m.a()) + size(m.b()) + size(m.c());
            case Cast c -> 1 + size(c.x());
        };
    }
}
