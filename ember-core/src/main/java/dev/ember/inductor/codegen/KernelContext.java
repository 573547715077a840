package dev.ember.inductor.codegen;

import dev.ember.inductor.ir.Affine;
import dev.ember.inductor.ir.Buffer;
import dev.ember.inductor.ir.Sizes;
import dev.ember.tensor.SymInt;

import java.util.HashMap;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Names inside one generated kernel: temporaries, loop variables, buffer offsets, register-held
 * results, and the size symbols the kernel's sizes and indices use (its {@code int s0, …}
 * parameters in a graph generic in some input sizes).
 */
final class KernelContext {
    private int temps;
    private final Map<Buffer, JExpr> locals = new HashMap<>();
    private final SortedSet<Integer> symbols = new TreeSet<>();

    String temp() { return "t" + temps++; }

    static JExpr.Local var(int v) { return new JExpr.Local("i" + v, JType.INT); }

    /** The array holding {@code b} (a parameter of the kernel). */
    static JExpr.Local array(Buffer b) { return new JExpr.Local(b.name(), JavaTypes.array(b.dtype())); }

    /** The run-time base offset of {@code b} in its array. */
    static JExpr.Local offset(Buffer b) { return new JExpr.Local(b.name() + "_off", JType.INT); }

    /** The local holding size symbol {@code s<id>}'s value for this call. */
    static JExpr.Local symbol(int id) { return new JExpr.Local("s" + id, JType.INT); }

    /** The ids of the symbols this kernel's code used, ascending. */
    SortedSet<Integer> symbols() { return symbols; }

    /** {@code size} as an int expression of this kernel's symbol parameters (a literal when constant). */
    JExpr size(SymInt size) {
        for (int id : size.symbols()) symbols.add(id);
        return sizeOf(size);
    }

    /** {@code 512*s0 + 3} as an int expression of the symbols' locals, {@code 512} as a literal. */
    static JExpr sizeOf(SymInt size) {
        if (size.isConstant()) return JavaTypes.intLit(size.constant());
        JExpr sum = null;
        for (SymInt.Term t : size.terms()) {
            JExpr term = null;
            for (int id : t.ids()) term = term == null ? symbol(id) : new JExpr.Arith(JExpr.ArithOp.MUL, term, symbol(id));
            long k = Math.abs(t.coefficient());
            if (term == null) term = JavaTypes.intLit(k);
            else if (k != 1) term = new JExpr.Arith(JExpr.ArithOp.MUL, JavaTypes.intLit(k), term);
            boolean negative = t.coefficient() < 0;
            if (sum == null) sum = negative ? new JExpr.Arith(JExpr.ArithOp.SUB, JavaTypes.intLit(0), term) : term;
            else sum = new JExpr.Arith(negative ? JExpr.ArithOp.SUB : JExpr.ArithOp.ADD, sum, term);
        }
        return sum;
    }

    /** The array index of {@code index} into {@code b}: its run-time base offset (if any) plus the affine index. */
    JExpr index(Buffer b, Affine index) { return affine(b.hasRuntimeOffset() ? offset(b) : null, index); }

    /** {@code base + 4096 * i0 + i1 + 3} ({@code base + 512 * s0 * i0 + i1}), summed left to right so that it prints without parentheses. */
    private JExpr affine(JExpr base, Affine index) {
        JExpr[] sum = {base};
        index.terms().forEach((v, c) -> {
            JExpr term = Sizes.is(c, 1) ? var(v) : new JExpr.Arith(JExpr.ArithOp.MUL, size(c), var(v));
            sum[0] = sum[0] == null ? term : new JExpr.Arith(JExpr.ArithOp.ADD, sum[0], term);
        });
        SymInt k = index.constant();
        if (sum[0] == null) return size(k);
        if (k.isConstant() && k.constant() == 0) return sum[0];
        if (!k.isConstant()) return new JExpr.Arith(JExpr.ArithOp.ADD, sum[0], size(k));
        return new JExpr.Arith(k.constant() < 0 ? JExpr.ArithOp.SUB : JExpr.ArithOp.ADD, sum[0], JavaTypes.intLit(Math.abs(k.constant())));
    }

    /** Registers that reads of {@code b} in this row are the value of {@code value}. */
    void setLocal(Buffer b, JExpr value) { locals.put(b, value); }

    JExpr local(Buffer b) { return locals.get(b); }
}
