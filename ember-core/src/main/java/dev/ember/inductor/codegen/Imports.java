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
                case JStmt.If f -> {
                    expr(f.cond());
                    statements(f.body());
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
            case JExpr.Convert c when !c.implicit() -> type(c.type());
            case JExpr.Invoke i when i.receiver() == null && i.owner() != null -> type(i.owner());
            case JExpr.GetStatic g when g.owner() != null -> type(g.owner());
            case JExpr.New n -> type(n.type());
            case JExpr.NewArray n -> type(n.type());
            case JExpr.ArrayOf a -> type(a.type());
            default -> { }
        }
        JExpr.children(e).forEach(this::expr);
    }
}
