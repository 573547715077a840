package dev.ember.inductor.codegen;

import dev.ember.inductor.ir.Expr;
import dev.ember.inductor.ir.Expr.Binary;
import dev.ember.inductor.ir.Expr.Cast;
import dev.ember.inductor.ir.Expr.Const;
import dev.ember.inductor.ir.Expr.Load;
import dev.ember.inductor.ir.Expr.Unary;
import dev.ember.inductor.ir.Expr.Where;
import dev.ember.tensor.DType;

import java.util.HashMap;
import java.util.Map;

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
    private final Code body;
    private final Map<Expr, String> memo = new HashMap<>();

    /** {@code pre} receives loop-invariant code, {@code body} the loop body; {@code hoisted} writes invariant scalars into {@code pre}. */
    VectorExprs(KernelContext ctx, int var, DType dtype, ScalarExprs hoisted, Code pre, Code body) {
        this.ctx = ctx;
        this.var = var;
        this.dtype = dtype;
        this.hoisted = hoisted;
        this.pre = pre;
        this.body = body;
    }

    static boolean supports(Expr e, int var, DType dtype) {
        if (!ScalarExprs.dependsOn(e, var)) return e.dtype() == dtype;
        return switch (e) {
            case Load l -> l.dtype() == dtype && l.index().coeff(var) == 1 && l.buffer().dtype() == dtype;
            case Const c -> true;
            case Unary u -> u.dtype() == dtype && u.op() != Expr.UnaryOp.NOT && u.op() != Expr.UnaryOp.ERF
                    && u.op() != Expr.UnaryOp.GELU && u.op() != Expr.UnaryOp.GELU_TANH && supports(u.x(), var, dtype);
            case Binary b when b.op().isComparison() -> false;
            case Binary b -> b.dtype() == dtype && b.op() != Expr.BinaryOp.AND && b.op() != Expr.BinaryOp.OR
                    && supports(b.a(), var, dtype) && supports(b.b(), var, dtype);
            case Where w -> w.dtype() == dtype && supportsCondition(w.cond(), var, dtype)
                    && supports(w.a(), var, dtype) && supports(w.b(), var, dtype);
            case Cast c -> false;
        };
    }

    private static boolean supportsCondition(Expr c, int var, DType dtype) {
        if (!ScalarExprs.dependsOn(c, var)) return true;
        return c instanceof Binary b && b.op().isComparison() && b.a().dtype() == dtype
                && supports(b.a(), var, dtype) && supports(b.b(), var, dtype);
    }

    /** A vector-typed Java expression for {@code e} (a temporary's name). */
    String emit(Expr e) {
        String known = memo.get(e);
        if (known != null) return known;
        String v = vt();
        String rhs;
        Code into = body;
        if (!ScalarExprs.dependsOn(e, var)) {
            rhs = v + ".broadcast(" + sp() + ", " + hoisted.emit(e) + ")";
            into = pre;
        } else {
            String handle = e instanceof Unary u ? vectorMathHandle(u.op()) : null;
            if (handle != null) return callVectorMath(e, handle, emit(((Unary) e).x()));
            rhs = switch (e) {
                case Load l -> v + ".fromArray(" + sp() + ", " + l.buffer().name() + ", " + ctx.index(l.buffer(), l.index()) + ")";
                case Unary u -> unary(u.op(), emit(u.x()));
                case Binary b when b.op() == Expr.BinaryOp.DIV && !ScalarExprs.dependsOn(b.b(), var) ->
                        emit(b.a()) + ".mul(" + reciprocal(b.b()) + ")";
                case Binary b -> binary(b.op(), emit(b.a()), emit(b.b()));
                case Where w -> where(w);
                default -> throw new IllegalStateException("not vectorizable: " + e);
            };
        }
        String name = ctx.temp();
        into.line(vt() + " " + name + " = " + rhs + ";");
        memo.put(e, name);
        return name;
    }

    /**
     * float32 exp, sin, cos and sigmoid are {@link dev.ember.ops.kernels.VectorMath}'s, as in eager
     * mode, called through its constant method handles: direct calls would exhaust C2's inlining
     * budget in a loop that fuses several of them (see {@code VectorMath.EXP_HANDLE}).
     */
    private String vectorMathHandle(Expr.UnaryOp op) {
        if (dtype != DType.FLOAT32) return null;
        return switch (op) {
            case EXP -> "EXP_HANDLE";
            case SIN -> "SIN_HANDLE";
            case COS -> "COS_HANDLE";
            case SIGMOID -> "SIGMOID_HANDLE";
            default -> null;
        };
    }

    private String callVectorMath(Expr e, String handle, String x) {
        String name = ctx.temp();
        body.line(vt() + " " + name + ";");
        body.line("try { " + name + " = (" + vt() + ") VectorMath." + handle + ".invokeExact(" + x + "); }"
                + " catch (Throwable thrown) { throw new AssertionError(thrown); }");
        memo.put(e, name);
        return name;
    }

    /** Division by a loop invariant is a multiplication by its reciprocal, computed once before the loop. */
    private String reciprocal(Expr divisor) {
        String name = ctx.temp();
        String s = hoisted.emit(divisor);
        pre.line(vt() + " " + name + " = " + vt() + ".broadcast(" + sp() + ", " + JavaTypes.literal(1, dtype) + " / " + s + ");");
        return name;
    }

    private String where(Where w) {
        if (!ScalarExprs.dependsOn(w.cond(), var)) return hoisted.emit(w.cond()) + " ? " + emit(w.a()) + " : " + emit(w.b());
        Binary c = (Binary) w.cond();
        String mask = emit(c.a()) + ".compare(VectorOperators." + c.op().name() + ", " + emit(c.b()) + ")";
        return emit(w.b()) + ".blend(" + emit(w.a()) + ", " + mask + ")";
    }

    private String one() { return vt() + ".broadcast(" + sp() + ", 1)"; }

    private String unary(Expr.UnaryOp op, String x) {
        return switch (op) {
            case NEG -> x + ".neg()";
            case ABS -> x + ".abs()";
            case EXP, LOG, LOG1P, SIN, COS, TANH -> x + ".lanewise(VectorOperators." + op.name() + ")";
            case SQRT -> x + ".sqrt()";
            case RSQRT -> one() + ".div(" + x + ".sqrt())";
            case RECIPROCAL -> one() + ".div(" + x + ")";
            case SIGMOID -> one() + ".div(" + one() + ".add(" + x + ".neg().lanewise(VectorOperators.EXP)))";
            case RELU -> x + ".max(0)";
            case NOT, ERF, GELU, GELU_TANH -> throw new IllegalStateException("not vectorizable: " + op);
        };
    }

    private static String binary(Expr.BinaryOp op, String a, String b) {
        return switch (op) {
            case ADD -> a + ".add(" + b + ")";
            case SUB -> a + ".sub(" + b + ")";
            case MUL -> a + ".mul(" + b + ")";
            case DIV -> a + ".div(" + b + ")";
            case MAX -> a + ".max(" + b + ")";
            case MIN -> a + ".min(" + b + ")";
            case POW -> a + ".lanewise(VectorOperators.POW, " + b + ")";
            default -> throw new IllegalStateException("not vectorizable: " + op);
        };
    }

    private String vt() { return JavaTypes.vector(dtype); }

    private String sp() { return JavaTypes.species(dtype); }
}
