package dev.ember.debug.fuzz;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Makes a failing program smaller while it still fails the same way (delta debugging over
 * statements): drop a returned value; drop a statement, reading an earlier variable of the same
 * dtype and shape wherever its result was read; drop unread parameters (tensors and numbers); make arguments contiguous
 * and unaliased; return a parameter instead of a computed value (so that a failure in what the
 * program did to its inputs sheds the statements only the returned value needed). Each change is kept only if {@code stillFails} says the candidate fails as the
 * original did; passes repeat until none is kept. Shapes are not shrunk: a program's shapes hang
 * together (matmul dims, broadcasting), and a smaller program is what a reader needs first.
 */
public final class Shrinker {
    private final Predicate<Program> stillFails;

    private Shrinker(Predicate<Program> stillFails) { this.stillFails = stillFails; }

    /** The smallest program reached from {@code failing} for which {@code stillFails} holds. */
    public static Program shrink(Program failing, Predicate<Program> stillFails) {
        return new Shrinker(stillFails).run(failing);
    }

    private Program run(Program p) {
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Program candidate : candidates(p)) {
                if (stillFails.test(candidate)) {
                    p = candidate;
                    changed = true;
                    break;
                }
            }
        }
        return p;
    }

    /** Smaller or simpler variants of {@code p}, biggest cuts first. */
    private List<Program> candidates(Program p) {
        List<Program> out = new ArrayList<>();
        for (int i = 0; i < p.returns().size() && p.returns().size() > 1; i++) {
            List<Var> r = new ArrayList<>(p.returns());
            r.remove(i);
            out.add(p.with(p.inputs(), p.body(), r));
        }
        for (int i = p.body().size() - 1; i >= 0; i--) {
            Program q = withoutStatement(p, i);
            if (q != null) out.add(q);
        }
        for (int i = 0; i < p.inputs().size(); i++) {
            Program q = withoutInput(p, i);
            if (q != null) out.add(q);
        }
        for (int i = 0; i < p.scalars().size(); i++) {
            java.util.regex.Pattern read = java.util.regex.Pattern.compile("\\b" + p.scalars().get(i).name() + "\\b");
            if (p.body().stream().noneMatch(st -> read.matcher(st.java()).find())) out.add(p.withoutScalar(i));
        }
        for (int i = 0; i < p.inputs().size(); i++) {
            Input in = p.inputs().get(i);
            if (in.layout() != Input.Layout.CONTIGUOUS || in.aliasOf() >= 0) {
                if (isAliased(p, i)) continue;
                List<Input> ins = new ArrayList<>(p.inputs());
                ins.set(i, new Input(in.param(), Input.Layout.CONTIGUOUS, -1));
                out.add(p.with(ins, p.body(), p.returns()));
            }
        }
        // one candidate per returned value (each costs a compile and a run): the first parameter not returned yet
        Var param = p.inputs().stream().map(Input::param).filter(v -> !p.returns().contains(v)).findFirst().orElse(null);
        for (int r = 0; r < p.returns().size() && param != null; r++) {
            Var returned = p.returns().get(r);
            if (p.inputs().stream().anyMatch(in -> in.param().equals(returned))) continue;
            List<Var> returns = new ArrayList<>(p.returns());
            returns.set(r, param);
            out.add(p.with(p.inputs(), p.body(), returns));
        }
        return out;
    }

    /** {@code p} without statement {@code i}; its variable's readers read an earlier one of the same type. Null when none exists. */
    private static Program withoutStatement(Program p, int i) {
        Stmt s = p.body().get(i);
        Var gone = s.defines();
        List<Stmt> body = new ArrayList<>(p.body());
        body.remove(i);
        if (gone == null) return p.with(p.inputs(), body, p.returns());
        Var substitute = null;
        for (Var v : visibleBefore(p, i)) if (v.type().equals(gone.type())) substitute = v;
        if (substitute == null) return readsOf(body, p.returns()).contains(gone) ? null : p.with(p.inputs(), body, p.returns());
        Map<Var, Var> sub = Map.of(gone, substitute);
        for (int k = i; k < body.size(); k++) body.set(k, body.get(k).rewire(sub));
        List<Var> returns = p.returns().stream().map(v -> v.equals(gone) ? sub.get(v) : v).toList();
        return p.with(p.inputs(), body, returns);
    }

    private static List<Var> visibleBefore(Program p, int i) {
        List<Var> out = new ArrayList<>();
        for (Input in : p.inputs()) out.add(in.param());
        for (int k = 0; k < i; k++) if (p.body().get(k).defines() != null) out.add(p.body().get(k).defines());
        return out;
    }

    private static Set<Var> readsOf(List<Stmt> body, List<Var> returns) {
        Set<Var> out = new HashSet<>(returns);
        for (Stmt s : body) out.addAll(s.reads());
        return out;
    }

    private static boolean isAliased(Program p, int i) {
        return p.inputs().stream().anyMatch(in -> in.aliasOf() == i);
    }

    /** {@code p} without parameter {@code i}, when nothing reads it and no other parameter is the same tensor. */
    private static Program withoutInput(Program p, int i) {
        if (p.inputs().size() == 1 || isAliased(p, i) || readsOf(p.body(), p.returns()).contains(p.inputs().get(i).param())) return null;
        List<Input> ins = new ArrayList<>();
        for (int k = 0; k < p.inputs().size(); k++) {
            if (k == i) continue;
            Input in = p.inputs().get(k);
            ins.add(in.aliasOf() > i ? new Input(in.param(), in.layout(), in.aliasOf() - 1) : in);
        }
        return p.with(ins, p.body(), p.returns());
    }
}
