package dev.ember.inductor.codegen;

import dev.ember.inductor.Kernel;
import dev.ember.inductor.ir.Affine;
import dev.ember.inductor.ir.Buffer;
import dev.ember.inductor.ir.Expr;
import dev.ember.inductor.ir.Stage;
import dev.ember.tensor.DType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Writes the loops of a {@link Kernel.Loop}. Dims that memory lets merge are merged first (a
 * contiguous pointwise kernel becomes one flat loop, split across cores); otherwise the kernel runs
 * rows in parallel, and each stage loops over its inner dims — the innermost one with the Vector
 * API when the expression allows (and {@code vectorize} is on), else as plain scalar code.
 */
final class LoopWriter {
    record Dim(int var, int size) {}

    private final boolean vectorize;

    LoopWriter(boolean vectorize) { this.vectorize = vectorize; }

    /** One stage as written: its body and store index after merged dims were substituted away. */
    private record Work(Stage stage, Expr body, Affine store, List<Dim> inner, Work scratch) {
        Work(Stage stage, Expr body, Affine store, List<Dim> inner) { this(stage, body, store, inner, null); }

        Buffer out() { return stage instanceof Stage.Reduction r ? r.out() : ((Stage.Pointwise) stage).out(); }
    }

    /**
     * When a later pointwise stage of the row recomputes a reduction's whole term (softmax divides
     * the very {@code exp(x - max)} it summed), the reduction also stores each term into that
     * stage's output, and the stage reads it back instead of computing it again.
     */
    private static List<Work> reuseTerms(List<Work> work) {
        List<Work> out = new ArrayList<>(work);
        for (int i = 0; i < out.size(); i++) {
            Work r = out.get(i);
            if (!(r.stage() instanceof Stage.Reduction) || r.inner().isEmpty() || Expr.size(r.body()) < 3) continue;
            for (int j = i + 1; j < out.size(); j++) {
                Work p = out.get(j);
                if (!(p.stage() instanceof Stage.Pointwise) || !p.inner().equals(r.inner()) || p.out().dtype() != r.body().dtype()
                        || p.out().storage() != p.out() || !Expr.contains(p.body(), r.body())) continue;
                Expr stored = new Expr.Load(p.out(), p.store(), p.out().dtype());
                out.set(j, new Work(p.stage(), Expr.replace(p.body(), r.body(), stored), p.store(), p.inner()));
                out.set(i, new Work(r.stage(), r.body(), r.store(), r.inner(), p));
                break;
            }
        }
        return out;
    }

    void write(Code c, Kernel.Loop k, KernelContext ctx) {
        List<Stage> stages = k.stages();
        List<Affine> accesses = new ArrayList<>();
        for (Stage s : stages) accesses.addAll(accesses(s, k));
        Set<Integer> dropped = new HashSet<>();
        if (!k.hasReduction()) {
            Stage.Pointwise first = (Stage.Pointwise) stages.get(0);
            List<Dim> dims = collapse(dims(first.shape(), 0), accesses, dropped);
            List<Dim> inner = dims.isEmpty() ? List.of() : List.of(dims.get(dims.size() - 1));
            List<Work> work = stages.stream().map(s -> work(s, k, dropped, inner)).toList();
            if (dims.size() == 1) flat(c, work, dims.get(0), ctx);
            else rows(c, dims.isEmpty() ? List.of() : dims.subList(0, dims.size() - 1), work, ctx);
            return;
        }
        int p = k.outer().length;
        List<Dim> outer = collapse(dims(k.outer(), 0), accesses, dropped);
        List<Work> work = new ArrayList<>();
        for (Stage s : stages) {
            int[] sizes = s instanceof Stage.Reduction r ? r.reduce()
                    : java.util.Arrays.copyOfRange(((Stage.Pointwise) s).shape(), p, ((Stage.Pointwise) s).shape().length);
            Work w = work(s, k, dropped, List.of());
            List<Affine> own = new ArrayList<>();
            Expr.forEachLoad(w.body(), l -> own.add(l.index()));
            if (w.store() != null) own.add(w.store());
            Set<Integer> innerDropped = new HashSet<>();
            List<Dim> inner = collapse(dims(sizes, p), own, innerDropped);
            Work base = work(s, k, union(dropped, innerDropped), inner);
            work.add(base);
        }
        rows(c, outer, reuseTerms(work), ctx);
    }

    private static Set<Integer> union(Set<Integer> a, Set<Integer> b) {
        Set<Integer> u = new HashSet<>(a);
        u.addAll(b);
        return u;
    }

