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
 * Writes an expression as Java statements, one temporary per distinct subexpression
 * ({@code float t4 = t2 * t3;}), so shared subtrees are computed once.
 */
final class ScalarExprs {
    private final KernelContext ctx;
    private final Code code;
    private final Map<Expr, String> memo;

    ScalarExprs(KernelContext ctx, Code code, Map<Expr, String> memo) {
        this.ctx = ctx;
        this.code = code;
        this.memo = memo;
    }

    ScalarExprs(KernelContext ctx, Code code) { this(ctx, code, new HashMap<>()); }

    Map<Expr, String> memo() { return memo; }

    /** A Java expression (a temporary's name or a literal) holding {@code e}'s value. */
    String emit(Expr e) {
        if (e instanceof Const c) return JavaTypes.literal(c.value(), c.dtype());
        String known = memo.get(e);
        if (known != null) return known;
        String local = e instanceof Load l ? ctx.local(l.buffer()) : null;
        if (local != null) return local;
        String rhs = switch (e) {
            case Load l -> load(l);
            case Unary u -> unary(u.op(), emit(u.x()), u.dtype());
            case Binary b -> binary(b.op(), emit(b.a()), emit(b.b()), b.dtype(), b.a().dtype());
            case Where w -> emit(w.cond()) + " ? " + emit(w.a()) + " : " + emit(w.b());
            case Cast c -> cast(emit(c.x()), c.x().dtype(), c.dtype());
            case Const c -> throw new IllegalStateException();
        };
        String name = ctx.temp();
        code.line(JavaTypes.scalar(e.dtype()) + " " + name + " = " + rhs + ";");
        memo.put(e, name);
        return name;
    }

    private String load(Load l) {
        String read = l.buffer().name() + "[" + ctx.index(l.buffer(), l.index()) + "]";
        return l.dtype() == DType.BOOL ? read + " != 0" : read;
    }

    static String cast(String x, DType from, DType to) {
        if (from == DType.BOOL) return "(" + x + " ? " + JavaTypes.literal(1, to) + " : " + JavaTypes.literal(0, to) + ")";
        if (to == DType.BOOL) return x + " != 0";
        return "(" + JavaTypes.scalar(to) + ") " + x;
    }

    static String unary(Expr.UnaryOp op, String x, DType d) {
        boolean f = d == DType.FLOAT32;
        String c = f ? "(float) " : "";
        String one = f ? "1f" : d == DType.FLOAT64 ? "1.0" : "1";
        return switch (op) {
            case NEG -> "-" + x;
            case ABS -> "Math.abs(" + x + ")";
            case EXP -> c + "Math.exp(" + x + ")";
            case LOG -> c + "Math.log(" + x + ")";
            case LOG1P -> c + "Math.log1p(" + x + ")";
            case SQRT -> c + "Math.sqrt(" + x + ")";
            case RSQRT -> one + " / " + c + "Math.sqrt(" + x + ")";
            case SIN -> c + "Math.sin(" + x + ")";
            case COS -> c + "Math.cos(" + x + ")";
            case TANH -> c + "Math.tanh(" + x + ")";
            case SIGMOID -> one + " / (" + one + " + " + c + "Math.exp(-" + x + "))";
            case RELU -> "Math.max(" + x + ", " + JavaTypes.literal(0, d) + ")";
            case RECIPROCAL -> one + " / " + x;
            case NOT -> "!" + x;
            case ERF -> c + "KernelMath.erf(" + x + ")";
            case GELU -> c + "KernelMath.gelu(" + x + ")";
            case GELU_TANH -> c + "KernelMath.geluTanh(" + x + ")";
        };
    }

    static String binary(Expr.BinaryOp op, String a, String b, DType d, DType operand) {
        return switch (op) {
            case ADD -> a + " + " + b;
            case SUB -> a + " - " + b;
            case MUL -> a + " * " + b;
            case DIV -> a + " / " + b;
            case MAX -> "Math.max(" + a + ", " + b + ")";
            case MIN -> "Math.min(" + a + ", " + b + ")";
            case POW -> (d == DType.FLOAT32 ? "(float) " : "") + "Math.pow(" + a + ", " + b + ")";
            case EQ -> a + " == " + b;
            case NE -> a + " != " + b;
            case LT -> a + " < " + b;
            case LE -> a + " <= " + b;
            case GT -> a + " > " + b;
            case GE -> a + " >= " + b;
            case AND -> a + " & " + b;
            case OR -> a + " | " + b;
        };
    }

    /** Whether {@code e} reads anything that changes with loop variable {@code var}. */
    static boolean dependsOn(Expr e, int var) {
        boolean[] dep = {false};
        Expr.forEachLoad(e, l -> { if (l.index().dependsOn(var)) dep[0] = true; });
        return dep[0];
    }

    static String storeValue(String v, DType d) { return d == DType.BOOL ? "(byte) (" + v + " ? 1 : 0)" : v; }

}
