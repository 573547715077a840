package dev.ember.inductor.codegen;

import dev.ember.inductor.ir.Affine;
import dev.ember.inductor.ir.Buffer;

import java.util.HashMap;
import java.util.Map;

/** Names inside one generated kernel: temporaries, loop variables, buffer offsets, and register-held results. */
final class KernelContext {
    private int temps;
    private final Map<Buffer, JExpr> locals = new HashMap<>();

    String temp() { return "t" + temps++; }

    static JExpr.Local var(int v) { return new JExpr.Local("i" + v, JType.INT); }

    /** The array holding {@code b} (a parameter of the kernel). */
    static JExpr.Local array(Buffer b) { return new JExpr.Local(b.name(), JavaTypes.array(b.dtype())); }

    /** The run-time base offset of {@code b} in its array. */
    static JExpr.Local offset(Buffer b) { return new JExpr.Local(b.name() + "_off", JType.INT); }

    /** The array index of {@code index} into {@code b}: its run-time base offset (if any) plus the affine index. */
    JExpr index(Buffer b, Affine index) { return affine(b.hasRuntimeOffset() ? offset(b) : null, index); }

    /** {@code base + 4096 * i0 + i1 + 3}, summed left to right so that it prints without parentheses. */
    static JExpr affine(JExpr base, Affine index) {
        JExpr[] sum = {base};
        index.terms().forEach((v, c) -> {
            JExpr term = c == 1 ? var(v) : new JExpr.Arith(JExpr.ArithOp.MUL, JavaTypes.intLit(c), var(v));
            sum[0] = sum[0] == null ? term : new JExpr.Arith(JExpr.ArithOp.ADD, sum[0], term);
        });
        long k = index.constant();
        if (sum[0] == null) return JavaTypes.intLit(k);
        if (k == 0) return sum[0];
        return new JExpr.Arith(k < 0 ? JExpr.ArithOp.SUB : JExpr.ArithOp.ADD, sum[0], JavaTypes.intLit(Math.abs(k)));
    }

    /** Registers that reads of {@code b} in this row are the value of {@code value}. */
    void setLocal(Buffer b, JExpr value) { locals.put(b, value); }

    JExpr local(Buffer b) { return locals.get(b); }
}
