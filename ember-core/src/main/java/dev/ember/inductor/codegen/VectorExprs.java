package dev.ember.inductor.codegen;

import dev.ember.inductor.ir.Expr;
import dev.ember.inductor.ir.Expr.Binary;
import dev.ember.inductor.ir.Expr.Cast;
import dev.ember.inductor.ir.Expr.Const;
import dev.ember.inductor.ir.Expr.Load;
import dev.ember.inductor.ir.Expr.Unary;
import dev.ember.inductor.ir.Expr.Where;
import dev.ember.kernels.BinaryOp;
import dev.ember.kernels.UnaryOp;
import dev.ember.kernels.VectorMath;
import dev.ember.tensor.DType;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes an expression with the Vector API over the innermost loop variable: subtrees that do not
 * depend on it are computed once before the loop (as scalars, then broadcast), the rest one vector
 * of lanes at a time. {@link #supports} says whether an expression can be written this way.
 */
final class VectorExprs {
    private final KernelContext ctx;
    private final int var;
    private final DType dtype;
    private final ScalarExprs hoisted;
    private final Code pre;
    /** Loop-invariant vectors, written once into {@code pre} and shared by every copy of the body. */
    private final Map<Expr, JExpr> invariants = new HashMap<>();

    /** {@code pre} receives loop-invariant code; {@code hoisted} writes invariant scalars into {@code pre}. */
    VectorExprs(KernelContext ctx, int var, DType dtype, ScalarExprs hoisted, Code pre) {
        this.ctx = ctx;
        this.var = var;
        this.dtype = dtype;
        this.hoisted = hoisted;
        this.pre = pre;
    }

    static boolean supports(Expr e, int var, DType dtype) {
        if (!ScalarExprs.dependsOn(e, var)) return e.dtype() == dtype;
        return switch (e) {
            case Load l -> l.dtype() == dtype && l.index().unitStride(var) && l.buffer().dtype() == dtype;
            case Const c -> true;
            case Unary u -> u.dtype() == dtype && hasLanes(u.op(), dtype) && supports(u.x(), var, dtype);
            case Binary b when b.op().isComparison() -> false;
            case Binary b -> b.dtype() == dtype && hasLanes(b.op(), dtype) && supports(b.a(), var, dtype) && supports(b.b(), var, dtype);
            case Where w -> w.dtype() == dtype && supportsCondition(w.cond(), var, dtype)
                    && supports(w.a(), var, dtype) && supports(w.b(), var, dtype);
            case Expr.Fma m -> m.dtype() == dtype && supports(m.a(), var, dtype) && supports(m.b(), var, dtype) && supports(m.c(), var, dtype);
            case Cast c when widens(c, var, dtype) -> true;
            // a comparison as 1 or 0 (ReLU's backward mask): a blend of the two constants by the comparison's mask
            case Cast c -> c.dtype() == dtype && c.x() instanceof Binary b && b.op().isComparison() && supportsCondition(b, var, dtype);
        };
    }

    /**
     * A float32 load read as float64 (statistics summed in float64, as layer_norm's): one narrow load
     * widened to the double lanes, exact, so each lane holds what the scalar form's conversion gives.
     */
    private static boolean widens(Cast c, int var, DType dtype) {
        return dtype == DType.FLOAT64 && c.dtype() == dtype && c.x() instanceof Load l && l.dtype() == DType.FLOAT32
                && l.buffer().dtype() == DType.FLOAT32 && l.index().unitStride(var);
    }

    /** Whether lanes of {@code dtype} compute {@code op}: one Vector API instruction, or a VectorMath formula for them. */
    private static boolean hasLanes(UnaryOp op, DType dtype) {
        if (op.formula() != null) return handleField(op, dtype) != null;
        return switch (op) {
            case NEG, ABS, SQRT, RECIPROCAL -> true;
            default -> false;
        };
    }

    private static boolean hasLanes(BinaryOp op, DType dtype) {
        if (op.formula() != null) return handleField(op, dtype) != null;
        return switch (op) {
            case ADD, SUB, MUL, DIV, MAX, MIN -> true;
            default -> false;
        };
    }

    private static String handleField(Enum<?> op, DType dtype) { return VectorMath.handleField(op, dtype == DType.FLOAT32); }

    private static boolean supportsCondition(Expr c, int var, DType dtype) {
        if (!ScalarExprs.dependsOn(c, var)) return true;
        return c instanceof Binary b && b.op().isComparison() && b.a().dtype() == dtype
                && supports(b.a(), var, dtype) && supports(b.b(), var, dtype);
    }

    /** A vector-typed temporary holding {@code e} for the lanes at the loop variable, its code written into {@code body}. */
    JExpr emit(Expr e, Code body) { return emitKnowing(e, body, Map.of()); }

    /** The same, with {@code known} subtrees already computed (their vectors are used, not recomputed). */
    JExpr emitKnowing(Expr e, Code body, Map<Expr, JExpr> known) {
        Lanes lanes = new Lanes(null, body);
        lanes.memo.putAll(known);
        return lanes.emit(e);
    }

    /**
     * How many VectorMath calls (each a few dozen vector instructions and ~10 constants) the loop
     * body makes, not counting the subtrees in {@code known} (computed elsewhere).
     */
    int vectorMathCalls(Expr e, Set<Expr> known) {
        if (!ScalarExprs.dependsOn(e, var) || known.contains(e)) return 0;
        return switch (e) {
            case Unary u -> (vectorMathHandle(u.op()) != null ? 1 : 0) + vectorMathCalls(u.x(), known);
            case Binary b -> vectorMathCalls(b.a(), known) + vectorMathCalls(b.b(), known);
            case Where w -> vectorMathCalls(w.cond(), known) + vectorMathCalls(w.a(), known) + vectorMathCalls(w.b(), known);
            case Expr.Fma m -> vectorMathCalls(m.a(), known) + vectorMathCalls(m.b(), known) + vectorMathCalls(m.c(), known);
            case Cast c -> vectorMathCalls(c.x(), known);
            default -> 0;
        };
    }

    /** The innermost VectorMath call of {@code e} whose argument makes none outside {@code known}, or null. */
    Expr innermostVectorMathCall(Expr e, Set<Expr> known) {
        if (!ScalarExprs.dependsOn(e, var) || known.contains(e)) return null;
        return switch (e) {
            case Unary u -> {
                Expr inner = innermostVectorMathCall(u.x(), known);
                yield inner != null ? inner : vectorMathHandle(u.op()) != null ? u : null;
            }
            case Binary b -> {
                Expr inA = innermostVectorMathCall(b.a(), known);
                yield inA != null ? inA : innermostVectorMathCall(b.b(), known);
            }
            // every subtree vectorMathCalls counts, so that a count of two or more always finds one
            case Where w -> {
                Expr inCond = innermostVectorMathCall(w.cond(), known);
                if (inCond != null) yield inCond;
                Expr inA = innermostVectorMathCall(w.a(), known);
                yield inA != null ? inA : innermostVectorMathCall(w.b(), known);
            }
            case Expr.Fma m -> {
                Expr inA = innermostVectorMathCall(m.a(), known);
                if (inA != null) yield inA;
                Expr inB = innermostVectorMathCall(m.b(), known);
                yield inB != null ? inB : innermostVectorMathCall(m.c(), known);
            }
            case Cast c -> innermostVectorMathCall(c.x(), known);
            default -> null;
        };
    }

    /** The subtrees of {@code known} that {@code e} uses directly (not only inside another known one), in first-use order. */
    static List<Expr> knownUses(Expr e, Set<Expr> known) {
        Set<Expr> out = new LinkedHashSet<>();
        collectKnown(e, known, out);
        return List.copyOf(out);
    }

    private static void collectKnown(Expr e, Set<Expr> known, Set<Expr> out) {
        if (known.contains(e)) {
            out.add(e);
            return;
        }
        switch (e) {
            case Unary u -> collectKnown(u.x(), known, out);
            case Binary b -> { collectKnown(b.a(), known, out); collectKnown(b.b(), known, out); }
            case Where w -> { collectKnown(w.cond(), known, out); collectKnown(w.a(), known, out); collectKnown(w.b(), known, out); }
            case Expr.Fma m -> { collectKnown(m.a(), known, out); collectKnown(m.b(), known, out); collectKnown(m.c(), known, out); }
            case Cast c -> collectKnown(c.x(), known, out);
            default -> { }
        }
    }

    /**
     * The same for the lanes at {@code var + offset} (an unrolled loop's later vectors): each call
     * writes its own copy of the loop-dependent code, and shares the invariants before the loop.
     */
    JExpr emit(Expr e, JExpr offset, Code body) { return new Lanes(offset, body).emit(e); }

    /**
     * The same for a tail shorter than a vector: the lanes of {@code mask} at the loop variable,
     * loaded with it (zeros elsewhere, whose results the caller's masked store or fold ignores). The
     * tail computes with the body's vector formulas: a scalar tail rounds transcendental functions
     * differently, and an element's value must not depend on where it falls.
     */
    JExpr emitMasked(Expr e, JExpr mask, Code body) { return emitMaskedKnowing(e, mask, body, Map.of()); }

    /** The same, with {@code known} subtrees already computed (their vectors are used, not recomputed). */
    JExpr emitMaskedKnowing(Expr e, JExpr mask, Code body, Map<Expr, JExpr> known) {
        Lanes lanes = new Lanes(null, body);
        lanes.mask = mask;
        lanes.memo.putAll(known);
        return lanes.emit(e);
    }

    /** One copy of the loop body, at one offset from the loop variable. */
    private final class Lanes {
        private final JExpr offset;
        private final Code body;
        private final Map<Expr, JExpr> memo = new HashMap<>();
        /** Non-null in a masked tail: loads read only its lanes. */
        private JExpr mask;

        Lanes(JExpr offset, Code body) {
            this.offset = offset;
            this.body = body;
        }

        JExpr emit(Expr e) {
            if (!ScalarExprs.dependsOn(e, var)) return invariant(e);
            JExpr known = memo.get(e);
            if (known != null) return known;
            JExpr rhs = switch (e) {
                case Load l -> mask == null ? VectorApi.fromArray(dtype, KernelContext.array(l.buffer()), at(ctx.index(l.buffer(), l.index())))
                        : VectorApi.fromArray(dtype, KernelContext.array(l.buffer()), ctx.index(l.buffer(), l.index()), mask);
                case Unary u -> unary(u.op(), emit(u.x()));
                case Binary b -> binary(b.op(), emit(b.a()), emit(b.b()));
                case Where w -> where(w);
                case Expr.Fma m -> VectorApi.fma(emit(m.a()), emit(m.b()), emit(m.c()));
                case Cast c when widens(c, var, dtype) -> {
                    Load l = (Load) c.x();
                    JExpr array = KernelContext.array(l.buffer()), index = ctx.index(l.buffer(), l.index());
                    yield mask == null ? VectorApi.widen(array, at(index)) : VectorApi.widen(array, index, mask);
                }
                case Cast c -> VectorApi.blend(zero(), one(), comparison((Binary) c.x()));
                default -> throw new IllegalStateException("not vectorizable: " + e);
            };
            JExpr.Local name = body.declare(vt(), ctx.temp(), rhs);
            memo.put(e, name);
            return name;
        }

        private JExpr at(JExpr index) { return VectorExprs.at(index, offset); }

        private JExpr where(Where w) {
            if (!ScalarExprs.dependsOn(w.cond(), var)) return new JExpr.Cond(hoisted.emit(w.cond()), emit(w.a()), emit(w.b()));
            return VectorApi.blend(emit(w.b()), emit(w.a()), comparison((Binary) w.cond()));
        }

        /** The lanes where comparison {@code c} holds, as a mask. */
        private JExpr comparison(Binary c) { return VectorApi.compare(c.op().name(), emit(c.a()), emit(c.b())); }
    }

    /** {@code index + offset}: an array index moved to an unrolled copy's lanes (offset null: not moved). */
    static JExpr at(JExpr index, JExpr offset) { return offset == null ? index : new JExpr.Arith(JExpr.ArithOp.ADD, index, offset); }

    /** A loop-invariant subtree: computed as a scalar before the loop, then broadcast. */
    private JExpr invariant(Expr e) {
        JExpr known = invariants.get(e);
        if (known != null) return known;
        JExpr.Local name = pre.declare(vt(), ctx.temp(), VectorApi.broadcast(dtype, hoisted.emit(e)));
        invariants.put(e, name);
        return name;
    }

    /**
     * The handle of {@code op}'s VectorMath formula when it is a polynomial inlined into the loop
     * (float32 exp, sin, cos, sigmoid, silu, gelu), or null: those are what a loop can fuse only one of
     * before C2 spills vector registers.
     */
    private String vectorMathHandle(UnaryOp op) {
        if (op.formula() == null) return null;
        String field = handleField(op, dtype);
        return field != null && VectorMath.inlinesPolynomial(field) ? field : null;
    }

    private JExpr one() { return VectorApi.broadcast(dtype, JavaTypes.literal(1, dtype)); }

    private JExpr zero() { return VectorApi.broadcast(dtype, JavaTypes.literal(0, dtype)); }

    /**
     * A formula is VectorMath's, the method eager's SIMD loops call, called here through its
     * constant method handle: direct calls would exhaust C2's inlining budget in a loop that fuses
     * several of them (see {@code VectorMath.EXP_F32}).
     */
    private JExpr formula(Enum<?> op, JExpr... args) {
        return Calls.invokeExact(new JExpr.GetStatic(Calls.VECTOR_MATH, handleField(op, dtype), Calls.METHOD_HANDLE), vt(), args);
    }

    private JExpr unary(UnaryOp op, JExpr x) {
        if (op.formula() != null) return formula(op, x);
        return switch (op) {
            case NEG -> VectorApi.unary("neg", x);
            case ABS -> VectorApi.unary("abs", x);
            case SQRT -> VectorApi.unary("sqrt", x);
            case RECIPROCAL -> VectorApi.binary("div", one(), x);
            default -> throw new IllegalStateException("not vectorizable: " + op);
        };
    }

    private JExpr binary(BinaryOp op, JExpr a, JExpr b) {
        if (op.formula() != null) return formula(op, a, b);
        return switch (op) {
            case ADD -> VectorApi.binary("add", a, b);
            case SUB -> VectorApi.binary("sub", a, b);
            case MUL -> VectorApi.binary("mul", a, b);
            case DIV -> VectorApi.binary("div", a, b);
            case MAX -> VectorApi.binary("max", a, b);
            case MIN -> VectorApi.binary("min", a, b);
            default -> throw new IllegalStateException("not vectorizable: " + op);
        };
    }

    private JType vt() { return JavaTypes.vector(dtype); }
}