    private static Work work(Stage s, Kernel.Loop k, Set<Integer> dropped, List<Dim> inner) {
        java.util.function.UnaryOperator<Affine> f = a -> {
            for (int v : dropped) a = a.substitute(v, Affine.constant(0));
            return a;
        };
        return switch (s) {
            case Stage.Pointwise p -> new Work(s, Expr.mapIndices(p.body(), f), f.apply(store(p)), inner);
            case Stage.Reduction r -> new Work(s, Expr.mapIndices(r.body(), f),
                    k.locals().contains(r.out()) ? null : f.apply(Affine.contiguous(r.outer(), 0)), inner);
            default -> throw new IllegalStateException("not a loop stage: " + s);
        };
    }

    // ------------------------------------------------------------------ loop structure

    private void flat(Code c, List<Work> work, Dim d, KernelContext ctx) {
        c.open("Parallel.forRange(" + d.size() + ", " + weight(work) + ", (lo, hi) -> {");
        for (Work w : work) {
            c.open("{");
            innermostPointwise(c, w.body(), d.var(), "lo", "hi", w.out(), w.store(), ctx);
            c.close("}");
        }
        c.close("});");
    }

    /** Rows over {@code outer} in parallel, each stage looping over its inner dims inside. */
    private void rows(Code c, List<Dim> outer, List<Work> work, KernelContext ctx) {
        long rows = 1;
        for (Dim d : outer) rows *= d.size();
        boolean parallel = !outer.isEmpty();
        if (parallel) {
            long perRow = 0;
            for (Work w : work) {
                long n = 1;
                for (Dim d : w.inner()) n *= d.size();
                perRow += n * (1 + Expr.size(w.body()) / 2);
            }
            c.open("Parallel.forRange(" + rows + ", " + Math.max(1, perRow) + ", (lo, hi) -> {");
            c.open("for (int row = lo; row < hi; row++) {");
            if (outer.size() == 1) {
                c.line("int " + KernelContext.var(outer.get(0).var()) + " = row;");
            } else {
                c.line("int rem = row;");
                for (int i = outer.size() - 1; i > 0; i--) {
                    Dim d = outer.get(i);
                    c.line("int " + KernelContext.var(d.var()) + " = rem % " + d.size() + ";");
                    c.line("rem /= " + d.size() + ";");
                }
                c.line("int " + KernelContext.var(outer.get(0).var()) + " = rem;");
            }
        }
        for (Work w : work) {
            if (w.stage() instanceof Stage.Reduction r) {
                reduction(c, r, w, ctx);
            } else {
                c.open("{");
                pointwise(c, w, ctx);
                c.close("}");
            }
        }
        if (parallel) {
            c.close("}");
            c.close("});");
        }
    }

    /** Work per element, for the parallel split: roughly the expression size. */
    private static long weight(List<Work> work) {
        long w = 0;
        for (Work x : work) w += 1 + Expr.size(x.body()) / 2;
        return w;
    }

    // ------------------------------------------------------------------ stages

    private void pointwise(Code c, Work w, KernelContext ctx) {
        List<Dim> inner = w.inner();
        if (inner.isEmpty()) {
            String v = new ScalarExprs(ctx, c).emit(w.body());
            c.line(w.out().name() + "[" + ctx.index(w.out(), w.store()) + "] = " + ScalarExprs.storeValue(v, w.out().dtype()) + ";");
            return;
        }
        for (int i = 0; i < inner.size() - 1; i++) {
            String v = KernelContext.var(inner.get(i).var());
            c.open("for (int " + v + " = 0; " + v + " < " + inner.get(i).size() + "; " + v + "++) {");
        }
        Dim last = inner.get(inner.size() - 1);
        innermostPointwise(c, w.body(), last.var(), "0", Integer.toString(last.size()), w.out(), w.store(), ctx);
        for (int i = 0; i < inner.size() - 1; i++) c.close("}");
    }

    private void innermostPointwise(Code c, Expr body, int var, String from, String to, Buffer out, Affine store, KernelContext ctx) {
        String v = KernelContext.var(var);
        DType dt = out.dtype();
        Code pre = new Code();
        ScalarExprs hoist = new ScalarExprs(ctx, pre);
        String target = out.name() + "[" + ctx.index(out, store) + "]";
        if (vectorize && dt.isFloatingPoint() && store.coeff(var) == 1 && ScalarExprs.dependsOn(body, var) && VectorExprs.supports(body, var, dt)) {
            Code vbody = new Code();
            String r = new VectorExprs(ctx, var, dt, hoist, pre, vbody).emit(body);
            c.append(pre);
            c.line("int " + v + " = " + from + ";");
            c.open("for (; " + v + " < " + bound(from, to, dt) + "; " + v + " += " + JavaTypes.species(dt) + ".length()) {");
            c.append(vbody);
            c.line(r + ".intoArray(" + out.name() + ", " + ctx.index(out, store) + ");");
            c.close("}");
            c.open("for (; " + v + " < " + to + "; " + v + "++) {");
        } else {
            hoistInvariants(body, var, hoist);
            c.append(pre);
            c.open("for (int " + v + " = " + from + "; " + v + " < " + to + "; " + v + "++) {");
        }
        Code tail = new Code();
        String s = new ScalarExprs(ctx, tail, new HashMap<>(hoist.memo())).emit(body);
        c.append(tail);
        c.line(target + " = " + ScalarExprs.storeValue(s, dt) + ";");
        c.close("}");
    }

