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
import dev.ember.tensor.DType;

import java.util.HashMap;
import java.util.Map;

/**
 * Writes an expression as statements, one temporary per distinct subexpression
 * ({@code float t4 = t2 * t3;}), so shared subtrees are computed once.
 */
final class ScalarExprs {
    private final KernelContext ctx;
    private final Code code;
    private final Map<Expr, JExpr> memo;

    ScalarExprs(KernelContext ctx, Code code, Map<Expr, JExpr> memo) {
        this.ctx = ctx;
        this.code = code;
        this.memo = memo;
    }

    ScalarExprs(KernelContext ctx, Code code) { this(ctx, code, new HashMap<>()); }

    Map<Expr, JExpr> memo() { return memo; }

    /** A temporary or a literal holding {@code e}'s value. */
    JExpr emit(Expr e) {
        if (e instanceof Const c) return JavaTypes.literal(c.value(), c.dtype());
        JExpr known = memo.get(e);
        if (known != null) return known;
        JExpr local = e instanceof Load l ? ctx.local(l.buffer()) : null;
        if (local != null) return local;
        JExpr rhs = switch (e) {
            case Load l -> load(l);
            case Unary u -> unary(u.op(), emit(u.x()), u.dtype());
            case Binary b -> binary(b.op(), emit(b.a()), emit(b.b()), b.dtype());
            case Where w -> new JExpr.Cond(emit(w.cond()), emit(w.a()), emit(w.b()));
            case Expr.Fma m -> Calls.math("fma", JavaTypes.scalar(m.dtype()), emit(m.a()), emit(m.b()), emit(m.c()));
            case Cast c -> cast(emit(c.x()), c.x().dtype(), c.dtype());
            case Const c -> throw new IllegalStateException();
        };
        JExpr.Local name = code.declare(JavaTypes.scalar(e.dtype()), ctx.temp(), rhs);
        memo.put(e, name);
        return name;
    }

    private JExpr load(Load l) {
        JExpr read = new JExpr.ArrayLoad(ctx.array(l.buffer()), ctx.index(l.buffer(), l.index()));
        return l.dtype() == DType.BOOL ? new JExpr.Compare(JExpr.CmpOp.NE, read, JavaTypes.intLit(0)) : read;
    }

    static JExpr cast(JExpr x, DType from, DType to) {
        if (from == DType.BOOL) return new JExpr.Cond(x, JavaTypes.literal(1, to), JavaTypes.literal(0, to));
        if (to == DType.BOOL) return new JExpr.Compare(JExpr.CmpOp.NE, x, JavaTypes.literal(0, from));
        return JavaTypes.convert(x, JavaTypes.scalar(to));
    }

    /**
     * {@code op(x)}: one Java operator, or the op's formula in {@link dev.ember.kernels.ScalarMath},
     * the method the eager kernels call per element.
     */
    static JExpr unary(UnaryOp op, JExpr x, DType d) {
        JType t = JavaTypes.scalar(d);
        if (op.formula() != null) {
            if (op == UnaryOp.POW) throw new IllegalStateException("pow with a scalar exponent is lowered as a binary op");
            return Calls.staticCall(Calls.SCALAR_MATH, op.formula(), t, JavaTypes.convert(x, t));
        }
        return switch (op) {
            case NEG -> new JExpr.Neg(x);
            case ABS -> Calls.math("abs", t, x);
            case SQRT -> JavaTypes.convert(Calls.math("sqrt", JType.DOUBLE, JavaTypes.convert(x, JType.DOUBLE)), t);
            case RECIPROCAL -> new JExpr.Arith(JExpr.ArithOp.DIV, JavaTypes.literal(1, d), x);
            case NOT -> new JExpr.Not(x);
            case BITWISE_NOT -> new JExpr.Arith(JExpr.ArithOp.XOR, x, JavaTypes.literal(-1, d));
            default -> throw new IllegalStateException(op + " is an eager kernel's fast path, never in generated code");
        };
    }

    /** {@code a op b}: one Java operator, or the op's formula in {@link dev.ember.kernels.ScalarMath}. */
    static JExpr binary(BinaryOp op, JExpr a, JExpr b, DType d) {
        JType t = JavaTypes.scalar(d);
        if (op.isComparison()) {
            JType common = a.type().desc().equals(b.type().desc()) ? a.type() : wider(a.type(), b.type());
            a = JavaTypes.convert(a, common);
            b = JavaTypes.convert(b, common);
        } else if (!t.equals(JType.BOOLEAN)) {
            a = JavaTypes.convert(a, t);
            b = JavaTypes.convert(b, t);
        }
        if (op.formula() != null) return Calls.staticCall(Calls.SCALAR_MATH, op.formula(), t, a, b);
        return switch (op) {
            case ADD -> new JExpr.Arith(JExpr.ArithOp.ADD, a, b);
            case SUB -> new JExpr.Arith(JExpr.ArithOp.SUB, a, b);
            case MUL -> new JExpr.Arith(JExpr.ArithOp.MUL, a, b);
            case DIV -> new JExpr.Arith(JExpr.ArithOp.DIV, a, b);
            case MAX -> Calls.math("max", t, a, b);
            case MIN -> Calls.math("min", t, a, b);
            case EQ -> new JExpr.Compare(JExpr.CmpOp.EQ, a, b);
            case NE -> new JExpr.Compare(JExpr.CmpOp.NE, a, b);
            case LT -> new JExpr.Compare(JExpr.CmpOp.LT, a, b);
            case LE -> new JExpr.Compare(JExpr.CmpOp.LE, a, b);
            case GT -> new JExpr.Compare(JExpr.CmpOp.GT, a, b);
            case GE -> new JExpr.Compare(JExpr.CmpOp.GE, a, b);
            case AND, BITWISE_AND -> new JExpr.Arith(JExpr.ArithOp.AND, a, b);
            case OR, BITWISE_OR -> new JExpr.Arith(JExpr.ArithOp.OR, a, b);
            case BITWISE_XOR -> new JExpr.Arith(JExpr.ArithOp.XOR, a, b);
            default -> throw new IllegalStateException(op + " is an eager kernel's op, never in generated code");
        };
    }

    /** Java's binary numeric promotion of two primitive types. */
    private static JType wider(JType a, JType b) {
        String order = "BIJFD";
        return order.indexOf(a.desc().descriptorString()) >= order.indexOf(b.desc().descriptorString()) ? a : b;
    }

    /** Whether {@code e} reads anything that changes with loop variable {@code var}. */
    static boolean dependsOn(Expr e, int var) {
        boolean[] dep = {false};
        Expr.forEachLoad(e, l -> { if (l.index().dependsOn(var)) dep[0] = true; });
        return dep[0];
    }

    /** The value stored into an array of dtype {@code d} (bools as bytes 0/1). */
    static JExpr storeValue(JExpr v, DType d) {
        return d == DType.BOOL ? JavaTypes.convert(new JExpr.Cond(v, JavaTypes.intLit(1), JavaTypes.intLit(0)), JType.BYTE) : v;
    }
}
