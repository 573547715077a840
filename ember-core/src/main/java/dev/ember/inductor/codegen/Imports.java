package dev.ember.inductor.codegen;

import java.lang.constant.ClassDesc;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** The classes a printed {@link JClass} names by their simple name: what its source must import. */
final class Imports {
    private final String ownPackage;
    private final Set<String> names = new TreeSet<>();

    private Imports(String ownPackage) { this.ownPackage = ownPackage; }

    static Set<String> of(JClass c) {
        Imports i = new Imports(c.packageName());
        for (JClass.Field f : c.fields()) {
            i.type(f.type());
            i.expr(f.init());
        }
        for (JClass.Method m : c.methods()) {
            i.type(m.returnType());
            m.params().forEach(p -> i.type(p.type()));
            i.statements(m.body());
        }
        return i.names;
    }

    /** A type spelled by its simple name (no dot in its source) outside {@code java.lang} and this package. */
    private void type(JType t) {
        ClassDesc d = t.desc();
        while (d.isArray()) d = d.componentType();
        if (d.isPrimitive() || t.source().contains(".")) return;
        String pkg = d.packageName();
        if (!pkg.equals("java.lang") && !pkg.equals(ownPackage)) names.add(pkg + "." + d.displayName());
    }

    private void statements(List<JStmt> body) {
        for (JStmt s : body) {
            switch (s) {
                case JStmt.Declare d -> { type(d.local().type()); expr(d.init()); }
                case JStmt.Assign a -> expr(a.value());
                case JStmt.ArrayStore a -> { expr(a.array()); expr(a.index()); expr(a.value()); }
                case JStmt.Eval e -> expr(e.expr());
                case JStmt.For f -> {
                    if (f.init() != null) statements(List.of(f.init()));
                    expr(f.cond());
                    statements(f.body());
                    expr(f.update().value());
                }
                case JStmt.Block b -> statements(b.body());
                case JStmt.Return r -> { if (r.value() != null) expr(r.value()); }
                case JStmt.ParallelRange p -> {
                    type(Calls.PARALLEL);
                    expr(p.n());
                    expr(p.cost());
                    statements(p.body());
                }
                case JStmt.Comment c -> { }
                case JStmt.Blank b -> { }
            }
        }
    }

    private void expr(JExpr e) {
        switch (e) {
            case JExpr.Local l -> { }
            case JExpr.Lit l -> { }
            case JExpr.ArrayLoad a -> { expr(a.array()); expr(a.index()); }
            case JExpr.Arith a -> { expr(a.a()); expr(a.b()); }
            case JExpr.Compare c -> { expr(c.a()); expr(c.b()); }
            case JExpr.Neg n -> expr(n.x());
            case JExpr.Not n -> expr(n.x());
            case JExpr.Cond c -> { expr(c.cond()); expr(c.a()); expr(c.b()); }
            case JExpr.Convert c -> { if (!c.implicit()) type(c.type()); expr(c.x()); }
            case JExpr.Box b -> expr(b.x());
            case JExpr.Invoke i -> {
                if (i.receiver() != null) expr(i.receiver());
                else if (i.owner() != null) type(i.owner());
                i.args().forEach(this::expr);
            }
            case JExpr.GetStatic g -> { if (g.owner() != null) type(g.owner()); }
            case JExpr.New n -> { type(n.type()); n.args().forEach(this::expr); }
            case JExpr.NewArray n -> { type(n.type()); expr(n.size()); }
            case JExpr.ArrayOf a -> { type(a.type()); a.elements().forEach(this::expr); }
        }
    }
}