    private static String bound(String from, String to, DType dt) {
        String n = from.equals("0") ? to : to + " - " + from;
        String b = JavaTypes.species(dt) + ".loopBound(" + n + ")";
        return from.equals("0") ? b : from + " + " + b;
    }

    /** Computes every loop-invariant subtree of {@code e} before the loop (C2 would too; this keeps it visible). */
    private static void hoistInvariants(Expr e, int var, ScalarExprs hoist) {
        if (e instanceof Expr.Const) return;
        if (!ScalarExprs.dependsOn(e, var)) {
            hoist.emit(e);
            return;
        }
        switch (e) {
            case Expr.Unary u -> hoistInvariants(u.x(), var, hoist);
            case Expr.Binary b -> { hoistInvariants(b.a(), var, hoist); hoistInvariants(b.b(), var, hoist); }
            case Expr.Where w -> { hoistInvariants(w.cond(), var, hoist); hoistInvariants(w.a(), var, hoist); hoistInvariants(w.b(), var, hoist); }
            case Expr.Cast x -> hoistInvariants(x.x(), var, hoist);
            default -> { }
        }
    }

    private void reduction(Code c, Stage.Reduction r, Work w, KernelContext ctx) {
        DType dt = r.out().dtype();
        List<Dim> inner = w.inner();
        Expr body = w.body();
        Dim last = inner.isEmpty() ? null : inner.get(inner.size() - 1);
        boolean vec = vectorize && last != null && dt.isFloatingPoint() && ScalarExprs.dependsOn(body, last.var())
                && (w.scratch() == null || w.scratch().store().coeff(last.var()) == 1)
                && VectorExprs.supports(body, last.var(), dt);
        String accType = !vec && dt == DType.FLOAT32 && r.op() == Stage.ReduceOp.SUM ? "double" : JavaTypes.scalar(dt);
        String acc = ctx.temp();
        c.line("// " + r.op().name().toLowerCase() + " over " + dimsText(inner) + (w.store() == null ? " (kept in a register)" : ""));
        c.line(accType + " " + acc + " = " + init(r.op(), dt) + ";");
        String accV = vec ? ctx.temp() : null;
        if (vec) c.line(JavaTypes.vector(dt) + " " + accV + " = " + JavaTypes.vector(dt) + ".broadcast(" + JavaTypes.species(dt) + ", " + init(r.op(), dt) + ");");
        c.open("{");
        for (int i = 0; i < inner.size() - 1; i++) {
            String v = KernelContext.var(inner.get(i).var());
            c.open("for (int " + v + " = 0; " + v + " < " + inner.get(i).size() + "; " + v + "++) {");
        }
        if (last == null) {
            String s = new ScalarExprs(ctx, c).emit(body);
            c.line(acc + " = " + combine(r.op(), acc, s) + ";");
        } else {
            String v = KernelContext.var(last.var());
            Code pre = new Code();
            ScalarExprs hoist = new ScalarExprs(ctx, pre);
            if (vec) {
                Code vbody = new Code();
                String x = new VectorExprs(ctx, last.var(), dt, hoist, pre, vbody).emit(body);
                c.append(pre);
                c.line("int " + v + " = 0;");
                c.open("for (; " + v + " < " + bound("0", Integer.toString(last.size()), dt) + "; " + v + " += " + JavaTypes.species(dt) + ".length()) {");
                c.append(vbody);
                if (w.scratch() != null) c.line(x + ".intoArray(" + w.scratch().out().name() + ", " + ctx.index(w.scratch().out(), w.scratch().store()) + ");");
                c.line(accV + " = " + accV + "." + vectorCombine(r.op()) + "(" + x + ");");
                c.close("}");
                c.open("for (; " + v + " < " + last.size() + "; " + v + "++) {");
            } else {
                hoistInvariants(body, last.var(), hoist);
                c.append(pre);
                c.open("for (int " + v + " = 0; " + v + " < " + last.size() + "; " + v + "++) {");
            }
            Code tail = new Code();
            String s = new ScalarExprs(ctx, tail, new HashMap<>(hoist.memo())).emit(body);
            c.append(tail);
            if (w.scratch() != null) {
                Buffer o = w.scratch().out();
                c.line(o.name() + "[" + ctx.index(o, w.scratch().store()) + "] = " + ScalarExprs.storeValue(s, o.dtype()) + ";");
            }
            c.line(acc + " = " + combine(r.op(), acc, s) + ";");
            c.close("}");
        }
        for (int i = 0; i < inner.size() - 1; i++) c.close("}");
        c.close("}");
        if (vec) c.line(acc + " = " + combine(r.op(), acc, accV + ".reduceLanes(VectorOperators." + lanesOp(r.op()) + ")") + ";");
        String result = ctx.temp();
        c.line(JavaTypes.scalar(dt) + " " + result + " = " + (accType.equals(JavaTypes.scalar(dt)) ? acc : "(" + JavaTypes.scalar(dt) + ") " + acc) + ";");
        if (w.store() != null) c.line(r.out().name() + "[" + ctx.index(r.out(), w.store()) + "] = " + result + ";");
        ctx.setLocal(r.out(), result);
    }

    private static String dimsText(List<Dim> dims) {
        return dims.stream().map(d -> KernelContext.var(d.var()) + " < " + d.size()).collect(java.util.stream.Collectors.joining(", ", "[", "]"));
    }

    private static String init(Stage.ReduceOp op, DType d) {
        return switch (op) {
            case SUM -> JavaTypes.literal(0, d);
            case MAX -> switch (d) {
                case FLOAT32 -> "Float.NEGATIVE_INFINITY";
                case FLOAT64 -> "Double.NEGATIVE_INFINITY";
                case INT32 -> "Integer.MIN_VALUE";
                default -> "Long.MIN_VALUE";
            };
            case MIN -> switch (d) {
                case FLOAT32 -> "Float.POSITIVE_INFINITY";
                case FLOAT64 -> "Double.POSITIVE_INFINITY";
                case INT32 -> "Integer.MAX_VALUE";
                default -> "Long.MAX_VALUE";
            };
        };
    }

    private static String combine(Stage.ReduceOp op, String acc, String x) {
        return switch (op) {
            case SUM -> acc + " + " + x;
            case MAX -> "Math.max(" + acc + ", " + x + ")";
            case MIN -> "Math.min(" + acc + ", " + x + ")";
        };
    }

    private static String vectorCombine(Stage.ReduceOp op) {
        return switch (op) { case SUM -> "add"; case MAX -> "max"; case MIN -> "min"; };
    }

    private static String lanesOp(Stage.ReduceOp op) {
        return switch (op) { case SUM -> "ADD"; case MAX -> "MAX"; case MIN -> "MIN"; };
    }

    // ------------------------------------------------------------------ dims and accesses

    static List<Dim> dims(int[] sizes, int firstVar) {
        List<Dim> out = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) out.add(new Dim(firstVar + i, sizes[i]));
        return out;
    }

    /**
     * Drops size-1 dims and merges neighbours {@code a, b} wherever every access steps
     * {@code coeff(a) = coeff(b)·size(b)}: the pair then walks memory like one dim. Dropped vars are
     * added to {@code dropped} (their value is 0 from then on).
     */
    static List<Dim> collapse(List<Dim> dims, List<Affine> accesses, Set<Integer> dropped) {
        List<Dim> out = new ArrayList<>();
        for (Dim d : dims) {
            if (d.size() == 1) dropped.add(d.var());
            else out.add(d);
        }
        for (int i = out.size() - 1; i >= 1; i--) {
            Dim a = out.get(i - 1), b = out.get(i);
            boolean ok = true;
            for (Affine x : accesses) if (x.coeff(a.var()) != x.coeff(b.var()) * b.size()) { ok = false; break; }
            if (!ok) continue;
            out.set(i, new Dim(b.var(), a.size() * b.size()));
            out.remove(i - 1);
            dropped.add(a.var());
        }
        return out;
    }

    private List<Affine> accesses(Stage s, Kernel.Loop k) {
        List<Affine> out = new ArrayList<>(loads(s));
        if (s instanceof Stage.Pointwise p) out.add(store(p));
        if (s instanceof Stage.Reduction r && !k.locals().contains(r.out())) out.add(Affine.contiguous(r.outer(), 0));
        return out;
    }

    private static List<Affine> loads(Stage s) {
        List<Affine> out = new ArrayList<>();
        Expr body = s instanceof Stage.Reduction r ? r.body() : ((Stage.Pointwise) s).body();
        Expr.forEachLoad(body, l -> out.add(l.index()));
        return out;
    }

    private static Affine store(Stage.Pointwise p) { return Affine.contiguous(p.shape(), 0); }
}
